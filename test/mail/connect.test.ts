import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { connectMailbox, control, cookieFrom, directSession, mailbox, newMailbox, send } from './helpers';

/** "Connect mailbox": authorization code with PKCE against the stand-in identity platform. */

async function start(email: string) {
  const session = await directSession(email);
  const res = await send('/connect', { method: 'POST', cookie: session.cookie, form: { csrf_token: session.csrf } });
  return { session, res, flow: cookieFrom(res, 'mail_oauth')!, location: new URL(res.headers.get('location') ?? 'about:blank') };
}

describe('happy path', () => {
  it('POST /connect sends the browser to the authorize endpoint with PKCE (S256), state and the login hint', async () => {
    const { res, location } = await start('owner@racing.test');
    expect(res.status).toBe(302);
    expect(location.pathname).toBe('/common/oauth2/v2.0/authorize');
    expect(location.searchParams.get('response_type')).toBe('code');
    expect(location.searchParams.get('client_id')).toBe('mail-test-client');
    expect(location.searchParams.get('redirect_uri')).toBe('https://mail.test/connect/callback');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('scope')).toContain('offline_access');
    expect(location.searchParams.get('login_hint')).toBe('owner@racing.test');
    expect(res.headers.get('set-cookie')).toMatch(/mail_oauth=v1\..*Path=\/connect\/callback.*HttpOnly.*Secure/i);
  });

  it('the callback stores the tokens (refresh token sealed) and the account, then shows the connection', async () => {
    const box = await newMailbox('connect');
    const session = await directSession(box.mail);
    const res = await connectMailbox(session, box);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/connect?connected=1');
    expect(await mailbox(session).status()).toMatchObject({ connected: true, account: { mail: box.mail } });
    await runInDurableObject(mailbox(session), async (_instance, state) => {
      const stored = await state.storage.get<Record<string, unknown>>('connection');
      expect(String(stored!.refreshSealed)).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(Object.keys(stored!)).not.toContain('refreshToken');
    });
    const page = await send('/connect?connected=1', { cookie: session.cookie });
    expect(await page.text()).toContain(box.mail);
    expect(await (await send('/api/auth-status', { cookie: session.cookie })).json()).toEqual({ authenticated: true });
    // Open without a session (the spec's route), but then there is no mailbox of the caller's.
    const anonymous = await send('/api/auth-status');
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ authenticated: false });
  });

  it('disconnect forgets the tokens', async () => {
    const box = await newMailbox('disconnect');
    const session = await directSession(box.mail);
    await connectMailbox(session, box);
    const res = await send('/disconnect', { method: 'POST', cookie: session.cookie, form: { csrf_token: session.csrf } });
    expect(res.status).toBe(302);
    expect(await (await send('/api/auth-status', { cookie: session.cookie })).json()).toEqual({ authenticated: false });
    expect((await mailbox(session).status()).connected).toBe(false);
  });
});

describe('error cases', () => {
  it('a callback whose state does not match is refused and nothing is stored', async () => {
    const box = await newMailbox('state');
    const { session, flow, location } = await start(box.mail);
    const consent = await fetch(location, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location')!);
    callback.searchParams.set('state', 'forged-state');
    const res = await send(callback.toString(), { cookie: `${session.cookie}; ${flow}` });
    expect(res.status).toBe(400);
    expect((await mailbox(session).status()).connected).toBe(false);
  });

  it('a callback without the flow cookie, or with another session’s, is refused', async () => {
    const box = await newMailbox('cookie');
    const { session, flow, location } = await start(box.mail);
    const consent = await fetch(location, { redirect: 'manual' });
    const callback = consent.headers.get('location')!;
    expect((await send(callback, { cookie: session.cookie })).status).toBe(400);
    const other = await directSession(box.mail);
    expect((await send(callback, { cookie: `${other.cookie}; ${flow}` })).status).toBe(400);
    expect((await mailbox(session).status()).connected).toBe(false);
  });

  it('a declined consent is shown as an error page, not a 500', async () => {
    const box = await newMailbox('declined');
    await control(box, 'POST', '/authorize-error', { error: 'access_denied' });
    const { session, flow, location } = await start(box.mail);
    const consent = await fetch(location, { redirect: 'manual' });
    const res = await send(consent.headers.get('location')!, { cookie: `${session.cookie}; ${flow}` });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('access_denied');
    expect((await mailbox(session).status()).connected).toBe(false);
  });

  it('a code redeemed twice is refused the second time', async () => {
    const box = await newMailbox('replay');
    const { session, flow, location } = await start(box.mail);
    const consent = await fetch(location, { redirect: 'manual' });
    const callback = consent.headers.get('location')!;
    const { pumpWebhooks } = await import('./helpers');
    const pump = pumpWebhooks(box);
    expect((await send(callback, { cookie: `${session.cookie}; ${flow}` })).status).toBe(302);
    await pump.stop();
    const again = await send(callback, { cookie: `${session.cookie}; ${flow}` });
    expect(again.status).toBe(400);
  });

  it('POST /connect without the anti-forgery token is 403', async () => {
    const session = await directSession('x@racing.test');
    expect((await send('/connect', { method: 'POST', cookie: session.cookie, form: {} })).status).toBe(403);
  });

  it('an identity platform that cannot be reached is a 502 page', async () => {
    const box = await newMailbox('down');
    const { session, flow, location } = await start(box.mail);
    const consent = await fetch(location, { redirect: 'manual' });
    const { createMailApp } = await import('../../workers/mail/src/app');
    const { env } = await import('cloudflare:workers');
    const res = await createMailApp().request(
      consent.headers.get('location')!,
      { headers: { cookie: `${session.cookie}; ${flow}` } },
      { ...env, IDENTITY_BASE_URL: 'http://127.0.0.1:1' },
      { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
    );
    expect(res.status).toBe(502);
  });
});
