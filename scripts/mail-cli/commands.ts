import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { htmlToText } from '../../workers/mail/src/attachment-text.ts';
import type { MessageSummary, MessageView } from '../../workers/mail/src/mail-views.ts';
import { ROOT, applyLocalD1Migrations, devStateDir, wranglerBin } from '../workers.ts';
import type { CliIo } from './cli.ts';
import { CliError, EXIT, type MailClient, removeSessionFile, usageError, writeSessionFile } from './client.ts';
import { signIn } from './login.ts';
import { rulesCommand } from './rules.ts';
import { sendersCommand, unsubscribeCommand } from './senders.ts';

export interface Context {
  io: CliIo;
  values: Record<string, string | boolean | string[] | undefined>;
  args: string[];
  base: string;
  sessionFile: string;
  json: boolean;
  readonly client: MailClient;
  /** `--json`: the data as JSON on stdout; else `text(data)`. */
  print<T>(data: T, text: (data: T) => string): void;
  /** A line of progress on stderr. */
  progress(text: string): void;
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string; multiple?: boolean; description: string; argument?: string };

export interface Command {
  name: string;
  summary: string;
  /** Arguments and options after the name, for the usage line. */
  usage: string;
  details?: string[];
  /** Fewest and most positional arguments. */
  args?: [number, number];
  options?: Record<string, OptionSpec>;
  examples: string[];
  run(ctx: Context): Promise<void>;
}

// ---- small helpers -----------------------------------------------------------------------

const enc = encodeURIComponent;
const str = (ctx: Context, name: string): string | undefined =>
  typeof ctx.values[name] === 'string' ? (ctx.values[name] as string) : undefined;
const flag = (ctx: Context, name: string) => ctx.values[name] === true;

function int(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = str(ctx, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  return n;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(done, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true },
    );
  });

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) : '                ');
const who = (a: { name: string; address: string } | null) =>
  a ? (a.name && a.name !== a.address ? `${a.name} <${a.address}>` : a.address) : '(nobody)';

function messageLines(items: MessageSummary[]): string {
  if (!items.length) return '(no messages)';
  return items
    .map(
      (m) =>
        `${m.isRead ? ' ' : '*'} ${when(m.receivedAt ?? m.sentAt)}  ${(m.from?.name || m.from?.address || '(nobody)').slice(0, 30).padEnd(30)}  ${m.hasAttachments ? '📎 ' : ''}${m.subject || '(no subject)'}\n    ${m.id}`,
    )
    .join('\n');
}

type ListAnswer = {
  folder: { name: string; total: number; unread: number };
  items: MessageSummary[];
  count: number | null;
  next: string | null;
};

