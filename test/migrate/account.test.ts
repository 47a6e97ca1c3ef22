import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { inRefreshWindow, roleFromPermissions, signSessionJwt, verifySessionJwt } from '../../workers/migrate/src/session';
import { Client, account, freshCode, signIn, withEnv } from './helpers';

const sessionRows = () =>
  env.DB.prepare('select id_hash, email, role, access_expires_at, refresh_token_sealed from login_sessions').all<{
    id_hash: string;
    email: string;
    role: string;
    access_expires_at: number;
    refresh_token_sealed: string;
  }>();

async function rowOf(email: string) {
  const { results } = await sessionRows();
  return results.filter((r) => r.email === email).at(-1);
}

describe('sign-in: happy path', () => {
  it('serves the login form with an anti-forgery token, security headers and no-store', async () => {
    const client = new Client();
    const { res, html } = await client.page('/Account/Login');
    expect(res.status).toBe(200);
    expect(html).toContain('action="/Account/Login"');
    expect(client.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.cookies.has('migrate_csrf')).toBe(true);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('shows why the user was sent back to sign in', async () => {
    const { html } = await new Client().page('/Account/Login?reason=expired');
    expect(html).toContain('Your session expired');
  });

  it('signs an admin in with both steps: the AuthToken cookie holds the app JWT, never the upstream tokens', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const { email, password } = account('accountAdmin');
    const login = await client.post('/Account/Login', { email, password });
    expect(login.status).toBe(302);
    const location = new URL(login.headers.get('location')!, 'https://x');
    expect(location.pathname).toBe('/Account/Verify');
    expect(location.searchParams.get('email')).toBe(email);
    const pendingToken = location.searchParams.get('pendingToken')!;
    const verifyPage = await client.page(`/Account/Verify?${location.searchParams}`);
    expect(verifyPage.html).toContain('name="code"');
    const verify = await client.post('/Account/Verify', { pendingToken, email, code: freshCode('accountAdmin') });
    expect(verify.status).toBe(302);
    expect(verify.headers.get('location')).toBe('/');
    const setCookie = verify.headers.getAll('set-cookie').find((l) => l.startsWith('AuthToken='))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Secure/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const jwt = client.cookies.get('AuthToken')!;
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({ email, role: 'Admin', iss: 'migrate' });
    expect(typeof claims.uexp).toBe('number');
    expect(Number(claims.uexp) * 1000 - Date.now()).toBeGreaterThan(800_000);
    expect(jwt).not.toMatch(/(at|rt)\.[A-Za-z0-9_-]{20,}/);
    expect(JSON.stringify(claims)).not.toMatch(/refresh|access_token/);
    // The stored refresh token is sealed.
    const row = await rowOf(email);
    expect(row?.refresh_token_sealed).toMatch(/^v1\./);
    const home = await client.page('/');
    expect(home.res.status).toBe(200);
    expect(home.html).toContain('(Admin)');
  });

  it('takes Operator and Viewer from the account role on the migrate site', async () => {
    const operator = await signIn('accountOperator');
    expect(decodeJwt(operator.cookies.get('AuthToken')!).role).toBe('Operator');
    const viewer = await signIn('accountViewer');
    expect(decodeJwt(viewer.cookies.get('AuthToken')!).role).toBe('Viewer');
  });

  it('signs out: the cookie is cleared and the same JWT no longer works (ended server-side)', async () => {
    const client = await signIn('accountAdmin');
    const jwt = client.cookies.get('AuthToken')!;
    const out = await client.post('/Account/Logout');
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/Account/Login');
    expect(client.cookies.has('AuthToken')).toBe(false);
    const replay = new Client();
    replay.cookies.set('AuthToken', jwt);
    const res = await replay.get('/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/Account/Login');
  });
});

describe('sign-in: error cases', () => {
  it('shows the form again on a wrong password', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const res = await client.post('/Account/Login', { email: account('accountAdmin').email, password: 'wrong-password' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('role="alert"');
    // In this form's words: the address typed, no site field it does not have.
    expect(html).toContain(`The password is not the one for ${account('accountAdmin').email}`);
    expect(html).not.toContain('site.');
    expect(html).toContain('action="/Account/Login"');
    expect(client.cookies.has('AuthToken')).toBe(false);
  });

  it('shows the code form again on a wrong code', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const { email, password } = account('accountViewer');
    const login = await client.post('/Account/Login', { email, password });
    const pendingToken = new URL(login.headers.get('location')!, 'https://x').searchParams.get('pendingToken')!;
    const res = await client.post('/Account/Verify', { pendingToken, email, code: '000000' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain(`The code 000000 is not accepted for ${email}`);
    expect(html).toContain(`value="${pendingToken}"`);
    expect(client.cookies.has('AuthToken')).toBe(false);
  });

  it('refuses an account with no role on this site', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const { email, password } = account('accountUser');
    const login = await client.post('/Account/Login', { email, password });
    const pendingToken = new URL(login.headers.get('location')!, 'https://x').searchParams.get('pendingToken')!;
    const res = await client.post('/Account/Verify', { pendingToken, email, code: freshCode('accountUser') });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('no role');
    expect(client.cookies.has('AuthToken')).toBe(false);
  });

  it('answers 400 for missing or NUL-bearing fields', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    expect((await client.post('/Account/Login', { email: '', password: '' })).status).toBe(400);
    expect((await client.post('/Account/Login', { email: 'a\u0000@example.com', password: 'x' })).status).toBe(400);
    expect((await client.post('/Account/Login', { email: 'a@example.com', password: 'x'.repeat(2000) })).status).toBe(400);
  });

  it('sends a verify page without a pending token back to the login page', async () => {
    const res = await new Client().get('/Account/Verify');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/Account/Login');
  });

  it('redirects to /Account/Login without a session, pages and JSON routes alike', async () => {
    const client = new Client();
    for (const path of [
      '/',
      '/Configuration',
      '/Session',
      '/api/migration/progress/00000000-0000-4000-8000-000000000000',
      '/api/table/info/horses',
    ]) {
      const res = await client.get(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/Account/Login');
    }
  });

  it('redirects and clears the cookie when the JWT is forged, expired or garbage', async () => {
    const client = await signIn('accountAdmin');
    const jwt = client.cookies.get('AuthToken')!;
    const [header, payload] = jwt.split('.');
    const forged = JSON.parse(atob(payload!.replace(/-/g, '+').replace(/_/g, '/')));
    forged.role = 'Admin';
    forged.email = 'someone-else@example.com';
    const forgedPayload = btoa(JSON.stringify(forged)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    for (const bad of [`${header}.${forgedPayload}.${jwt.split('.')[2]}`, 'garbage', `${header}.${payload}.`]) {
      const other = new Client();
      other.cookies.set('AuthToken', bad);
      const res = await other.get('/');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/Account/Login');
      expect(res.headers.getAll('set-cookie').some((l) => l.startsWith('AuthToken=;') || /AuthToken=.*Max-Age=0/i.test(l))).toBe(true);
    }
  });
});

describe('sign-in: security', () => {
  it('refuses a login post without the anti-forgery token or from another origin', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const { email, password } = account('accountAdmin');
    expect((await client.post('/Account/Login', { email, password }, { csrf: false })).status).toBe(403);
    expect((await client.post('/Account/Login', { email, password }, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    const stranger = new Client();
    stranger.csrf = client.csrf; // a token without its cookie
    expect((await stranger.post('/Account/Login', { email, password })).status).toBe(403);
  });

  it('refuses a logout post without the anti-forgery token (the session stays)', async () => {
    const client = await signIn('accountViewer');
    const res = await client.post('/Account/Logout', {}, { csrf: false });
    expect(res.status).toBe(403);
    expect((await client.get('/')).status).toBe(200);
  });

  it('refreshes silently within 120 s of the upstream expiry and reissues the cookie', async () => {
    const client = await signIn('accountOperator');
    const email = account('accountOperator').email;
    const before = (await rowOf(email))!;
    const oldJwt = client.cookies.get('AuthToken')!;
    // Outside the window: nothing happens.
    await env.DB.prepare('update login_sessions set access_expires_at = ? where id_hash = ?')
      .bind(Date.now() + 125_000, before.id_hash)
      .run();
    const outside = await client.get('/');
    expect(outside.status).toBe(200);
    expect(outside.headers.getAll('set-cookie').some((l) => l.startsWith('AuthToken='))).toBe(false);
    // Inside the window (115 s left): refreshed, cookie reissued with the new expiry.
    await env.DB.prepare('update login_sessions set access_expires_at = ? where id_hash = ?')
      .bind(Date.now() + 115_000, before.id_hash)
      .run();
    const inside = await client.get('/');
    expect(inside.status).toBe(200);
    expect(inside.headers.getAll('set-cookie').some((l) => l.startsWith('AuthToken=') && !/Max-Age=0/i.test(l))).toBe(true);
    const newJwt = client.cookies.get('AuthToken')!;
    expect(decodeJwt(newJwt).sid).toBe(decodeJwt(oldJwt).sid);
    expect(Number(decodeJwt(newJwt).uexp) * 1000 - Date.now()).toBeGreaterThan(800_000);
    const after = (await rowOf(email))!;
    expect(after.access_expires_at - Date.now()).toBeGreaterThan(800_000);
    expect(after.refresh_token_sealed).not.toBe(before.refresh_token_sealed);
  });

  it('takes the role from the authentication service again at each refresh, and ends the session when there is none', async () => {
    const email = account('refreshOperator').email;
    const setRole = (role: 'Viewer' | 'Operator' | null) =>
      env.AUTH_SITE_ROLE.fetch('https://auth-site-role.test/', { method: 'POST', body: JSON.stringify({ email, role }) });
    await setRole('Operator');
    const client = await signIn('refreshOperator');
    expect((await client.page('/Configuration/Create')).res.status).toBe(200);
    expect((await setRole('Viewer')).status).toBe(204);
    // Before the refresh window the stored role stands; inside it the refresh brings the new one.
    const row = (await rowOf(email))!;
    await env.DB.prepare('update login_sessions set access_expires_at = ? where id_hash = ?')
      .bind(Date.now() + 30_000, row.id_hash)
      .run();
    const home = await client.page('/');
    expect(home.res.status).toBe(200);
    expect(home.html).toContain('(Viewer)');
    expect((await rowOf(email))!.role).toBe('Viewer');
    expect(decodeJwt(client.cookies.get('AuthToken')!).role).toBe('Viewer');
    expect((await client.get('/Configuration/Create')).status).toBe(403);
    // No role on the site any more: the next refresh ends the session.
    expect((await setRole(null)).status).toBe(204);
    await env.DB.prepare('update login_sessions set access_expires_at = ? where id_hash = ?')
      .bind(Date.now() + 30_000, row.id_hash)
      .run();
    const out = await client.get('/');
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/Account/Login?reason=expired');
    expect(await rowOf(email)).toBeUndefined();
    await setRole('Operator');
  });

  it('clears the cookie and redirects to /Account/Login?reason=expired when the refresh fails', async () => {
    const client = await signIn('accountViewer');
    const row = (await rowOf(account('accountViewer').email))!;
    // The session was revoked upstream: the refresh is refused.
    const revoke = await client.post('/Account/Logout'); // ends this one; start another and break its token
    expect(revoke.status).toBe(302);
    const again = await signIn('accountViewer');
    const live = (await rowOf(account('accountViewer').email))!;
    expect(live.id_hash).not.toBe(row.id_hash);
    await env.DB.prepare('update login_sessions set access_expires_at = ?, refresh_token_sealed = ? where id_hash = ?')
      .bind(Date.now() + 30_000, row.refresh_token_sealed, live.id_hash)
      .run();
    const res = await again.get('/Configuration');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/Account/Login?reason=expired');
    expect(again.cookies.has('AuthToken')).toBe(false);
    const gone = await env.DB.prepare('select count(*) as n from login_sessions where id_hash = ?')
      .bind(live.id_hash)
      .first<{ n: number }>();
    expect(gone?.n).toBe(0);
  });

  it('reads bodies through a size limit, chunked ones included (413)', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const big = 'x'.repeat(1024 * 1024 + 10);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`email=${big}`));
        controller.close();
      },
    });
    const res = await client.fetch('/Account/Login', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(413);
  });
});

