import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  type AntiForgeryOptions,
  antiForgery,
  antiForgeryToken,
  crossSite,
  formNonce,
  issueFormNonce,
  type NonceCookie,
  tokenMatches,
} from '#shared/anti-forgery.ts';

// The one anti-forgery mechanism (workers/shared/anti-forgery.ts): a same-origin check, then a
// token bound to the browser (its session id's hash here, sent in a cookie for the test app).

const OWN = 'https://svc.test';
const SECRET = 'a-test-secret-of-enough-length-0123456789';
const PURPOSE = 'test-csrf';

type TestEnv = { Variables: { sessionId?: string } };

function testApp(extra: Partial<AntiForgeryOptions<TestEnv>> = {}) {
  const app = new Hono<TestEnv>();
  app.use('*', async (c, next) => {
    const session = /(?:^|; )sid=([\w-]+)/.exec(c.req.header('cookie') ?? '')?.[1];
    if (session) c.set('sessionId', session);
    await next();
  });
  app.use(
    '*',
    antiForgery<TestEnv>({
      token: {
        purpose: PURPOSE,
        secret: () => SECRET,
        binding: (c) => c.var.sessionId,
        field: 'csrf_token',
        header: 'x-csrf-token',
      },
      refuse: (c, refusal) =>
        c.json({ refused: refusal.kind, origin: refusal.kind === 'cross-site' ? (refusal.origin ?? null) : null }, 403),
      ...extra,
    }),
  );
  app.get('/thing', (c) => c.text('read'));
  app.post('/thing', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}));
    return c.json({ changed: true, fields: Object.keys(form) });
  });
  return app;
}

const post = (app: Hono<TestEnv>, headers: Record<string, string>, body?: string) =>
  app.request(`${OWN}/thing`, { method: 'POST', headers, body });

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

describe('the same-origin check', () => {
  const app = testApp();

  it('refuses a foreign Origin, naming it', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const res = await post(app, { origin: 'https://evil.example', cookie: 'sid=s1', 'x-csrf-token': token });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ refused: 'cross-site', origin: 'https://evil.example' });
  });

  it('refuses the opaque Origin `null` (sandboxed frames, data: pages)', async () => {
    const res = await post(app, { origin: 'null', cookie: 'sid=s1', 'x-csrf-token': await antiForgeryToken(SECRET, PURPOSE, 's1') });
    expect(res.status).toBe(403);
  });

  it('refuses Sec-Fetch-Site: cross-site, even beside its own Origin', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const cases: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: OWN, 'sec-fetch-site': 'cross-site' }];
    for (const headers of cases) {
      const res = await post(app, { ...headers, cookie: 'sid=s1', 'x-csrf-token': token });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ refused: 'cross-site' });
    }
  });

  it('falls back to the Referer when neither header is sent', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const foreign = await post(app, { referer: 'https://evil.example/page', cookie: 'sid=s1', 'x-csrf-token': token });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ refused: 'cross-site', origin: 'https://evil.example' });
    const own = await post(app, { referer: `${OWN}/form?x=1`, cookie: 'sid=s1', 'x-csrf-token': token });
    expect(own.status).toBe(200);
    const garbage = await post(app, { referer: 'not a url', cookie: 'sid=s1', 'x-csrf-token': token });
    expect(garbage.status).toBe(403);
  });

  it('lets a configured origin in, and with requireSource refuses a request naming none', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const strict = testApp({ allowedOrigins: () => ['https://editor.test'], requireSource: true });
    expect((await post(strict, { origin: 'https://editor.test', cookie: 'sid=s1', 'x-csrf-token': token })).status).toBe(200);
    expect((await post(strict, { origin: 'https://other.test', cookie: 'sid=s1', 'x-csrf-token': token })).status).toBe(403);
    expect((await post(strict, { cookie: 'sid=s1', 'x-csrf-token': token })).status).toBe(403);
    expect((await post(strict, { 'sec-fetch-site': 'same-origin', cookie: 'sid=s1', 'x-csrf-token': token })).status).toBe(200);
  });

  it('reads the request only: crossSite answers undefined for a same-origin request', async () => {
    const probe = new Hono();
    probe.post('/', (c) => c.json({ refusal: crossSite(c) ?? null }));
    const res = await probe.request(`${OWN}/`, { method: 'POST', headers: { origin: OWN, 'sec-fetch-site': 'same-origin' } });
    expect(await res.json()).toEqual({ refusal: null });
  });
});

