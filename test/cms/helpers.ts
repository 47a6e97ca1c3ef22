import { env, exports } from 'cloudflare:workers';
import app from '../../workers/cms/src/app';
import { freshCodes } from '../support/totp';
import type { TestAccountName } from './accounts';

export const BASE = 'https://cms.test';

type Account = { email: string; password: string; totpSecret: string };
const accounts = JSON.parse(env.TEST_ACCOUNTS) as Record<TestAccountName, Account>;
const backupCodes = JSON.parse(env.TEST_BACKUP_CODES) as Record<TestAccountName, string[]>;
export const account = (name: TestAccountName): Account => accounts[name];

/** A request to the CMS Worker as a browser on its own origin would send it. */
export function api(path: string, init: RequestInit & { cookie?: string; json?: unknown } = {}): Promise<Response> {
  const { cookie, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (cookie) headers.set('cookie', cookie);
  if (json !== undefined) headers.set('content-type', 'application/json');
  return exports.default.fetch(
    new Request(`${BASE}${path}`, { ...rest, headers, body: json === undefined ? rest.body : JSON.stringify(json) }),
  );
}

/** The racing database as production would find it down: no relay, nothing listening. */
export const UNREACHABLE_RACING = {
  PG_WS_PROXY: '',
  DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing',
  PG_CONNECT_TIMEOUT_MS: '1000',
};

/** A request to the CMS app with some bindings replaced (a service down, a failing database); its background work is awaited. */
export async function withEnv(path: string, init: RequestInit, overrides: Record<string, unknown>): Promise<Response> {
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => {}, props: {} };
  const res = await app.request(path, init, { ...env, ...overrides }, ctx);
  await Promise.allSettled(pending);
  return res;
}

/** A TOTP code of the account that this test file has not used yet, else a backup code. */
export const freshCode = freshCodes((name: TestAccountName) => account(name).totpSecret, backupCodes);

/** `name=value` of a Set-Cookie header, for sending back. */
export function cookieFrom(res: Response, name: string): string | undefined {
  const line = res.headers.getAll('set-cookie').find((c: string) => c.startsWith(`${name}=`));
  return line?.split(';')[0];
}

/**
 * Signs the account in through both steps (the real authentication service) and answers its
 * session cookie. A code refused as already used (another test file signed the same account in
 * this step) is followed by the next fresh one, within the pending login's five attempts.
 */
export async function signIn(name: TestAccountName): Promise<string> {
  const { email, password } = account(name);
  const login = await api('/api/v1/auth/login', { method: 'POST', json: { email, password } });
  if (login.status !== 200) throw new Error(`login ${name}: ${login.status} ${await login.text()}`);
  const { loginToken } = await login.json<{ loginToken: string }>();
  let last = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const verify = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { loginToken, code: freshCode(name) } });
    if (verify.status === 200) {
      const cookie = cookieFrom(verify, 'app_session');
      if (!cookie) throw new Error('no app_session cookie');
      return cookie;
    }
    last = `${verify.status} ${await verify.text()}`;
    if (verify.status !== 400) break;
  }
  throw new Error(`totp-verify ${name}: ${last}`);
}
