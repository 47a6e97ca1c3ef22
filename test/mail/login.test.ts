import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { describe, expect, it } from 'vitest';
import { sessions } from '#d1/mail/schema.ts';
import { createMailApp } from '../../workers/mail/src/app';
import { BASE, account, cookieFrom, freshCode, loginForm, send, signIn } from './helpers';

/** Sign-in through the real authentication service: e-mail and password, then the TOTP code. */

const tokenIn = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('happy path', () => {
  it('/ and /login show the form with its anti-forgery token', async () => {
    for (const path of ['/', '/login']) {
      const res = await send(path);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('name="email"');
      expect(tokenIn(html)).not.toBe('');
      expect(res.headers.get('set-cookie')).toMatch(/mail_login_form=.*HttpOnly.*Secure.*SameSite=Strict/i);
    }
  });

  it('password then TOTP code starts a session; the session opens the pages; logout ends it at once', async () => {
    const session = await signIn('login');
    expect((await send('/outlook', { cookie: session })).status).toBe(200);
    const rows = await drizzle(env.DB).select().from(sessions).all();
    expect(rows.some((r) => r.email === account('login').email && r.refreshTokenSealed.startsWith('v1.'))).toBe(true);
    // The logout form posts the session's anti-forgery token.
    const page = await (await send('/outlook', { cookie: session })).text();
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)![1]!;
    expect((await send('/logout', { method: 'POST', cookie: session, form: {} })).status).toBe(403);
    const out = await send('/logout', { method: 'POST', cookie: session, form: { csrf_token: csrf } });
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.get('set-cookie')).toMatch(/mail_session=;.*Max-Age=0/i);
    // The same cookie, replayed, no longer opens anything.
    expect((await send('/outlook', { cookie: session })).status).toBe(302);
    expect((await send('/api/folders', { cookie: session })).status).toBe(401);
  });

  it('GET /logout (the spec’s) ends the session too, but not from another site', async () => {
    const session = await signIn('login');
    const cross = await send('/logout', { cookie: session, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(cross.headers.get('location')).toBe('/outlook');
    expect((await send('/outlook', { cookie: session })).status).toBe(200);
    expect((await send('/logout', { cookie: session })).headers.get('location')).toBe('/login');
    expect((await send('/outlook', { cookie: session })).status).toBe(302);
  });

  it('after sign-in the browser goes back where it was sent from, never to another site', async () => {
    const { email, password } = account('redirect');
    const pending: Record<string, string> = {};
    for (const next of ['/inbox', '//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      const form = await loginForm();
      const step1 = await send('/login', { method: 'POST', cookie: form.cookie, form: { csrf_token: form.token, email, password, next } });
      const html = await step1.text();
      pending[next] = /name="next" value="([^"]*)"/.exec(html)![1]!;
      if (next === '/inbox') {
        const step2 = await send('/login', {
          method: 'POST',
          cookie: `${cookieFrom(step1, 'mail_login_form')}; ${cookieFrom(step1, 'mail_login_pending')}`,
          form: { csrf_token: tokenIn(html), code: await freshCode('redirect'), next: 'https://evil.example' },
        });
        // The posted `next` is checked again at the code step.
        expect(step2.headers.get('location')).toBe('/outlook');
      }
    }
    expect(pending).toEqual({
      '/inbox': '/inbox',
      '//evil.example/x': '/outlook',
      'https://evil.example': '/outlook',
      '/\\evil.example': '/outlook',
    });
  });
});

describe('error cases', () => {
  it('a wrong password shows the form again with the service’s message and no session', async () => {
    const form = await loginForm();
    const res = await send('/login', {
      method: 'POST',
      cookie: form.cookie,
      form: { csrf_token: form.token, email: account('login').email, password: 'wrong-password' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('role="alert"');
    expect(cookieFrom(res, 'mail_session')).toBeUndefined();
  });

  it('a wrong code is refused; the code step without a pending login starts again', async () => {
    const { email, password } = account('login');
    const form = await loginForm();
    const step1 = await send('/login', { method: 'POST', cookie: form.cookie, form: { csrf_token: form.token, email, password } });
    const token = tokenIn(await step1.text());
    const formCookie = cookieFrom(step1, 'mail_login_form');
    const wrong = await send('/login', {
      method: 'POST',
      cookie: `${formCookie}; ${cookieFrom(step1, 'mail_login_pending')}`,
      form: { csrf_token: token, code: '000000' },
    });
    expect(wrong.status).toBe(400);
    expect(cookieFrom(wrong, 'mail_session')).toBeUndefined();
    const noPending = await send('/login', {
      method: 'POST',
      cookie: `${cookieFrom(wrong, 'mail_login_form')}`,
      form: { csrf_token: tokenIn(await wrong.text()), code: '123456' },
    });
    expect(noPending.status).toBe(400);
    expect(await noPending.text()).toContain('No sign-in in progress');
  });

  it.each([
    [{ email: '', password: 'x' }, 'E-mail is required'],
    [{ email: 'a\u0000b@example.com', password: 'x' }, 'NUL'],
    [{ email: 'a@example.com', password: 'x'.repeat(1025) }, 'too long'],
  ])('bad input %j is 400 with a message, without asking the auth service', async (fields, message) => {
    const form = await loginForm();
    const res = await send('/login', { method: 'POST', cookie: form.cookie, form: { csrf_token: form.token, ...fields } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(message);
  });

  it('a login form over 16 KiB is 413', async () => {
    const form = await loginForm();
    const res = await send('/login', {
      method: 'POST',
      cookie: form.cookie,
      form: { csrf_token: form.token, email: 'a@example.com', password: 'x'.repeat(20_000) },
    });
    expect(res.status).toBe(413);
  });
});

describe('security', () => {
  it('a login post without the form token, with a forged one, or from another origin is 403', async () => {
    const { email, password } = account('login');
    const form = await loginForm();
    expect((await send('/login', { method: 'POST', form: { email, password } })).status).toBe(403);
    expect((await send('/login', { method: 'POST', cookie: form.cookie, form: { csrf_token: 'forged', email, password } })).status).toBe(
      403,
    );
    const foreign = await send('/login', {
      method: 'POST',
      cookie: form.cookie,
      form: { csrf_token: form.token, email, password },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(cookieFrom(foreign, 'mail_login_pending')).toBeUndefined();
  });

  it('the authentication service’s throttling reaches the browser as 429 with Retry-After', async () => {
    const app = createMailApp();
    const form = await loginForm();
    const throttling = {
      fetch: async () => Response.json({ success: false, error: 'Too many attempts' }, { status: 429, headers: { 'retry-after': '42' } }),
    };
    const res = await app.request(
      `${BASE}/login`,
      {
        method: 'POST',
        headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: form.token, email: 'a@example.com', password: 'x' }).toString(),
      },
      { ...env, AUTH: throttling },
      { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
    );
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('42');
  });

  it('an unreachable authentication service is 502, not a 500 or a session', async () => {
    const app = createMailApp();
    const form = await loginForm();
    const down = {
      fetch: async () => {
        throw new Error('connection refused');
      },
    };
    const res = await app.request(
      `${BASE}/login`,
      {
        method: 'POST',
        headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: form.token, email: 'a@example.com', password: 'x' }).toString(),
      },
      { ...env, AUTH: down },
      { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
    );
    expect(res.status).toBe(502);
    expect(cookieFrom(res, 'mail_session')).toBeUndefined();
  });
});
