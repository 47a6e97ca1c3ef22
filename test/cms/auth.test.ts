import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/cms/schema.ts';
import { sha256Hex } from '#shared/crypto.ts';
import { openRefreshToken } from '../../workers/cms/src/session';
import { AUTH_TEST_VARS } from './accounts';
import { account, api, cookieFrom, freshCode, signIn, withEnv } from './helpers';

const db = drizzle(env.DB, { schema });
const SECRET = 'cms-test-session-secret-0123456789abcdef';

async function sessionRow(cookie: string) {
  const idHash = await sha256Hex(cookie.split('=')[1]!);
  return db.select().from(schema.sessions).where(eq(schema.sessions.idHash, idHash)).get();
}

/** Makes the session due for its recheck with the authentication service. */
async function ageSession(cookie: string) {
  const idHash = await sha256Hex(cookie.split('=')[1]!);
  await db
    .update(schema.sessions)
    .set({ checkedAt: Date.now() - 3_600_000 })
    .where(eq(schema.sessions.idHash, idHash))
    .run();
}

/** Calls the authentication service directly, as another consumer would. */
function authCall(path: string, body: unknown) {
  return env.AUTH.fetch(`https://auth.internal${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-client-secret': AUTH_TEST_VARS.AUTH_SSO_SHARED_SECRET },
    body: JSON.stringify(body),
  });
}

describe('POST /api/v1/auth/login', () => {
  const { email, password } = account('auth');

  it('starts a pending login and says a TOTP code is next', async () => {
    const res = await api('/api/v1/auth/login', { method: 'POST', json: { email, password } });
    expect(res.status).toBe(200);
    const body = await res.json<{ totpRequired: boolean; loginToken: string; expiresIn: number }>();
    expect(body).toMatchObject({ totpRequired: true, expiresIn: 300 });
    expect(body.loginToken.length).toBeGreaterThan(20);
    const cookie = res.headers.getAll('set-cookie').find((c: string) => c.startsWith('app_login='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth/);
    expect(cookieFrom(res, 'app_session')).toBeUndefined();
  });

  it('answers 400 with the authentication service’s message for a wrong password, and sets no cookie', async () => {
    const res = await api('/api/v1/auth/login', { method: 'POST', json: { email, password: 'wrong-password' } });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.error).toBe('login_failed');
    expect(body.message).toMatch(/\w/);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('answers the same for an unknown e-mail', async () => {
    const res = await api('/api/v1/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'login_failed' });
  });

  it.each([
    ['no body fields', {}, ['json.email', 'json.password']],
    ['an empty e-mail', { email: '  ', password }, ['json.email']],
    ['a numeric password', { email, password: 12345 }, ['json.password']],
    ['an over-long e-mail', { email: `${'a'.repeat(400)}@example.com`, password }, ['json.email']],
  ])('answers 400 naming the fields for %s', async (_label, json, fields) => {
    const res = await api('/api/v1/auth/login', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues.map((issue) => issue.field).sort()).toEqual(fields);
  });

  it('answers 400 for malformed JSON, 415 for a form post and 413 for a huge body', async () => {
    const malformed = await api('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(malformed.status).toBe(400);
    const form = await api('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${email}&password=${password}`,
    });
    expect([400, 415]).toContain(form.status);
    expect(await form.json()).toHaveProperty('error');
    const huge = await api('/api/v1/auth/login', { method: 'POST', json: { email, password: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('answers 502 when the authentication service cannot be reached', async () => {
    const down = { fetch: () => Promise.reject(new Error('connection refused')) };
    const res = await withEnv(
      '/api/v1/auth/login',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) },
      { AUTH: down },
    );
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'auth_unavailable' });
  });
});

