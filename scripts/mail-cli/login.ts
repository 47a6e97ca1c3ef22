import { CliError, EXIT, type StoredSession, cookieFrom } from './client.ts';

/**
 * Signs in the way the login form does: GET /login (the form's token and its cookie), POST the
 * e-mail and password (the code form and the pending-login cookie), POST the code (302 with the
 * session cookie); then the anti-forgery token from the csrf-token meta tag of /outlook.
 */

const formToken = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
const formError = (html: string) =>
  /<p class="error" role="alert">\s*([\s\S]*?)\s*<\/p>/
    .exec(html)?.[1]
    ?.replace(/<[^>]+>/g, '')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .trim();

export interface Credentials {
  email: string;
  password: () => Promise<string>;
  code: () => Promise<string>;
}

async function reach(fetcher: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetcher(url, { redirect: 'manual', ...init });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    throw new CliError(
      `Cannot reach the mail service at ${new URL(url).origin} (${cause}): is it running (npm run dev, or --url)?`,
      EXIT.failed,
    );
  }
}

function refused(res: Response, html: string, step: string): CliError {
  const why = formError(html) ?? `HTTP ${res.status}`;
  if (res.status === 429)
    return new CliError(
      `Sign-in refused for now (${step}): ${why} Try again in ${res.headers.get('retry-after') ?? 'a while'} s.`,
      EXIT.failed,
    );
  if (res.status >= 500) return new CliError(`Sign-in failed (${step}): ${why}`, EXIT.failed);
  return new CliError(`Sign-in refused (${step}): ${why}`, EXIT.signedOut);
}

export async function signIn(fetcher: typeof fetch, base: string, credentials: Credentials): Promise<StoredSession> {
  const form = await reach(fetcher, `${base}/login`, { method: 'GET' });
  const formHtml = await form.text();
  const token1 = formToken(formHtml);
  const formCookie1 = cookieFrom(form, 'mail_login_form');
  if (form.status !== 200 || !token1 || !formCookie1)
    throw new CliError(`${base}/login is not the mail assistant's login form (HTTP ${form.status})`, EXIT.failed);

  const post = (cookie: string, fields: Record<string, string>) =>
    reach(fetcher, `${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: base },
      body: new URLSearchParams({ next: '/outlook', ...fields }).toString(),
    });

  const step1 = await post(formCookie1, { csrf_token: token1, email: credentials.email, password: await credentials.password() });
  const html1 = await step1.text();
  const pending = cookieFrom(step1, 'mail_login_pending');
  const token2 = formToken(html1);
  const formCookie2 = cookieFrom(step1, 'mail_login_form');
  if (step1.status !== 200 || !pending || !token2 || !formCookie2) throw refused(step1, html1, 'e-mail and password');

  const step2 = await post(`${formCookie2}; ${pending}`, { csrf_token: token2, code: (await credentials.code()).trim() });
  const session = cookieFrom(step2, 'mail_session');
  if (step2.status !== 302 || !session) throw refused(step2, await step2.text(), 'code');
  await step2.body?.cancel();

  const page = await reach(fetcher, `${base}/outlook`, { method: 'GET', headers: { cookie: session } });
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !csrf)
    throw new CliError(`Signed in, but ${base}/outlook gave no anti-forgery token (HTTP ${page.status})`, EXIT.failed);
  return { url: base, cookie: session, csrf, email: credentials.email, savedAt: new Date().toISOString() };
}
