import { CliError, EXIT, removeSessionFile, writeSessionFile } from './client.ts';
import { str, type Command, type Context } from './command.ts';
import { signIn } from './login.ts';

/** Signing in and out, and who is signed in. */

async function readCredentials(ctx: Context) {
  const env = ctx.io.env;
  let piped: string[] | undefined;
  const fromStdin = async () => {
    piped ??= (await ctx.io.readStdin()).split(/\r?\n/);
    return piped.shift() ?? '';
  };
  const ask = async (question: string, hidden: boolean, value: string | undefined) => {
    if (value) return value;
    const answer = ctx.io.isTTY ? await ctx.io.prompt(question, hidden) : await fromStdin();
    if (!answer.trim())
      throw new CliError(
        `${question.replace(/:\s*$/, '')} is required (prompted on a terminal, or MAIL_EMAIL, MAIL_PASSWORD, MAIL_CODE, or lines on stdin)`,
        EXIT.usage,
      );
    return answer;
  };
  const email = (await ask('E-mail: ', false, str(ctx, 'email') ?? env.MAIL_EMAIL)).trim();
  return {
    email,
    password: () => ask('Password: ', true, env.MAIL_PASSWORD),
    code: () => ask('Code (6 digits or a backup code): ', false, env.MAIL_CODE),
  };
}

export const SESSION_COMMANDS: Command[] = [
  {
    name: 'login',
    summary: 'Sign in (e-mail, password, then the authenticator code) and keep the session',
    usage: '[--email address]',
    details: [
      'Prompts on a terminal (the password is not shown). For scripts: MAIL_EMAIL, MAIL_PASSWORD and',
      'MAIL_CODE, or the missing ones as lines on stdin. The session cookie is kept in the session',
      'file (mode 0600) until `logout` or its expiry (8 hours).',
    ],
    options: { email: { type: 'string', description: 'The account’s e-mail (else $MAIL_EMAIL or a prompt)', argument: 'address' } },
    examples: ['login', 'login --email demo@example.com', 'login --url https://mail.example.com'],
    async run(ctx) {
      const session = await signIn(ctx.io.fetch, ctx.base, await readCredentials(ctx));
      writeSessionFile(ctx.sessionFile, session);
      ctx.print(
        { signedIn: true, email: session.email, url: session.url, sessionFile: ctx.sessionFile },
        (d) => `Signed in as ${d.email} at ${d.url} (session in ${d.sessionFile})`,
      );
    },
  },
  {
    name: 'logout',
    summary: 'End the session at the service and delete the session file',
    usage: '',
    examples: ['logout'],
    async run(ctx) {
      const client = ctx.client;
      const session = client.session;
      const res = await client.raw('POST', '/logout', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await res.body?.cancel();
      const location = res.headers.get('location') ?? '';
      removeSessionFile(ctx.sessionFile);
      if (res.status !== 302 || !location.startsWith('/login'))
        throw new CliError(`The service refused the logout (HTTP ${res.status}); the session file is deleted`, EXIT.failed);
      // A session that had already ended is sent to the login form with a `next`.
      const ended = location === '/login';
      ctx.print({ signedOut: true, email: session.email, alreadyEnded: !ended }, (d) =>
        d.alreadyEnded ? 'The session had already ended; the session file is deleted' : `Signed out ${d.email}`,
      );
    },
  },
  {
    name: 'me',
    summary: 'Who is signed in, and the connected mailbox',
    usage: '',
    examples: ['me', 'me --json'],
    async run(ctx) {
      const me = await ctx.client.get<{
        user: { id: number; email: string; name: string };
        mailbox: { displayName: string; mail: string };
      }>('/api/me');
      ctx.print(
        me,
        (d) => `Signed in:  ${d.user.name} <${d.user.email}> (user ${d.user.id})\nMailbox:    ${d.mailbox.displayName} <${d.mailbox.mail}>`,
      );
    },
  },
];