describe('POST /api/v1/auth/totp-verify', () => {
  it('sets the session cookie with exactly the contract’s attributes and answers the session user', async () => {
    const { email, password } = account('auth');
    const login = await api('/api/v1/auth/login', { method: 'POST', json: { email, password } });
    const pending = cookieFrom(login, 'app_login')!;
    // A browser sends the pending login back as its cookie, not in the body.
    const res = await api('/api/v1/auth/totp-verify', { method: 'POST', cookie: pending, json: { code: freshCode('auth') } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: expect.any(Number), email, firstName: 'auth', lastName: 'Tester', role: 'ADMIN' });

    const cookies: string[] = res.headers.getAll('set-cookie');
    const session = cookies.find((c) => c.startsWith('app_session='))!;
    const attributes = session
      .split(';')
      .slice(1)
      .map((a) => a.trim())
      .sort();
    expect(attributes).toEqual(['HttpOnly', 'Max-Age=86400', 'Path=/api', 'SameSite=Lax', 'Secure']);
    // The pending login cookie is cleared.
    expect(cookies.find((c) => c.startsWith('app_login='))).toMatch(/Max-Age=0/);

    // The cookie is a random id; the refresh token stays on the server, sealed.
    const value = session.split(';')[0]!.split('=')[1]!;
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = (await sessionRow(`app_session=${value}`))!;
    expect(row.refreshTokenSealed).toMatch(/^v1\./);
    expect(row.refreshTokenSealed).not.toContain('rt.');
    const refreshToken = await openRefreshToken(SECRET, row.idHash, row.refreshTokenSealed);
    expect(refreshToken).toMatch(/^rt\./);
    expect(value).not.toContain(refreshToken);
    expect(row.expiresAt - row.createdAt).toBeGreaterThanOrEqual(86_399_000);
  });

  it('answers 400 for a wrong code and keeps the pending login for another try', async () => {
    const { email, password } = account('auth');
    const login = await api('/api/v1/auth/login', { method: 'POST', json: { email, password } });
    const { loginToken } = await login.json<{ loginToken: string }>();
    const wrong = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { loginToken, code: '000000' } });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'login_failed' });
    expect(cookieFrom(wrong, 'app_session')).toBeUndefined();
    const right = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { loginToken, code: freshCode('auth') } });
    expect(right.status).toBe(200);
  });

  it('revokes the new refresh family when the session cannot be stored', async () => {
    const { email, password } = account('auth');
    const login = await api('/api/v1/auth/login', { method: 'POST', json: { email, password } });
    const { loginToken } = await login.json<{ loginToken: string }>();
    const calls: { path: string; status: number; body: unknown }[] = [];
    const recordingAuth = {
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await env.AUTH.fetch(input as string, init);
        calls.push({ path: new URL(String(input)).pathname, status: res.status, body: await res.clone().json() });
        return res;
      },
    };
    const failingDb = new Proxy(env.DB, {
      get(target, key) {
        if (key !== 'prepare') return Reflect.get(target, key);
        return (query: string) => {
          if (query.startsWith('insert into "sessions"')) throw new Error('D1 is read-only right now');
          return target.prepare(query);
        };
      },
    });
    const res = await withEnv(
      '/api/v1/auth/totp-verify',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ loginToken, code: freshCode('auth') }) },
      { AUTH: recordingAuth, DB: failingDb },
    );
    expect(res.status).toBe(500);
    expect(res.headers.get('set-cookie') ?? '').not.toContain('app_session=');
    expect(calls.map((call) => call.path)).toEqual(['/api/verify-2fa/', '/api/whoami/', '/api/token/revoke/']);
    expect(calls[2]).toMatchObject({ status: 200, body: { success: true } });
  });

  it('answers 400 without a pending login', async () => {
    const res = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { code: '123456' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'no_pending_login' });
  });

  it('answers 400 for an unknown pending login', async () => {
    const res = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { loginToken: 'not-a-real-token', code: '123456' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'login_failed' });
  });

  it.each([['12345'], ['abcdef'], ['1234567'], [123456]])('answers 400 for the code %j', async (code) => {
    const res = await api('/api/v1/auth/totp-verify', { method: 'POST', json: { loginToken: 'x', code } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', issues: [{ field: 'json.code' }] });
  });
});