function listPath(folder: string, params: Record<string, string | number | undefined>): string {
  const query = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${enc(String(v))}`)
    .join('&');
  return `/api/emails/${enc(folder)}${query ? `?${query}` : ''}`;
}

function listText(answer: ListAnswer): string {
  const head = `${answer.folder.name}: ${answer.items.length} shown${answer.count !== null ? ` of ${answer.count}` : ''}, ${answer.folder.unread} unread`;
  return `${head}\n${messageLines(answer.items)}${answer.next ? `\n(more: --next ${answer.next})` : ''}`;
}

/** A text from the argument, `--file`, or stdin when piped. */
async function inputText(ctx: Context, what = 'text'): Promise<string> {
  const file = str(ctx, 'file');
  let text = ctx.args[0];
  if (file !== undefined) {
    if (text !== undefined) throw usageError(`give the ${what} as an argument or with --file, not both`);
    if (!existsSync(file)) throw usageError(`--file ${file}: no such file`);
    text = readFileSync(file, 'utf8');
  }
  if (text === undefined && !ctx.io.isTTY) text = await ctx.io.readStdin();
  if (!text?.trim()) throw usageError(`no ${what}: give it as an argument, with --file, or on stdin`);
  return text;
}

/** A message body from `--body`, `--body-file` or stdin. */
async function bodyText(ctx: Context, required: boolean): Promise<string> {
  const body = str(ctx, 'body');
  const file = str(ctx, 'body-file');
  if (body !== undefined && file !== undefined) throw usageError('give --body or --body-file, not both');
  if (file !== undefined) {
    if (!existsSync(file)) throw usageError(`--body-file ${file}: no such file`);
    return readFileSync(file, 'utf8');
  }
  if (body !== undefined) return body;
  if (required && !ctx.io.isTTY) {
    const piped = await ctx.io.readStdin();
    if (piped.trim()) return piped;
  }
  if (required) throw usageError('the message text is required: --body, --body-file or stdin');
  return '';
}

const list = (ctx: Context, name: string) => {
  const value = ctx.values[name];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return items
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
};

/** Message ids from the arguments, or the newest `--top` of `--folder`. */
async function targetIds(ctx: Context): Promise<string[]> {
  if (ctx.args.length) return ctx.args;
  const folder = str(ctx, 'folder');
  if (!folder) throw usageError('give message ids, or --folder (with --top) for the newest of a folder');
  const top = int(ctx, 'top', 10, 1, 100);
  const page = await ctx.client.get<ListAnswer>(listPath(folder, { top }));
  return page.items.map((m) => m.id);
}

/** Runs `work` on each id in turn with a progress line; failures are counted, the first one reported. */
async function each<T>(ctx: Context, ids: string[], verb: string, work: (id: string) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  let failure: CliError | undefined;
  for (const [i, id] of ids.entries()) {
    if (ids.length > 1) ctx.progress(`${verb} ${i + 1}/${ids.length} ${id.slice(0, 24)}…`);
    try {
      done.push(await work(id));
    } catch (err) {
      if (!(err instanceof CliError) || err.exitCode === EXIT.signedOut || ids.length === 1) throw err;
      ctx.progress(`  failed: ${err.message}`);
      failure ??= err;
    }
  }
  if (failure) {
    ctx.print(done, () => '');
    throw new CliError(`${ids.length - done.length} of ${ids.length} failed; first: ${failure.message}`, failure.exitCode);
  }
  return done;
}

const FOLDER_OPTION: OptionSpec = {
  type: 'string',
  description: 'Folder: inbox, sentitems, drafts, archive, … or a folder’s name',
  argument: 'folder',
};
/** Which messages a command works on besides ids: the newest of a folder. */
const TARGET_OPTIONS = {
  folder: FOLDER_OPTION,
  top: { type: 'string', description: 'With --folder: how many of the newest (default 10)', argument: 'n' },
} as const;
const TOP_OPTION: OptionSpec = { type: 'string', description: 'Messages per page, 1–100', argument: 'n' };
const BODY_OPTIONS: Record<string, OptionSpec> = {
  body: { type: 'string', description: 'The text (else --body-file or stdin)', argument: 'text' },
  'body-file': { type: 'string', description: 'Read the text from a file', argument: 'path' },
};
const KEY_OPTION: OptionSpec = {
  type: 'string',
  multiple: true,
  description: 'Only these keys (repeat, or separate with commas); else the model’s choice',
  argument: 'name',
};
const keys = (ctx: Context) => (list(ctx, 'key').length ? { keys: list(ctx, 'key') } : {});
const FILE_OPTION: OptionSpec = { type: 'string', description: 'Read the text from a file (else the argument or stdin)', argument: 'path' };

// ---- sign-in -----------------------------------------------------------------------------

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

// ---- the commands ------------------------------------------------------------------------

const listCommand = (name: string, summary: string, folder: string | null): Command => ({
  name,
  summary,
  usage: `${folder === null ? '<folder> ' : ''}[--top n] [--skip n] [--next cursor]`,
  args: folder === null ? [1, 1] : [0, 0],
  options: {
    top: TOP_OPTION,
    skip: { type: 'string', description: 'Skip this many first', argument: 'n' },
    next: { type: 'string', description: 'The cursor a previous page printed', argument: 'cursor' },
  },
  examples: folder === null ? [`${name} sentitems --top 10`, `${name} "Nominations" --json`] : [`${name} --top 10`],
  async run(ctx) {
    const top = int(ctx, 'top', 25, 1, 100);
    const skip = int(ctx, 'skip', 0, 0, 100_000);
    const answer = await ctx.client.get<ListAnswer>(
      listPath(folder ?? ctx.args[0]!, { top, skip: skip || undefined, next: str(ctx, 'next') }),
    );
    ctx.print(answer, listText);
  },
});

export const COMMANDS: Command[] = [
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
  {
    name: 'folders',
    summary: 'Folders with unread and total counts',
    usage: '',
    examples: ['folders'],
    async run(ctx) {
      const { folders } = await ctx.client.get<{
        folders: { id: string; name: string; parentId: string | null; unread: number; total: number; wellKnown: string | null }[];
      }>('/api/folders');
      const ids = new Set(folders.map((f) => f.id));
      ctx.print(folders, (list) =>
        list
          .map(
            (f) =>
              `${f.parentId && ids.has(f.parentId) ? '  ' : ''}${f.name.padEnd(28)} ${String(f.unread).padStart(5)} unread ${String(f.total).padStart(6)} total  ${f.wellKnown ?? f.id}`,
          )
          .join('\n'),
      );
    },
  },
  listCommand('inbox', 'The newest messages of the inbox', 'inbox'),
  listCommand('mail', 'The newest messages of a folder', null),
  {
    name: 'read',
    summary: 'One message: headers, attachments and the body as text',
    usage: '<message_id> [--html]',
    args: [1, 1],
    options: { html: { type: 'boolean', description: 'The HTML body as it is, not as text' } },
    examples: ['read AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A…', 'read <id> --json'],
    async run(ctx) {
      const m = await ctx.client.get<MessageView>(`/api/email/${enc(ctx.args[0]!)}`);
      const text = m.body.contentType.toLowerCase() === 'html' && !flag(ctx, 'html') ? htmlToText(m.body.content) : m.body.content;
      ctx.print({ ...m, text }, (d) =>
        [
          `Subject: ${d.subject || '(no subject)'}`,
          `From:    ${who(d.from)}`,
          `To:      ${d.to.map(who).join(', ')}`,
          ...(d.cc.length ? [`Cc:      ${d.cc.map(who).join(', ')}`] : []),
          ...(d.bcc.length ? [`Bcc:     ${d.bcc.map(who).join(', ')}`] : []),
          `Date:    ${when(d.receivedAt ?? d.sentAt)}${d.folder ? `  (${d.folder})` : ''}${d.isDraft ? '  draft' : ''}`,
          ...d.attachments.map((a) => `Attached: ${a.name} (${a.contentType}, ${a.size} bytes) ${a.id}`),
          '',
          d.text,
        ].join('\n'),
      );
    },
  },
  {
    name: 'search',
    summary: 'Search a folder (subject, body, sender)',
    usage: '<query> [--folder inbox] [--top n] [--next cursor]',
    args: [1, 1],
    options: {
      folder: FOLDER_OPTION,
      top: TOP_OPTION,
      next: { type: 'string', description: 'The cursor a previous page printed', argument: 'cursor' },
    },
    examples: ['search "barrier trial"', 'search scratchings --folder archive --top 50'],
    async run(ctx) {
      const answer = await ctx.client.get<ListAnswer>(
        listPath(str(ctx, 'folder') ?? 'inbox', { q: ctx.args[0], top: int(ctx, 'top', 25, 1, 100), next: str(ctx, 'next') }),
      );
      ctx.print(answer, listText);
    },
  },
  {
    name: 'unread',
    summary: 'The unread messages of a folder (newest first)',
    usage: '[--folder inbox] [--top n]',
    options: { folder: FOLDER_OPTION, top: { type: 'string', description: 'At most this many (default 25)', argument: 'n' } },
    examples: ['unread', 'unread --folder "Nominations" --top 5'],
    async run(ctx) {
      const want = int(ctx, 'top', 25, 1, 1000);
      const folder = str(ctx, 'folder') ?? 'inbox';
      const unread: MessageSummary[] = [];
      let next: string | undefined;
      let answer: ListAnswer;
      // Pages of 100 until enough are found or every unread one is (the folder's unread count).
      do {
        answer = await ctx.client.get<ListAnswer>(listPath(folder, { top: 100, next }));
        unread.push(...answer.items.filter((m) => !m.isRead));
        next = answer.next ?? undefined;
      } while (next && unread.length < Math.min(want, answer.folder.unread));
      const items = unread.slice(0, want);
      ctx.print({ folder: answer.folder, items }, (d) => `${d.folder.name}: ${d.folder.unread} unread\n${messageLines(d.items)}`);
    },
  },
  {
    name: 'paginate',
    summary: 'Every message of a folder, page by page (progress on stderr)',
    usage: '[--folder inbox] [--page-size n] [--max n] [--query text]',
    options: {
      folder: FOLDER_OPTION,
      'page-size': { type: 'string', description: 'Messages per request, 1–100 (default 50)', argument: 'n' },
      max: { type: 'string', description: 'Stop after this many messages (default 1000)', argument: 'n' },
      query: { type: 'string', description: 'Only messages matching this search', argument: 'text' },
    },
    examples: ['paginate --folder sentitems', 'paginate --page-size 100 --max 500 --json > inbox.json'],
    async run(ctx) {
      const size = int(ctx, 'page-size', 50, 1, 100);
      const max = int(ctx, 'max', 1000, 1, 100_000);
      const folder = str(ctx, 'folder') ?? 'inbox';
      const items: MessageSummary[] = [];
      let next: string | undefined;
      let page = 0;
      do {
        const answer: ListAnswer = await ctx.client.get<ListAnswer>(listPath(folder, { top: size, q: str(ctx, 'query'), next }));
        page += 1;
        items.push(...answer.items);
        next = answer.next ?? undefined;
        ctx.progress(`page ${page}: ${items.length}${answer.count !== null ? ` of ${answer.count}` : ''} messages`);
      } while (next && items.length < max && !ctx.io.signal?.aborted);
      const shown = items.slice(0, max);
      ctx.print(shown, (d) => `${messageLines(d)}\n${d.length} messages`);
    },
  },
  {
    name: 'list-attachments',
    summary: 'A message’s attachments (names, types, sizes, ids)',
    usage: '<message_id>',
    args: [1, 1],
    examples: ['list-attachments <message_id>'],
    async run(ctx) {
      const answer = await ctx.client.get<{
        attachments: { id: string; name: string; contentType: string; size: number; isInline: boolean }[];
      }>(`/api/email/${enc(ctx.args[0]!)}/attachments`);
      ctx.print(answer.attachments, (list) =>
        list.length
          ? list
              .map(
                (a) =>
                  `${a.name.padEnd(32)} ${a.contentType.padEnd(26)} ${String(a.size).padStart(9)} bytes${a.isInline ? ' inline' : ''}\n    ${a.id}`,
              )
              .join('\n')
          : '(no attachments)',
      );
    },
  },
  {
    name: 'attachments',
    summary: 'Download a message’s attachments into a folder',
    usage: '<message_id> [--out dir] [--name file] [--force]',
    args: [1, 1],
    options: {
      out: { type: 'string', description: 'Folder to save into (default the current one; made if missing)', argument: 'dir' },
      name: { type: 'string', description: 'Only the attachment of this name', argument: 'file' },
      force: { type: 'boolean', description: 'Overwrite files that exist' },
    },
    examples: ['attachments <message_id> --out ./downloads', 'attachments <message_id> --name racecard.pdf'],
    async run(ctx) {
      const id = ctx.args[0]!;
      const out = resolve(str(ctx, 'out') ?? '.');
      const { attachments } = await ctx.client.get<{ attachments: { id: string; name: string; size: number }[] }>(
        `/api/email/${enc(id)}/attachments`,
      );
      const only = str(ctx, 'name');
      const chosen = only === undefined ? attachments : attachments.filter((a) => a.name === only);
      if (only !== undefined && !chosen.length)
        throw new CliError(
          `The message has no attachment named "${only}" (it has: ${attachments.map((a) => a.name).join(', ') || 'none'})`,
          EXIT.failed,
        );
      mkdirSync(out, { recursive: true });
      const saved: { name: string; path: string; bytes: number }[] = [];
      for (const [i, a] of chosen.entries()) {
        // Only the last part of the name, without anything that climbs out of the folder.
        const file = join(out, basename(a.name.replace(/[\\/]+/g, '_')).replace(/^\.+/, '_') || `attachment-${i + 1}`);
        if (existsSync(file) && !flag(ctx, 'force')) throw new CliError(`${file} exists (use --force to overwrite)`, EXIT.failed);
        ctx.progress(`downloading ${i + 1}/${chosen.length} ${a.name} (${a.size} bytes)`);
        const { bytes } = await ctx.client.bytes(`/api/email/${enc(id)}/attachments/${enc(a.id)}`);
        writeFileSync(file, bytes);
        saved.push({ name: a.name, path: file, bytes: bytes.length });
      }
      ctx.print(saved, (list) => (list.length ? list.map((s) => `saved ${s.path} (${s.bytes} bytes)`).join('\n') : '(no attachments)'));
    },
  },
  {
    name: 'extract-text',
    summary: 'The text of a message’s text, HTML and PDF attachments (read by the service)',
    usage: '<message_id> [--attachment id]',
    args: [1, 1],
    options: { attachment: { type: 'string', description: 'Only this attachment (its id from list-attachments)', argument: 'id' } },
    examples: ['extract-text <message_id>', 'extract-text <message_id> --attachment <attachment_id> --json'],
    async run(ctx) {
      const id = ctx.args[0]!;
      let ids: { id: string; name: string }[];
      const one = str(ctx, 'attachment');
      if (one) ids = [{ id: one, name: one }];
      else
        ids = (
          await ctx.client.get<{ attachments: { id: string; name: string; isInline: boolean }[] }>(`/api/email/${enc(id)}/attachments`)
        ).attachments.filter((a) => !a.isInline);
      const texts: { name: string; kind: string; text: string; truncated: boolean }[] = [];
      for (const a of ids) {
        try {
          texts.push(await ctx.client.get(`/api/email/${enc(id)}/attachments/${enc(a.id)}/text`));
        } catch (err) {
          // An attachment with no readable text is skipped when reading all of them.
          if (one || !(err instanceof CliError) || !/unsupported_type|unreadable_attachment|attachment_too_large/.test(err.message))
            throw err;
          ctx.progress(`skipped ${a.name}: ${err.message}`);
        }
      }
      ctx.print(texts, (list) =>
        list.length
          ? list.map((t) => `== ${t.name} (${t.kind}) ==\n${t.text}${t.truncated ? '\n[… cut]' : ''}`).join('\n\n')
          : '(no attachment with readable text)',
      );
    },
  },
  {
    name: 'init-db',
    summary: 'Apply the mail service’s D1 migrations (the dev database, or --remote)',
    usage: '[--remote] [--persist-to dir]',
    options: {
      remote: { type: 'boolean', description: 'The deployed database (wrangler, your Cloudflare login)' },
      'persist-to': { type: 'string', description: `Local state folder (default the dev runner’s, .wrangler/state/mail)`, argument: 'dir' },
    },
    examples: ['init-db', 'init-db --remote'],
    async run(ctx) {
      const config = 'workers/mail/wrangler.toml';
      if (flag(ctx, 'remote')) {
        if (str(ctx, 'persist-to')) throw usageError('--persist-to is for the local database, not with --remote');
        ctx.progress('applying the mail migrations to the deployed D1 database…');
        const run = spawnSync(wranglerBin(), ['d1', 'migrations', 'apply', 'DB', '--remote', '-c', config], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, CI: 'true' },
        });
        if (run.status !== 0)
          throw new CliError(
            `wrangler d1 migrations apply --remote failed: ${(run.stderr || run.stdout).trim().split('\n').pop()}`,
            EXIT.failed,
          );
        ctx.print({ applied: true, remote: true }, () => 'Migrations applied to the deployed mail database');
        return;
      }
      const persistTo = resolve(str(ctx, 'persist-to') ?? devStateDir('mail'));
      ctx.progress(`applying the mail migrations to the local database in ${persistTo}…`);
      try {
        applyLocalD1Migrations(config, 'DB', persistTo);
      } catch (err) {
        throw new CliError(`${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, EXIT.failed);
      }
      ctx.print({ applied: true, remote: false, persistTo }, (d) => `Migrations applied to the local mail database (${d.persistTo})`);
    },
  },
  {
    name: 'create-draft',
    summary: 'A new draft in Drafts; or with --for, the assistant’s reply draft to a message',
    usage: '[--to a,b] [--cc …] [--bcc …] [--subject s] [--body text | --body-file f] | --for <message_id>',
    options: {
      to: { type: 'string', multiple: true, description: 'Recipients (repeat, or separate with commas)', argument: 'address' },
      cc: { type: 'string', multiple: true, description: 'CC recipients', argument: 'address' },
      bcc: { type: 'string', multiple: true, description: 'BCC recipients', argument: 'address' },
      subject: { type: 'string', description: 'Subject', argument: 'text' },
      html: { type: 'boolean', description: 'The body is HTML' },
      for: {
        type: 'string',
        description: 'Generate the AI reply draft to this message (POST /api/draft/generate)',
        argument: 'message_id',
      },
      ...BODY_OPTIONS,
    },
    examples: ['create-draft --to trainer@example.com --subject "Float booking" --body "6am Tuesday"', 'create-draft --for <message_id>'],
    async run(ctx) {
      const replyTo = str(ctx, 'for');
      if (replyTo !== undefined) {
        if (['to', 'cc', 'bcc', 'subject', 'body', 'body-file'].some((o) => ctx.values[o] !== undefined))
          throw usageError('--for generates the reply draft: give no recipients, subject or body with it');
        const draft = await ctx.client.post<{
          draft_id?: string;
          body_html?: string;
          reused?: boolean;
          category?: string;
          no_reply?: boolean;
          trace_id?: string;
        }>('/api/draft/generate', { email_id: replyTo });
        ctx.print(draft, (d) =>
          d.no_reply
            ? `No reply draft: the message's category (${d.category}) is in no-reply mode`
            : `${d.reused ? 'Existing' : 'New'} reply draft ${d.draft_id} (category ${d.category ?? 'unknown'}; trace ${d.trace_id})\n\n${htmlToText(d.body_html ?? '')}`,
        );
        return;
      }
      const draft = await ctx.client.post<{ id: string; subject: string; to: string[] }>('/api/drafts', {
        to: list(ctx, 'to'),
        cc: list(ctx, 'cc'),
        bcc: list(ctx, 'bcc'),
        subject: str(ctx, 'subject') ?? '',
        body: await bodyText(ctx, false),
        html: flag(ctx, 'html'),
      });
      ctx.print(draft, (d) => `Draft created: ${d.subject || '(no subject)'} to ${d.to.join(', ') || '(nobody yet)'}\n    ${d.id}`);
    },
  },
  {
    name: 'update-draft',
    summary: 'Replace a draft’s body (POST /api/draft/update)',
    usage: '<draft_id> (--body text | --body-file f) [--text]',
    args: [1, 1],
    options: { ...BODY_OPTIONS, text: { type: 'boolean', description: 'The body is plain text (escaped into HTML); else HTML' } },
    examples: ['update-draft <draft_id> --body "<p>See you at 6.</p>"', 'update-draft <draft_id> --text --body-file reply.txt'],
    async run(ctx) {
      let body = await bodyText(ctx, true);
      if (flag(ctx, 'text')) body = `<div>${body.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/\r?\n/g, '<br>')}</div>`;
      const answer = await ctx.client.post<{ draft_id: string; updated: boolean }>('/api/draft/update', {
        draft_id: ctx.args[0],
        body_html: body,
      });
      ctx.print(answer, (d) => `Draft ${d.draft_id} updated`);
    },
  },
  {
    name: 'send-draft',
    summary: 'Send a draft (POST /api/draft/send)',
    usage: '<draft_id>',
    args: [1, 1],
    examples: ['send-draft <draft_id>'],
    async run(ctx) {
      const answer = await ctx.client.post<{ sent: boolean; draft_id: string }>('/api/draft/send', { draft_id: ctx.args[0] });
      ctx.print(answer, (d) => `Draft ${d.draft_id} sent`);
    },
  },
  {
    name: 'create-folder',
    summary: 'Create a mail folder (at the top level or inside --parent)',
    usage: '<name> [--parent folder]',
    args: [1, 1],
    options: { parent: { type: 'string', description: 'The folder to create it in', argument: 'folder' } },
    examples: ['create-folder "Nominations 2026"', 'create-folder Scratchings --parent "Nominations 2026"'],
    async run(ctx) {
      const folder = await ctx.client.post<{ id: string; name: string }>('/api/folders', {
        name: ctx.args[0],
        ...(str(ctx, 'parent') ? { parent: str(ctx, 'parent') } : {}),
      });
      ctx.print(folder, (f) => `Folder created: ${f.name}\n    ${f.id}`);
    },
  },
  {
    name: 'move',
    summary: 'Move a message to another folder',
    usage: '<message_id> <folder>',
    args: [2, 2],
    examples: ['move <message_id> archive', 'move <message_id> "Nominations 2026"'],
    async run(ctx) {
      const moved = await ctx.client.post<{ id: string; folder: string | null; folderId: string | null }>(
        `/api/move/${enc(ctx.args[0]!)}`,
        { dest_folder_id: ctx.args[1] },
      );
      ctx.print(moved, (m) => `Moved to ${m.folder ?? ctx.args[1]}\n    ${m.id}`);
    },
  },
  {
    name: 'mark-read',
    summary: 'Mark messages read (or unread with --unread)',
    usage: '<message_id>… [--unread]',
    args: [1, 100],
    options: { unread: { type: 'boolean', description: 'Mark unread instead' } },
    examples: ['mark-read <message_id>', 'mark-read <id1> <id2> --unread'],
    async run(ctx) {
      const isRead = !flag(ctx, 'unread');
      const done = await each(ctx, ctx.args, isRead ? 'marking read' : 'marking unread', (id) =>
        ctx.client.post<{ id: string; isRead: boolean }>(`/api/mark-read/${enc(id)}`, { isRead }),
      );
      ctx.print(done, (list) => list.map((m) => `${m.isRead ? 'read  ' : 'unread'} ${m.id}`).join('\n'));
    },
  },
  {
    name: 'reply',
    summary: 'Reply to a message (the original quoted), or to everyone with --all',
    usage: '<message_id> (--body text | --body-file f) [--all] [--cc a,b] [--bcc a,b]',
    args: [1, 1],
    options: {
      ...BODY_OPTIONS,
      all: { type: 'boolean', description: 'Reply to everyone on the message' },
      cc: { type: 'string', multiple: true, description: 'Extra CC recipients', argument: 'address' },
      bcc: { type: 'string', multiple: true, description: 'BCC recipients', argument: 'address' },
    },
    examples: [
      'reply <message_id> --body "Thanks, booked for 6am."',
      'reply <message_id> --all --body-file answer.txt --cc vet@example.com',
    ],
    async run(ctx) {
      const answer = await ctx.client.post<{ sent: boolean; draftId: string }>(`/api/reply/${enc(ctx.args[0]!)}`, {
        body: await bodyText(ctx, true),
        all: flag(ctx, 'all'),
        cc: list(ctx, 'cc'),
        bcc: list(ctx, 'bcc'),
      });
      ctx.print(answer, () => 'Reply sent');
    },
  },
  {
    name: 'summarise',
    summary: 'Summarise messages and keep the summaries (POST /api/save-summary-direct)',
    usage: '<message_id>… | --folder f [--top n]',
    args: [0, 100],
    options: TARGET_OPTIONS,
    examples: ['summarise <message_id>', 'summarise --folder inbox --top 20'],
    async run(ctx) {
      const ids = await targetIds(ctx);
      const done = await each(ctx, ids, 'summarising', (id) =>
        ctx.client.post<{ message_id: string; summary: string; category?: string }>('/api/save-summary-direct', { message_id: id }),
      );
      ctx.print(done, (list) => list.map((s) => `${s.message_id}\n  [${s.category ?? 'unknown'}] ${s.summary}`).join('\n'));
    },
  },
  {
    name: 'classify',
    summary: 'Categorise messages by the category rules and store the category',
    usage: '<message_id>… | --folder f [--top n]',
    args: [0, 100],
    options: TARGET_OPTIONS,
    examples: ['classify <message_id>', 'classify --folder inbox --top 50'],
    async run(ctx) {
      const ids = await targetIds(ctx);
      const done = await each(ctx, ids, 'classifying', (id) =>
        ctx.client.post<{ message_id: string; category: string; trace_id: string }>(`/api/email/${enc(id)}/classify`),
      );
      ctx.print(done, (list) => list.map((c) => `${c.category.padEnd(20)} ${c.message_id}`).join('\n'));
    },
  },
  {
    name: 'extract',
    summary: 'Key-value facts of a message (its text through the extraction prompt)',
    usage: '<message_id> [--key name]…',
    args: [1, 1],
    options: { key: KEY_OPTION },
    examples: ['extract <message_id>', 'extract <message_id> --key trainer --key race --json'],
    async run(ctx) {
      const m = await ctx.client.get<MessageView>(`/api/email/${enc(ctx.args[0]!)}`);
      const text = `Subject: ${m.subject}\nFrom: ${who(m.from)}\n\n${m.body.contentType.toLowerCase() === 'html' ? htmlToText(m.body.content) : m.body.content}`;
      const answer = await ctx.client.post<{ values: Record<string, string>; trace_id: string }>('/api/llm/kv-extract', {
        text: text.slice(0, 100_000),
        ...keys(ctx),
      });
      ctx.print({ message_id: m.id, ...answer }, kvText);
    },
  },
  {
    name: 'llm-summarise',
    summary: 'Summarise a text with the model (nothing stored but the trace)',
    usage: '[text] [--file f]',
    args: [0, 1],
    options: { file: FILE_OPTION },
    examples: [
      'llm-summarise "Fast One will run at Flemington on Saturday…"',
      'llm-summarise --file note.txt',
      'cat note.txt | npm run mail -- llm-summarise',
    ],
    async run(ctx) {
      const answer = await ctx.client.post<{ summary: string; bullets: string[]; trace_id: string }>('/api/llm/summarise', {
        text: await inputText(ctx),
      });
      ctx.print(answer, (d) => `${d.summary}\n${d.bullets.map((b) => `  - ${b}`).join('\n')}\n(trace ${d.trace_id})`);
    },
  },
  {
    name: 'llm-classify',
    summary: 'The category the model gives a text (one of yours, or unknown)',
    usage: '[text] [--file f]',
    args: [0, 1],
    options: { file: FILE_OPTION },
    examples: ['llm-classify "Please confirm the nomination for race 4"'],
    async run(ctx) {
      const answer = await ctx.client.post<{ category: string; trace_id: string }>('/api/llm/classify', { text: await inputText(ctx) });
      ctx.print(answer, (d) => `${d.category}\n(trace ${d.trace_id})`);
    },
  },
  {
    name: 'llm-kv-extract',
    summary: 'Key-value facts of a text',
    usage: '[text] [--file f] [--key name]…',
    args: [0, 1],
    options: { file: FILE_OPTION, key: KEY_OPTION },
    examples: ['llm-kv-extract --file nomination.txt --json', 'llm-kv-extract "Trainer: Jane Doe. Race: 4" --key trainer'],
    async run(ctx) {
      const answer = await ctx.client.post<{ values: Record<string, string>; trace_id: string }>('/api/llm/kv-extract', {
        text: await inputText(ctx),
        ...keys(ctx),
      });
      ctx.print(answer, kvText);
    },
  },
  {
    name: 'llm-reply-draft',
    summary: 'A reply the model writes to a text (no draft is made in the mailbox)',
    usage: '[text] [--file f] [--category name]',
    args: [0, 1],
    options: { file: FILE_OPTION, category: { type: 'string', description: 'Draft with this category’s reply prompt', argument: 'name' } },
    examples: ['llm-reply-draft "Can the float leave at 5am?" --category Logistics'],
    async run(ctx) {
      const category = str(ctx, 'category');
      const answer = await ctx.client.post<{ body: string; trace_id: string }>('/api/llm/reply-draft', {
        text: await inputText(ctx),
        ...(category ? { category } : {}),
      });
      ctx.print(answer, (d) => `${d.body}\n(trace ${d.trace_id})`);
    },
  },
  {
    name: 'poll',
    summary: 'Print new messages of a folder as they arrive (Ctrl-C stops)',
    usage: '[--folder inbox] [--interval seconds] [--once] [--count n]',
    details: [
      'Without --once, messages that were there at the start are not printed; with --once,',
      'the unread messages of the newest page are printed and the command ends.',
    ],
    options: {
      folder: FOLDER_OPTION,
      interval: { type: 'string', description: 'Seconds between checks, 1–3600 (default 30)', argument: 'seconds' },
      once: { type: 'boolean', description: 'Check once: print the unread of the newest page, then stop' },
      count: { type: 'string', description: 'Stop after printing this many new messages', argument: 'n' },
    },
    examples: ['poll', 'poll --interval 10 --json', 'poll --once'],
    async run(ctx) {
      const folder = str(ctx, 'folder') ?? 'inbox';
      const interval = int(ctx, 'interval', 30, 1, 3600);
      const count = str(ctx, 'count') === undefined ? Infinity : int(ctx, 'count', 1, 1, 100_000);
      const check = () => ctx.client.get<ListAnswer>(listPath(folder, { top: 50 }));
      const show = (m: MessageSummary) => (ctx.json ? ctx.io.stdout(`${JSON.stringify(m)}\n`) : ctx.io.stdout(`${messageLines([m])}\n`));
      const first = await check();
      if (flag(ctx, 'once')) {
        const unread = first.items.filter((m) => !m.isRead);
        ctx.print(unread, messageLines);
        return;
      }
      const seen = new Set(first.items.map((m) => m.id));
      ctx.progress(`watching ${first.folder.name} every ${interval} s (${first.folder.unread} unread); Ctrl-C stops`);
      let printed = 0;
      while (!ctx.io.signal?.aborted && printed < count) {
        await sleep(interval * 1000, ctx.io.signal);
        if (ctx.io.signal?.aborted) break;
        let answer: ListAnswer;
        try {
          answer = await check();
        } catch (err) {
          // A failing check is reported and tried again; a signed-out session ends the watch.
          if (err instanceof CliError && err.exitCode === EXIT.signedOut) throw err;
          ctx.progress(`check failed (trying again in ${interval} s): ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        const fresh = answer.items.filter((m) => !seen.has(m.id)).reverse();
        for (const m of fresh) {
          seen.add(m.id);
          if (printed < count) show(m);
          printed += 1;
        }
      }
    },
  },
  {
    name: 'subscribe',
    summary: 'Renew the mailbox’s change-notification subscription (new mail reaches the webhook)',
    usage: '',
    examples: ['subscribe'],
    async run(ctx) {
      const sub = await ctx.client.post<{ id: string; resource: string; notificationUrl: string; expiresAt: string }>('/api/subscriptions');
      ctx.print(sub, (s) => `Subscribed ${s.resource} → ${s.notificationUrl} until ${s.expiresAt}\n    ${s.id}`);
    },
  },
  {
    name: 'dashboard',
    summary: 'The metrics of the /dashboard page',
    usage: '',
    examples: ['dashboard', 'dashboard --json'],
    async run(ctx) {
      const metrics = await ctx.client.get<Record<string, unknown>>('/api/dashboard');
      ctx.print(metrics, (d) => flatten(d).join('\n'));
    },
  },
  {
    name: 'list-emails',
    summary: 'Stored email summaries (the document store), paged and filtered',
    usage: '[--search text] [--direction d] [--category c] [--pinned] [--needs-reply] [--page n] [--page-size n]',
    options: {
      pinned: { type: 'boolean', description: 'Only pinned summaries' },
      'needs-reply': { type: 'boolean', description: 'Only e-mails that await your reply' },
      search: { type: 'string', description: 'Words in the subject, sender or summary', argument: 'text' },
      direction: { type: 'string', description: 'inbound or outbound', argument: 'd' },
      category: { type: 'string', description: 'Only this category', argument: 'name' },
      page: { type: 'string', description: 'Page, from 1', argument: 'n' },
      'page-size': { type: 'string', description: 'Per page, 1–100', argument: 'n' },
    },
    examples: ['list-emails --category Nominations', 'list-emails --search Flemington --page 2 --json'],
    async run(ctx) {
      const params = {
        search: str(ctx, 'search'),
        direction: str(ctx, 'direction'),
        category: str(ctx, 'category'),
        pinned: flag(ctx, 'pinned') ? 'true' : undefined,
        needs_reply: flag(ctx, 'needs-reply') ? 'true' : undefined,
        page: str(ctx, 'page') === undefined ? undefined : int(ctx, 'page', 1, 1, 100_000),
        page_size: str(ctx, 'page-size') === undefined ? undefined : int(ctx, 'page-size', 20, 1, 100),
      };
      const query = Object.entries(params)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${enc(String(v))}`)
        .join('&');
      const answer = await ctx.client.get<{ items: Record<string, unknown>[]; page: number; page_size: number; total: number }>(
        `/api/docdb/email_summaries${query ? `?${query}` : ''}`,
      );
      ctx.print(answer, (d) =>
        [
          `${d.total} summaries, page ${d.page} (${d.page_size} a page)`,
          ...d.items.map(
            (s) =>
              `${s.pinned ? '📌 ' : ''}[${String(s.category ?? 'unknown')}] ${String(s.subject ?? '')}\n  ${String(s.summary ?? '').slice(0, 200)}\n  ${String(s.message_id ?? '')}`,
          ),
        ].join('\n'),
      );
    },
  },
  {
    name: 'web',
    summary: 'Start the local stack (npm run dev) and print the mail assistant’s address',
    usage: '',
    details: ['Runs until Ctrl-C, which stops every service it started.'],
    examples: ['web'],
    async run(ctx) {
      const child = spawn(
        process.execPath,
        [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ctx.io.devRunner ?? join(ROOT, 'scripts', 'dev.ts')],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let announced = false;
      const onData = (chunk: Buffer) => {
        ctx.io.stderr(chunk.toString());
        if (!announced && chunk.toString().includes('Serving:')) {
          announced = true;
          ctx.print({ url: `${ctx.base}/outlook` }, (d) => `Mail assistant: ${d.url}`);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      const stop = () => child.kill('SIGINT');
      ctx.io.signal?.addEventListener('abort', stop, { once: true });
      const code = await new Promise<number | null>((done) => child.on('exit', done));
      ctx.io.signal?.removeEventListener('abort', stop);
      if (code !== 0 && !ctx.io.signal?.aborted) throw new CliError(`npm run dev stopped with code ${code}`, EXIT.failed);
    },
  },
  rulesCommand,
  sendersCommand,
  unsubscribeCommand,
];

function kvText(d: { values: Record<string, string>; trace_id: string }): string {
  const entries = Object.entries(d.values);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return `${entries.length ? entries.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') : '(nothing found)'}\n(trace ${d.trace_id})`;
}

/** Nested metrics as `a.b: value` lines. */
function flatten(value: unknown, prefix = ''): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  if (Array.isArray(value))
    return value.length && typeof value[0] === 'object'
      ? value.flatMap((v, i) => flatten(v, `${prefix}[${i}]`))
      : [`${prefix}: ${value.join(', ')}`];
  return [`${prefix}: ${String(value)}`];
}
