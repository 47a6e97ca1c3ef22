import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { parseConfig } from '#shared/config.ts';
import { openRacingDb, racingDbConfigSchema } from '#shared/pg.ts';

export const BASE = 'https://form.racing.example';
export const USERNAME = env.ADMIN_USERNAME;
export const PASSWORD = env.ADMIN_PASSWORD;

export function fetchForm(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', init.cookie);
  return exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers, redirect: 'manual' }));
}

/** Every Set-Cookie line of a response (workerd has getSetCookie; these workers-types omit it). */
export function setCookies(res: Response): string[] {
  return (res.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
}

/** name=value pairs of a response's Set-Cookie headers, as a Cookie header. */
export function cookiesOf(res: Response): string {
  return setCookies(res)
    .map((line) => line.split(';')[0]!)
    .join('; ');
}

export function hiddenToken(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('login page without a token');
  return match[1]!;
}

/** The login form's cookie and token, as a browser holding the login page has them. */
export async function loginForm(): Promise<{ cookie: string; token: string }> {
  const res = await fetchForm('/form/');
  return { cookie: cookiesOf(res), token: hiddenToken(await res.text()) };
}

export async function postLogin(fields: Record<string, string>, form?: { cookie: string; token: string }): Promise<Response> {
  const { cookie, token } = form ?? (await loginForm());
  return fetchForm('/form/', {
    method: 'POST',
    cookie,
    body: new URLSearchParams({ csrf_token: token, ...fields }),
  });
}

/** A signed-in browser's session cookie. */
export async function sessionCookie(): Promise<string> {
  const res = await postLogin({ username: USERNAME, password: PASSWORD });
  if (res.status !== 302) throw new Error(`login failed: ${res.status}`);
  return setCookies(res)
    .map((line) => line.split(';')[0]!)
    .filter((pair) => pair.startsWith('form_session='))
    .join('; ');
}

export async function page(path: string, cookie: string): Promise<{ res: Response; html: string }> {
  const res = await fetchForm(path, { cookie });
  return { res, html: await res.text() };
}

export async function json<T = Record<string, unknown>>(path: string, cookie?: string): Promise<{ res: Response; body: T }> {
  const res = await fetchForm(path, { cookie });
  return { res, body: await res.json<T>() };
}

/** Runs SQL against the same racing database, for expectations computed independently of the Worker. */
export async function query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const db = openRacingDb(parseConfig(racingDbConfigSchema, env));
  try {
    const result = await db.$client.query(text, params);
    return result.rows as T[];
  } finally {
    await db.$client.end();
  }
}

/** Fetches until the data cache reports a hit (its writes finish after the response). */
export async function untilCacheHit(path: string, cookie: string | undefined, kind: string): Promise<Response> {
  for (let i = 0; i < 20; i++) {
    const res = await fetchForm(path, { cookie });
    if ((res.headers.get('x-form-cache') ?? '').includes(`${kind}=hit`)) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no cache hit for ${path}`);
}
