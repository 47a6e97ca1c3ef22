import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '#shared/crypto.ts';
import { passwordTag } from '../../workers/form/src/session';
import { PASSWORD, USERNAME, cookiesOf, setCookies, fetchForm, loginForm, page, postLogin, sessionCookie } from './helpers';

const PROTECTED = [
  '/form/logout/',
  '/form/runner/',
  '/form/runner/1/',
  '/form/runner/1/?tab=detailed',
  '/form/jockey/1/',
  '/form/trainer/1/',
  '/form/guide/',
  '/form/guide/?date=2026-01-01&race=1',
  '/form/search/?q=abc',
  '/form/api/dates/',
  '/form/api/meetings/?date=2026-01-01',
  '/form/api/races/?date=2026-01-01',
  '/form/api/runners/?race_id=1',
  '/form/no-such-page/',
];

describe('login page', () => {
  it('GET /form/ is public: a form with username, password and a token', async () => {
    const res = await fetchForm('/form/');
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password"');
    expect(html).toMatch(/name="csrf_token" value="[\w-]{20,}"/);
    const tokenCookie = setCookies(res).find((c) => c.startsWith('form_login='));
    expect(tokenCookie).toMatch(/HttpOnly/);
    expect(tokenCookie).toMatch(/Secure/);
    expect(tokenCookie).toMatch(/SameSite=Strict/);
  });

  it('right credentials: 302 to /form/runner/ with an opaque, HttpOnly, Secure, Lax session cookie', async () => {
    const res = await postLogin({ username: USERNAME, password: PASSWORD });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/runner/');
    const cookie = setCookies(res).find((c) => c.startsWith('form_session='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/form\//);
    expect(cookie).toMatch(/Max-Age=28800/);
    // Nothing readable in it: the user name is not there in clear.
    expect(cookie).not.toContain(USERNAME);
  });

  it.each([
    ['wrong password', { username: USERNAME, password: 'nope' }],
    ['wrong username', { username: 'someone', password: PASSWORD }],
    ['empty fields', { username: '', password: '' }],
    ['missing fields', {}],
    ['password with the right prefix', { username: USERNAME, password: `${PASSWORD}x` }],
  ])('%s: 200, the page again with an invalid-credentials message and no session', async (_, fields) => {
    const res = await postLogin(fields as Record<string, string>);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('Invalid username or password.');
    expect(html).toContain('name="csrf_token"');
    expect(setCookies(res).some((c) => c.startsWith('form_session='))).toBe(false);
  });

  it('a post without the form token is refused (403) and logs nobody in', async () => {
    const res = await fetchForm('/form/', { method: 'POST', body: new URLSearchParams({ username: USERNAME, password: PASSWORD }) });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('expired or came from another site');
    expect(setCookies(res).some((c) => c.startsWith('form_session='))).toBe(false);
  });

  it('a token from another login form (other cookie) is refused', async () => {
    const a = await loginForm();
    const b = await loginForm();
    const res = await postLogin({ username: USERNAME, password: PASSWORD }, { cookie: a.cookie, token: b.token });
    expect(res.status).toBe(403);
  });

  it('a cross-origin post is refused even with a valid token', async () => {
    const form = await loginForm();
    const res = await fetchForm('/form/', {
      method: 'POST',
      cookie: form.cookie,
      headers: { origin: 'https://evil.example' },
      body: new URLSearchParams({ csrf_token: form.token, username: USERNAME, password: PASSWORD }),
    });
    expect(res.status).toBe(403);
  });

  it('a same-origin post with Origin is accepted', async () => {
    const form = await loginForm();
    const res = await fetchForm('/form/', {
      method: 'POST',
      cookie: form.cookie,
      headers: { origin: 'https://form.racing.example' },
      body: new URLSearchParams({ csrf_token: form.token, username: USERNAME, password: PASSWORD }),
    });
    expect(res.status).toBe(302);
  });

  it('a JSON body or an oversized body is a clear 4xx, never a 500', async () => {
    const form = await loginForm();
    const asJson = await fetchForm('/form/', {
      method: 'POST',
      cookie: form.cookie,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
    });
    expect(asJson.status).toBe(403);
    const huge = await fetchForm('/form/', {
      method: 'POST',
      cookie: form.cookie,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${form.token}&username=${'a'.repeat(100_000)}`,
    });
    expect(huge.status).toBe(413);
    const malformed = await fetchForm('/form/', {
      method: 'POST',
      cookie: form.cookie,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: 'not multipart at all',
    });
    expect(malformed.status).toBe(403);
  });

  it('a signed-in visitor to the login page goes to the runner landing page', async () => {
    const { res } = await page('/form/', await sessionCookie());
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/runner/');
  });
});

describe('session', () => {
  it.each(PROTECTED)('%s without a session: 302 to /form/', async (path) => {
    const res = await fetchForm(path);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/');
  });

  it('the search lookup is public', async () => {
    const res = await fetchForm('/form/api/search/?q=ab');
    expect(res.status).toBe(200);
  });

  it('a cookie naming no kept session, a forged or damaged one, an expired one or one of another password is no session', async () => {
    const valid = (await sessionCookie()).replace('form_session=', '');
    expect(valid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Rows kept under ids of the test's own: one expired, one opened under another password.
    const keep = async (id: string, profile: Record<string, unknown>, expiresAt: number) => {
      const idHash = await sha256Hex(id);
      await env.SESSIONS.get(env.SESSIONS.idFromName(idHash)).keep({ idHash, profile, checkedAt: Date.now(), expiresAt }, expiresAt);
    };
    const expired = 'e'.repeat(43);
    await keep(expired, { username: USERNAME, passwordTag: await passwordTag(env.SESSION_SECRET, PASSWORD) }, Date.now() - 1_000);
    const otherPassword = 'p'.repeat(43);
    await keep(
      otherPassword,
      { username: USERNAME, passwordTag: await passwordTag(env.SESSION_SECRET, 'an-earlier-password') },
      Date.now() + 3_600_000,
    );
    const notAProfile = 'n'.repeat(43);
    await keep(notAProfile, { user: USERNAME }, Date.now() + 3_600_000);
    const neverKept = `${valid.slice(0, 42)}${valid.endsWith('A') ? 'B' : 'A'}`;
    for (const value of [neverKept, expired, otherPassword, notAProfile, `${valid}.extra`, 'garbage', 'a'.repeat(5000)]) {
      const res = await fetchForm('/form/guide/', { cookie: `form_session=${value}` });
      expect(res.status, value.slice(0, 30)).toBe(302);
    }
    const ok = await fetchForm('/form/api/dates/', { cookie: `form_session=${valid}` });
    expect(ok.status).toBe(200);
  });

  it('logout clears the cookie and sends to the login page; the old page then redirects', async () => {
    const cookie = await sessionCookie();
    const res = await fetchForm('/form/logout/', { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/');
    const cleared = setCookies(res).find((c) => c.startsWith('form_session='));
    expect(cleared).toMatch(/Max-Age=0/);
    const after = await fetchForm('/form/guide/', { cookie: cookiesOf(res) });
    expect(after.status).toBe(302);
  });

  it('a cross-site link to logout does not log out', async () => {
    const cookie = await sessionCookie();
    const res = await fetchForm('/form/logout/', { cookie, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(302);
    expect(setCookies(res).some((c) => c.startsWith('form_session='))).toBe(false);
  });
});
