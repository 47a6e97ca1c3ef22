import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../workers/migrate/src/index';
import { freshCodes } from '../support/totp';
import { workerHandler } from '../support/worker-handler';
import type { TestAccountName } from './accounts';

export const BASE = 'https://migrate.test';

type Account = { email: string; password: string; totpSecret: string };
const accounts = JSON.parse(env.TEST_ACCOUNTS) as Record<TestAccountName, Account>;
const backupCodes = JSON.parse(env.TEST_BACKUP_CODES) as Record<TestAccountName, string[]>;
export const account = (name: TestAccountName): Account => accounts[name];

/** A TOTP code of the account that this test file has not used yet, else a backup code. */
export const freshCode = freshCodes((name: TestAccountName) => account(name).totpSecret, backupCodes);

export type FormFields = Record<string, string | string[]>;

/** The anti-forgery token a page carries (meta tag or hidden field). */
export function tokenIn(html: string): string | undefined {
  return (
    /name="request-verification-token" content="([^"]+)"/.exec(html)?.[1] ??
    /name="__RequestVerificationToken" value="([^"]+)"/.exec(html)?.[1]
  );
}

/**
 * The app's fetch handler, called directly (see test/support/worker-handler.ts). The project's files
 * share one isolate per worker slot, where each `exports.default.fetch` call cost more than the one
 * before (50 requests took 0.4 s at first and 4.7 s after 350), so the later files crawled.
 */
const send = workerHandler(worker);

/**
 * A browser against the app: keeps cookies, sends the page's anti-forgery token with every POST
 * (unless told not to), follows no redirects.
 */
export class Client {
  readonly cookies = new Map<string, string>();
  csrf = '';

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await send(new Request(`${BASE}${path}`, { ...init, headers, redirect: 'manual' }));
    for (const line of res.headers.getAll('set-cookie')) {
      const [pair, ...attrs] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    return res;
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.fetch(path, { headers });
  }

  /** GETs a page and keeps its anti-forgery token. */
  async page(path: string): Promise<{ res: Response; html: string }> {
    const res = await this.get(path);
    const html = await res.text();
    const token = tokenIn(html);
    if (token) this.csrf = token;
    return { res, html };
  }

  post(path: string, fields: FormFields = {}, options: { csrf?: boolean; headers?: Record<string, string> } = {}) {
    const body = new URLSearchParams();
    if (options.csrf !== false) body.append('__RequestVerificationToken', this.csrf);
    for (const [key, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
    return this.fetch(path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers } });
  }

  postJson(path: string, json: unknown, options: { csrf?: boolean; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.csrf !== false) headers.RequestVerificationToken = this.csrf;
    return this.fetch(path, { method: 'POST', body: JSON.stringify(json), headers });
  }
}

/** Signs the account in through both steps (the real authentication service). */
export async function signIn(name: TestAccountName): Promise<Client> {
  const { email, password } = account(name);
  let failure = '';
  // The one local authentication service hashes every test file's passwords on 2 cores: under that
  // load an answer can come after the app's 5 s limit (502, "could not be reached"), at either step.
  // Start again from the login form (a verify the service did finish used up its pending token).
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const client = new Client();
    await client.page('/Account/Login');
    const login = await client.post('/Account/Login', { email, password });
    failure = `login ${name}: ${login.status} ${await login.clone().text()}`;
    if (login.status === 502) continue;
    if (login.status !== 302) break;
    const verifyUrl = new URL(login.headers.get('location')!, BASE);
    const pendingToken = verifyUrl.searchParams.get('pendingToken')!;
    for (let step = 0; step < 5; step++) {
      const verify = await client.post('/Account/Verify', { pendingToken, email, code: freshCode(name) });
      if (verify.status === 302) {
        if (!client.cookies.has('AuthToken')) throw new Error('no AuthToken cookie');
        await client.page('/');
        return client;
      }
      failure = `verify ${name}: ${verify.status} ${await verify.text()}`;
      if (verify.status !== 200) break;
    }
    if (!failure.startsWith(`verify ${name}: 502`)) break;
  }
  throw new Error(failure);
}

/** Runs a request against the app with some bindings replaced; its background work is awaited. */
export async function withEnv(client: Client, path: string, init: RequestInit, overrides: Record<string, unknown>): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  headers.set('cookie', [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
  const res = await worker.fetch(new Request(`${BASE}${path}`, { ...init, headers }), { ...env, ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx).catch(() => {});
  return res;
}

/** The configuration form's fields for the legacy source database of the run, under a name of the caller's. */
export function legacyConfigurationForm(name: string) {
  const url = new URL(env.TEST_LEGACY_DATABASE_URL);
  return {
    Name: name,
    Host: url.hostname,
    Port: url.port || '5432',
    Database: url.pathname.slice(1) || 'postgres',
    Username: decodeURIComponent(url.username),
    Password: decodeURIComponent(url.password),
  };
}