describe('session rules with a controlled clock', () => {
  it('refreshes in the last 120 s of the 900 s access token, not before', () => {
    const issued = Date.UTC(2026, 0, 1, 12, 0, 0);
    const expires = issued + 900_000;
    expect(inRefreshWindow(issued, expires, 120)).toBe(false);
    expect(inRefreshWindow(expires - 120_001, expires, 120)).toBe(false);
    expect(inRefreshWindow(expires - 120_000, expires, 120)).toBe(true);
    expect(inRefreshWindow(expires - 1, expires, 120)).toBe(true);
    expect(inRefreshWindow(expires + 60_000, expires, 120)).toBe(true);
  });

  it('accepts the JWT until its expiry and refuses it after, or with another key', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const secret = 'a-test-session-secret-0123456789abcdef';
    const claims = { sid: 'sid', sub: '7', email: 'x@example.com', name: 'X', role: 'Operator' as const, uexp: now / 1000 + 900 };
    const jwt = await signSessionJwt(secret, claims, now + 3_600_000, now);
    expect(await verifySessionJwt(secret, jwt, now + 3_599_000)).toMatchObject({ sid: 'sid', role: 'Operator', uexp: claims.uexp });
    expect(await verifySessionJwt(secret, jwt, now + 3_601_000)).toBeUndefined();
    expect(await verifySessionJwt(`${secret}-other`, jwt, now)).toBeUndefined();
  });

  it('maps the site permissions to roles and nothing else', () => {
    expect(roleFromPermissions('ADMIN')).toBe('Admin');
    expect(roleFromPermissions('OPERATOR')).toBe('Operator');
    expect(roleFromPermissions('VIEWER')).toBe('Viewer');
    expect(roleFromPermissions('USER')).toBeUndefined();
    expect(roleFromPermissions('DEVELOPER')).toBeUndefined();
  });
});

