import { exports } from 'cloudflare:workers';
import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { credentials } from '#d1/auth/schema.ts';
import { hashPassword } from '../../workers/auth/src/passwords';
import { ADDRESS_FAILURE_LIMIT } from '#shared/throttle.ts';
import { adminCookie, CLIENT_SECRET, createAccount, db, ORIGIN, page, pendingToken, post, signIn, codeFor, uniqueIp } from './helpers';
import { chunkedBody } from '../support/chunked-body';

describe('wrong client secrets are throttled per address', () => {
  it('429 with Retry-After after repeated wrong secrets; the right secret from another address still works', async () => {
    const attacker = '192.0.2.66';
    const statuses: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT + 5; i++) {
      const res = await post('/api/token/revoke/', { refresh_token: 'rt.x.y' }, { secret: `guess-${i}`, ip: attacker });
      statuses.push(res.status);
      const body = await res.json<{ success: boolean; error: string }>();
      expect(body.success).toBe(false);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 429)).toBe(true);
    // Even the right secret waits out the lock from that address (X-Auth-Client-IP does not help).
    expect(
      (await post('/api/token/revoke/', { refresh_token: 'rt.x.y' }, { ip: attacker, headers: { 'x-auth-client-ip': '10.0.0.1' } })).status,
    ).toBe(429);
    const elsewhere = await post('/api/token/revoke/', { refresh_token: 'rt.x.y' }, { ip: uniqueIp(), secret: CLIENT_SECRET });
    expect(elsewhere.status).toBe(200);
  });
});

describe('NUL in text input', () => {
  it.each([
    ['/api/login/', { email: 'a\u0000@example.com', password: 'x', site: '' }, 'json.email'],
    ['/api/login/', { email: 'a@example.com', password: 'x', site: 'a\u0000b' }, 'json.site'],
    ['/api/verify-2fa/', { pending_token: 'p\u0000', code: '123456' }, 'json.pending_token'],
    ['/api/token/refresh/', { refresh_token: 'rt.\u0000' }, 'json.refresh_token'],
  ])('%s refuses NUL with 400 naming the field', async (path, body, field) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    const json = await res.json<{ success: false; issues: { field: string; message: string }[] }>();
    expect(json.success).toBe(false);
    expect(json.issues).toContainEqual({ field, message: 'must not contain NUL characters' });
  });
});

describe('bodies', () => {
  it('a chunked 200 KB login body is 413 with the failure body, and the next request is answered', async () => {
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/api/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-client-secret': CLIENT_SECRET, 'cf-connecting-ip': uniqueIp() },
        body: chunkedBody(200 * 1024),
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ success: false });
    expect((await exports.default.fetch(`${ORIGIN}/api/whoami/`)).status).toBe(401);
  });

  it('a chunked dashboard form over 16 KB is 413', async () => {
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/admin/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: chunkedBody(64 * 1024),
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });
});

describe('dashboard sessions end server-side', () => {
  it('a cookie kept from before logout no longer opens the dashboard', async () => {
    const { cookie } = await adminCookie();
    expect((await page('/admin/', { cookie })).status).toBe(200);
    const out = await page('/admin/logout/', { cookie, form: {} });
    expect(out.status).toBe(303);
    const replay = await page('/admin/', { cookie });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/admin/login/');
  });

  it('a new password for the account ends its sessions; other admins stay signed in', async () => {
    const { cookie, admin } = await adminCookie();
    const other = await adminCookie();
    await db()
      .update(credentials)
      .set({ passwordHash: hashPassword('a brand new password 2'), updatedAt: Date.now() })
      .where(and(eq(credentials.userId, admin.id), isNull(credentials.siteId)));
    const after = await page('/admin/', { cookie });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/admin/login/');
    expect((await page('/admin/', { cookie: other.cookie })).status).toBe(200);
  });
});

describe('headers', () => {
  it('token responses (verify and refresh) are no-store', async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    const verify = await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret) });
    expect(verify.status).toBe(200);
    expect(verify.headers.get('cache-control')).toBe('no-store');
    const { refresh_token } = await verify.json<{ refresh_token: string }>();
    const refresh = await post('/api/token/refresh/', { refresh_token });
    expect(refresh.status).toBe(200);
    expect(refresh.headers.get('cache-control')).toBe('no-store');
    expect((await signIn(await createAccount({}))).access_token).toBeTruthy();
  });

  it('the enrolment page (TOTP secret and backup codes) is no-store, framed by no one, nosniff', async () => {
    const { cookie } = await adminCookie();
    const res = await page('/admin/accounts/', {
      cookie,
      form: {
        email: `enrol-${crypto.randomUUID().slice(0, 8)}@example.com`,
        first_name: 'N',
        last_name: 'E',
        role: 'user',
        password: 'a long enough password',
      },
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toContain('otpauth://');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each(['/admin/login/', '/api/docs/'])('%s has a CSP without inline script, frame protection, nosniff and HSTS', async (path) => {
    const res = await exports.default.fetch(`${ORIGIN}${path}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('no HSTS on http://localhost', async () => {
    const res = await exports.default.fetch('http://localhost:8701/admin/login/');
    expect(res.status).toBe(200);
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});
