import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createFormApp } from '../../workers/form/src/app';
import { ADDRESS_FAILURE_LIMIT } from '#shared/throttle.ts';
import { BASE, PASSWORD, USERNAME, cookiesOf, fetchForm, loginForm, setCookies, sessionCookie } from './helpers';
import { chunkedBody } from '../support/chunked-body';

/** A login post from one client address. */
async function loginFrom(address: string, password: string): Promise<Response> {
  const { cookie, token } = await loginForm();
  return fetchForm('/form/', {
    method: 'POST',
    cookie,
    headers: { 'cf-connecting-ip': address },
    body: new URLSearchParams({ csrf_token: token, username: USERNAME, password }),
  });
}

describe('NUL in text input', () => {
  it('the public search answers 400 in the service’s error body, not 500', async () => {
    const res = await fetchForm('/form/api/search/?q=%00%00%00');
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toMatch(/NUL/);
  });

  it('the search page answers a 400 page', async () => {
    const cookie = await sessionCookie();
    const res = await fetchForm('/form/search/?q=ab%00c', { cookie });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/NUL/);
  });
});

describe('login throttle per client address', () => {
  it('refuses an address after repeated wrong pairs with 429 and Retry-After, and leaves other addresses alone', async () => {
    const attacker = '203.0.113.7';
    const statuses: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT + 5; i++) {
      const res = await loginFrom(attacker, `wrong-${i}`);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.text()).toMatch(/Too many failed logins/);
      } else {
        await res.arrayBuffer();
      }
    }
    expect(statuses.slice(0, ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 429)).toBe(true);
    // The right pair from the locked address is refused too: no guessing past the lock.
    const locked = await loginFrom(attacker, PASSWORD);
    expect(locked.status).toBe(429);
    expect(setCookies(locked).some((line) => line.startsWith('form_session='))).toBe(false);
    // The shared admin still signs in from anywhere else.
    const elsewhere = await loginFrom('198.51.100.20', PASSWORD);
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get('location')).toBe('/form/runner/');
  });
});

describe('logout and password change end the session server-side', () => {
  it('a cookie kept from before logout no longer opens anything', async () => {
    const cookie = await sessionCookie();
    expect((await fetchForm('/form/api/dates/', { cookie })).status).toBe(200);
    const out = await fetchForm('/form/logout/', { cookie });
    expect(out.status).toBe(302);
    // The old cookie, replayed as a copy would be.
    const replay = await fetchForm('/form/api/dates/', { cookie });
    expect(replay.status).toBe(302);
    expect(replay.headers.get('location')).toBe('/form/');
  });

  it('logging out one session leaves another open', async () => {
    const [first, second] = [await sessionCookie(), await sessionCookie()];
    await fetchForm('/form/logout/', { cookie: first });
    expect((await fetchForm('/form/api/dates/', { cookie: second })).status).toBe(200);
  });

  it('a session opened before ADMIN_PASSWORD changed is no session', async () => {
    const cookie = await sessionCookie();
    const call = async (overrides: Record<string, string>) => {
      const ctx = createExecutionContext();
      const res = await createFormApp().request(`${BASE}/form/api/dates/`, { headers: { cookie } }, { ...env, ...overrides }, ctx);
      await res.arrayBuffer();
      await waitOnExecutionContext(ctx);
      return res;
    };
    expect((await call({})).status).toBe(200);
    const changed = await call({ ADMIN_PASSWORD: 'a new password after a leak' });
    expect(changed.status).toBe(302);
    expect(changed.headers.get('location')).toBe('/form/');
  });
});

describe('bodies', () => {
  it('a chunked login body over 16 KB is 413, and the next request is answered', async () => {
    const { cookie } = await loginForm();
    const res = await fetchForm('/form/', {
      method: 'POST',
      cookie,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: chunkedBody(200 * 1024),
      // @ts-expect-error: workerd's RequestInit takes duplex for a streamed body
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    await res.arrayBuffer();
    expect((await fetchForm('/form/')).status).toBe(200);
  });
});

describe('configuration', () => {
  it('refuses the published development secret outside local development, and takes it locally', async () => {
    // workers/form/.dev.vars.example; the Worker is local only with its Postgres relay on loopback.
    const published = { SESSION_SECRET: 'dev-only-form-session-secret-change-me-0123456789', ADMIN_PASSWORD: 'admin-dev-password' };
    const call = async (overrides: Record<string, unknown>) => {
      const ctx = createExecutionContext();
      const res = await createFormApp().request(`${BASE}/form/`, {}, { ...env, ...published, ...overrides }, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const deployed = await call({ PG_WS_PROXY: '' });
    expect(deployed.status).toBe(500);
    const text = await deployed.text();
    expect(text).toMatch(/ADMIN_PASSWORD is a published development value/);
    expect(text).toMatch(/SESSION_SECRET is a published development value/);
    expect(text).not.toContain(published.SESSION_SECRET);
    expect((await call({})).status).toBe(200);
  });
});

describe('headers', () => {
  it('HSTS on https outside local development, never on http://localhost', async () => {
    const res = await fetchForm('/form/');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const ctx = createExecutionContext();
    const local = await createFormApp().request('http://localhost:8704/form/', {}, env, ctx);
    await waitOnExecutionContext(ctx);
    expect(local.status).toBe(200);
    expect(local.headers.get('strict-transport-security')).toBeNull();
    expect(local.headers.get('x-frame-options')).toBe('DENY');
  });

  it('pages keep their strict policy and cookies still work through the login', async () => {
    const res = await fetchForm('/form/');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(cookiesOf(res)).toMatch(/form_login=/);
  });
});