describe('sign-in: the authentication service throttling or down', () => {
  const answering = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    fetch: async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }),
  });

  it('passes a 429 on with Retry-After and the form again', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const body = new URLSearchParams({ __RequestVerificationToken: client.csrf, email: 'a@example.com', password: 'x' });
    const res = await withEnv(
      client,
      '/Account/Login',
      { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { AUTH: answering(429, { success: false, error: 'Too many attempts. Try again later.' }, { 'retry-after': '42' }) },
    );
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('42');
    expect(await res.text()).toContain('Too many attempts');
  });

  it('answers 502 with the form when the service answers off contract or not at all', async () => {
    const client = new Client();
    await client.page('/Account/Login');
    const body = () => new URLSearchParams({ __RequestVerificationToken: client.csrf, email: 'a@example.com', password: 'x' });
    const init = () => ({ method: 'POST', body: body(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const offContract = await withEnv(client, '/Account/Login', init(), { AUTH: answering(200, { nonsense: true }) });
    expect(offContract.status).toBe(502);
    const down = await withEnv(client, '/Account/Login', init(), {
      AUTH: {
        fetch: async () => {
          throw new Error('connection refused');
        },
      },
    });
    expect(down.status).toBe(502);
    expect(await down.text()).toContain('could not be reached');
  });
});

describe('configuration', () => {
  it('refuses the published development secrets outside local development, and takes them locally', async () => {
    // workers/migrate/.dev.vars.example; the Worker is local only with its Postgres relay on loopback.
    const published = {
      SESSION_SECRET: 'dev-only-migrate-session-secret-change-me-0123',
      CONFIG_ENCRYPTION_KEY: 'dev-only-migrate-config-key-change-me-012345',
    };
    const client = new Client();
    const deployed = await withEnv(client, '/Account/Login', {}, { ...published, PG_WS_PROXY: '' });
    expect(deployed.status).toBe(500);
    const page = await deployed.text();
    expect(page).toMatch(/SESSION_SECRET is a published development value/);
    expect(page).toMatch(/CONFIG_ENCRYPTION_KEY is a published development value/);
    expect(page).not.toContain(published.SESSION_SECRET);
    expect(env.PG_WS_PROXY).toMatch(/^ws:\/\/127\.0\.0\.1:/);
    expect((await withEnv(client, '/Account/Login', {}, published)).status).toBe(200);
  });
});