describe('the session', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signIn('auth');
  });

  it('GET /api/v1/auth/me answers the user from the session', async () => {
    const res = await api('/api/v1/auth/me', { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: expect.any(Number),
      email: account('auth').email,
      firstName: 'auth',
      lastName: 'Tester',
      role: 'ADMIN',
    });
  });

  it.each([
    ['no cookie', undefined],
    ['a malformed cookie', 'app_session=abc'],
    ['an unknown session id', `app_session=${'A'.repeat(43)}`],
  ])('answers 401 with %s', async (_label, badCookie) => {
    for (const path of [
      '/api/v1/auth/me',
      '/api/v1/story',
      '/api/v1/media?type=photo',
      '/api/v1/lookup/sites',
      '/api/v1/lookup/horses?query=a',
    ]) {
      const res = await api(path, { cookie: badCookie });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
  });

  it('answers 401 for an expired session and clears the cookie', async () => {
    const other = await signIn('auth');
    const idHash = await sha256Hex(other.split('=')[1]!);
    await db
      .update(schema.sessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(schema.sessions.idHash, idHash))
      .run();
    const res = await api('/api/v1/auth/me', { cookie: other });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toMatch(/app_session=;.*Max-Age=0/);
  });

  it('is rechecked with the authentication service after SESSION_RECHECK_SECONDS: the refresh token rotates', async () => {
    const before = (await sessionRow(cookie))!;
    await ageSession(cookie);
    const res = await api('/api/v1/auth/me', { cookie });
    expect(res.status).toBe(200);
    const after = (await sessionRow(cookie))!;
    expect(after.checkedAt).toBeGreaterThan(Date.now() - 60_000);
    const oldToken = await openRefreshToken(SECRET, before.idHash, before.refreshTokenSealed);
    const newToken = await openRefreshToken(SECRET, after.idHash, after.refreshTokenSealed);
    expect(newToken).not.toBe(oldToken);
  });

  it('rechecks once when concurrent requests find it due, so none of them looks like token reuse', async () => {
    await ageSession(cookie);
    const answers = await Promise.all(Array.from({ length: 5 }, () => api('/api/v1/auth/me', { cookie })));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    // Were the token refreshed twice, the family would now be revoked and this recheck would fail.
    await ageSession(cookie);
    expect((await api('/api/v1/auth/me', { cookie })).status).toBe(200);
  });

  it('ends when its refresh family is revoked at the authentication service', async () => {
    const other = await signIn('auth');
    const row = (await sessionRow(other))!;
    const revoke = await authCall('/api/token/revoke/', {
      refresh_token: await openRefreshToken(SECRET, row.idHash, row.refreshTokenSealed),
    });
    expect(await revoke.json()).toEqual({ success: true });
    // Still good until the recheck is due, then over.
    expect((await api('/api/v1/auth/me', { cookie: other })).status).toBe(200);
    await ageSession(other);
    const res = await api('/api/v1/auth/me', { cookie: other });
    expect(res.status).toBe(401);
    expect(await sessionRow(other)).toBeUndefined();
  });

  it('stays usable through a short authentication-service outage, not a long one', async () => {
    const down = { fetch: () => Promise.reject(new Error('connection refused')) };
    const idHash = await sha256Hex(cookie.split('=')[1]!);
    const request = () => withEnv('/api/v1/auth/me', { headers: { cookie } }, { AUTH: down });

    // Due for a recheck (one period old): served, and the recheck is left due for the next request.
    const oneStale = Date.now() - 301_000;
    await db.update(schema.sessions).set({ checkedAt: oneStale }).where(eq(schema.sessions.idHash, idHash)).run();
    expect((await request()).status).toBe(200);
    expect((await sessionRow(cookie))!.checkedAt).toBe(oneStale);

    // Unconfirmed for more than three periods: refused with 502 until the service answers again.
    await db
      .update(schema.sessions)
      .set({ checkedAt: Date.now() - 1_000_000 })
      .where(eq(schema.sessions.idHash, idHash))
      .run();
    const res = await request();
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'auth_unavailable' });
    expect((await api('/api/v1/auth/me', { cookie })).status).toBe(200);
  });
});

describe('POST /api/v1/auth/logout', () => {
  it('revokes the session at the authentication service, deletes it here and deletes the cookie', async () => {
    const cookie = await signIn('auth');
    const row = (await sessionRow(cookie))!;
    const refreshToken = await openRefreshToken(SECRET, row.idHash, row.refreshTokenSealed);

    const res = await api('/api/v1/auth/logout', { method: 'POST', cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, revoked: true });
    expect(res.headers.get('set-cookie')).toMatch(/app_session=;.*Max-Age=0.*Path=\/api/);
    expect(await sessionRow(cookie)).toBeUndefined();
    expect((await api('/api/v1/auth/me', { cookie })).status).toBe(401);
    // The refresh token is dead at the authentication service too.
    expect((await authCall('/api/token/refresh/', { refresh_token: refreshToken })).status).toBe(401);
  });

  it('answers 401 without a session', async () => {
    const res = await api('/api/v1/auth/logout', { method: 'POST' });
    expect(res.status).toBe(401);
  });
});

describe('roles', () => {
  it('reports the reader’s role; reads are allowed and writes refused with 403', async () => {
    const cookie = await signIn('reader');
    const me = await api('/api/v1/auth/me', { cookie });
    expect(await me.json()).toMatchObject({ role: 'USER' });
    expect((await api('/api/v1/lookup/sites', { cookie })).status).toBe(200);
    const write = await api('/api/v1/story', { method: 'POST', cookie, json: { title: 'x' } });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ error: 'forbidden' });
  });
});