describe('the token bound to the session', () => {
  const app = testApp();

  it('passes safe methods without a token', async () => {
    const res = await app.request(`${OWN}/thing`, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
  });

  it('refuses a request without a token', async () => {
    const res = await post(app, { origin: OWN, cookie: 'sid=s1' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ refused: 'token' });
    const emptyField = await post(app, { origin: OWN, cookie: 'sid=s1', 'content-type': FORM }, form({ csrf_token: '' }));
    expect(emptyField.status).toBe(403);
  });

  it('refuses the token of another session', async () => {
    const other = await antiForgeryToken(SECRET, PURPOSE, 's2');
    const res = await post(app, { origin: OWN, cookie: 'sid=s1', 'x-csrf-token': other });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ refused: 'token' });
  });

  it('refuses a tampered token, one of another purpose or secret, and an over-long one', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const candidates = [
      flipped,
      `${token}x`,
      token.slice(1),
      await antiForgeryToken(SECRET, 'other-purpose', 's1'),
      await antiForgeryToken(`${SECRET}!`, PURPOSE, 's1'),
      token.repeat(3),
    ];
    for (const candidate of candidates) {
      const res = await post(app, { origin: OWN, cookie: 'sid=s1', 'x-csrf-token': candidate });
      expect(res.status, candidate).toBe(403);
    }
  });

  it('refuses any token when there is no session to bind it to', async () => {
    const res = await post(app, { origin: OWN, 'x-csrf-token': await antiForgeryToken(SECRET, PURPOSE, '') });
    expect(res.status).toBe(403);
  });

  it('accepts the session token from the header or the form field, and the handler still reads the form', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const byHeader = await post(app, { origin: OWN, cookie: 'sid=s1', 'x-csrf-token': token, 'content-type': 'application/json' }, '{}');
    expect(byHeader.status).toBe(200);
    const byField = await post(app, { origin: OWN, cookie: 'sid=s1', 'content-type': FORM }, form({ csrf_token: token, name: 'x' }));
    expect(byField.status).toBe(200);
    expect(await byField.json()).toEqual({ changed: true, fields: ['csrf_token', 'name'] });
    const multipart = new FormData();
    multipart.set('csrf_token', token);
    const byMultipart = await app.request(`${OWN}/thing`, { method: 'POST', headers: { origin: OWN, cookie: 'sid=s1' }, body: multipart });
    expect(byMultipart.status).toBe(200);
  });

  it('does not take a token from a JSON body: only the header counts there', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 's1');
    const res = await post(
      app,
      { origin: OWN, cookie: 'sid=s1', 'content-type': 'application/json' },
      JSON.stringify({ csrf_token: token }),
    );
    expect(res.status).toBe(403);
  });

  it('tokenMatches compares in full and refuses non-strings', async () => {
    const token = await antiForgeryToken(SECRET, PURPOSE, 'bind');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tokenMatches(SECRET, PURPOSE, 'bind', token)).toBe(true);
    expect(await tokenMatches(SECRET, PURPOSE, 'bind', [token])).toBe(false);
    expect(await tokenMatches(SECRET, PURPOSE, undefined, token)).toBe(false);
    expect(await tokenMatches(SECRET, PURPOSE, 'bind2', token)).toBe(false);
  });
});

describe('form nonces (forms shown before a session)', () => {
  const COOKIE: NonceCookie = { name: 'test_form', path: '/', sameSite: 'Strict', maxAge: 600 };
  const app = new Hono();
  app.get('/form', async (c) => c.text(await antiForgeryToken(SECRET, 'test-form', issueFormNonce(c, COOKIE))));
  app.get('/kept', (c) => c.text(issueFormNonce(c, COOKIE, true)));
  app.post('/form', async (c) => {
    const body = await c.req.parseBody();
    return c.text(String(await tokenMatches(SECRET, 'test-form', formNonce(c, COOKIE), body.csrf_token)));
  });

  it('sets an HttpOnly, Secure, strict cookie whose nonce binds the page token', async () => {
    const page = await app.request(`${OWN}/form`);
    const cookie = page.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^test_form=[A-Za-z0-9_-]{32};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const nonce = cookie.split(';')[0]!;
    const token = await page.text();
    const submit = (cookieHeader: string, csrf: string) =>
      app.request(`${OWN}/form`, {
        method: 'POST',
        headers: { cookie: cookieHeader, 'content-type': FORM },
        body: form({ csrf_token: csrf }),
      });
    expect(await (await submit(nonce, token)).text()).toBe('true');
    const otherPage = await app.request(`${OWN}/form`);
    const otherNonce = (otherPage.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(await (await submit(otherNonce, token)).text()).toBe('false');
    expect(await (await submit('test_form=short', token)).text()).toBe('false');
  });

  it('keeps a well-formed nonce when asked to, and replaces a malformed one', async () => {
    const nonce = 'A'.repeat(32);
    const kept = await app.request(`${OWN}/kept`, { headers: { cookie: `test_form=${nonce}` } });
    expect(await kept.text()).toBe(nonce);
    expect(kept.headers.get('set-cookie')).toBeNull();
    const replaced = await app.request(`${OWN}/kept`, { headers: { cookie: 'test_form=bad' } });
    expect(await replaced.text()).not.toBe('bad');
    expect(replaced.headers.get('set-cookie')).toMatch(/^test_form=/);
  });
});
