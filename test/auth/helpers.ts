import { env, exports } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { expect } from 'vitest';
import * as schema from '#d1/auth/schema.ts';
import { encryptTotpSecret, hashBackupCode, stepAt, totpAt } from '../../workers/auth/src/totp';
import { antiForgeryToken } from '#shared/anti-forgery.ts';
import { fromBase32, sha256Hex } from '#shared/crypto.ts';
import { hashPassword } from '../../workers/auth/src/passwords';

export const CLIENT_SECRET = 'test-client-secret';
export const db = () => drizzle(env.DB, { schema });

let counter = 0;
/** A fresh e-mail per call, so tests never share accounts (and their lockouts or used codes). */
export const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}@example.com`;
export const uniqueIp = () => `203.0.113.${(++counter % 250) + 1}:${crypto.randomUUID().slice(0, 8)}`;

export const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

export interface TestAccount {
  id: number;
  email: string;
  password: string;
  secret: string;
  backupCodes: string[];
}

/**
 * A password's hash, made once per password and workerd (the files of a worker slot share this
 * module): an account's set-up then costs no scrypt (hundreds of milliseconds on a busy machine),
 * and the service still verifies a real hash at each sign-in. Accounts with the same password
 * share the salt; nothing here reads it.
 */
const hashes = new Map<string, string>();
function hashOf(password: string): string {
  let hash = hashes.get(password);
  if (hash === undefined) hashes.set(password, (hash = hashPassword(password)));
  return hash;
}

export async function createAccount(options: {
  email?: string;
  password?: string;
  role?: 'admin' | 'developer' | 'user';
  enrolled?: boolean;
  active?: boolean;
  passwordHash?: string;
  secret?: string;
}): Promise<TestAccount> {
  const email = options.email ?? uniqueEmail('user');
  const password = options.password ?? 'correct horse battery';
  const secret = options.secret ?? TOTP_SECRET;
  const enrolled = options.enrolled ?? true;
  const [user] = await db()
    .insert(schema.users)
    .values({
      email,
      firstName: 'Test',
      lastName: 'Account',
      role: options.role ?? 'user',
      isActive: options.active ?? true,
      totpSecret: enrolled ? await encryptTotpSecret(secret, email, env.AUTH_TOTP_ENCRYPTION_KEY) : null,
    })
    .returning();
  await db()
    .insert(schema.credentials)
    .values({ userId: user!.id, siteId: null, passwordHash: options.passwordHash ?? hashOf(password) });
  const backupCodes = ['abcd-efgh', 'jkmn-pqrs'];
  if (enrolled) {
    await db()
      .insert(schema.backupCodes)
      .values(await Promise.all(backupCodes.map(async (code) => ({ userId: user!.id, codeHash: await hashBackupCode(code) }))));
  }
  return { id: user!.id, email, password, secret, backupCodes };
}

export async function codeFor(secret: string, offsetSteps = 0): Promise<string> {
  return totpAt(fromBase32(secret)!, stepAt(Date.now()) + offsetSteps);
}

export interface CallOptions {
  secret?: string | null;
  ip?: string;
  headers?: Record<string, string>;
}

export function post(path: string, body: unknown, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'cf-connecting-ip': options.ip ?? uniqueIp(),
    ...options.headers,
  };
  const secret = options.secret === undefined ? CLIENT_SECRET : options.secret;
  if (secret !== null) headers['x-auth-client-secret'] = secret;
  return exports.default.fetch(`https://auth.test${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const whoami = (token?: string) =>
  exports.default.fetch('https://auth.test/api/whoami/', { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

export interface Tokens {
  success: true;
  access_token: string;
  refresh_token: string;
  refresh_token_expires_at: string;
  expires_in: number;
  user?: { id: number; email: string; first_name: string; last_name: string; role: string };
}

export async function pendingToken(account: TestAccount, site = '', ip?: string): Promise<string> {
  const res = await post('/api/login/', { email: account.email, password: account.password, site }, { ip });
  const body = await res.json<{ pending_token: string }>();
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`);
  return body.pending_token;
}

/** Password then code; `offsetSteps` picks which of the three accepted codes to use. */
export async function signIn(account: TestAccount, options: { site?: string; offsetSteps?: number; code?: string } = {}): Promise<Tokens> {
  const pending = await pendingToken(account, options.site);
  const code = options.code ?? (await codeFor(account.secret, options.offsetSteps ?? 0));
  const res = await post('/api/verify-2fa/', { pending_token: pending, code });
  const body = await res.json<Tokens>();
  if (res.status !== 200) throw new Error(`verify failed: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A dashboard page: GET, or a same-origin form POST when `form` is given. */
export const ORIGIN = 'https://auth.test';

export async function page(path: string, init: { form?: Record<string, string>; cookie?: string; origin?: string; ip?: string } = {}) {
  const headers: Record<string, string> = { 'cf-connecting-ip': init.ip ?? uniqueIp() };
  if (init.cookie) headers.cookie = init.cookie;
  let form = init.form;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers.origin = init.origin ?? ORIGIN;
    // The session's anti-forgery token, as the dashboard's pages put it in their forms.
    const session = /(?:^|; )__Host-auth_dashboard=([\w-]+)/.exec(init.cookie ?? '')?.[1];
    if (session && !('csrf_token' in form)) form = { ...form, csrf_token: await dashboardToken(session) };
  }
  return exports.default.fetch(`${ORIGIN}${path}`, {
    method: form ? 'POST' : 'GET',
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: 'manual',
  });
}

/** The anti-forgery token of a dashboard session (its cookie's value). */
export async function dashboardToken(sessionId: string): Promise<string> {
  return antiForgeryToken(env.AUTH_TOKEN_SECRET, 'auth-dashboard-csrf', await sha256Hex(sessionId));
}

export async function signInToDashboard(account: TestAccount, offsetSteps = 0): Promise<Response> {
  const first = await page('/admin/login/', { form: { email: account.email, password: account.password } });
  expect(first.status).toBe(200);
  const pending = /name="pending_token" value="([\w-]+)"/.exec(await first.text())?.[1];
  expect(pending).toBeDefined();
  return page('/admin/verify/', { form: { pending_token: pending!, code: await codeFor(account.secret, offsetSteps) } });
}

/** A signed-in administrator's dashboard session cookie. */
export async function adminCookie(): Promise<{ cookie: string; admin: TestAccount }> {
  const admin = await createAccount({ role: 'admin' });
  const res = await signInToDashboard(admin);
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^__Host-auth_dashboard=.+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Strict/);
  return { cookie: cookie.split(';')[0]!, admin };
}
