import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createMailApp } from '../../workers/mail/src/app';
import { BASE, directSession, mailbox } from './helpers';

/** Development only: the stand-in's mailbox connects on the first token-gated request. */
describe('dev auto-connect', () => {
  const request = async (path: string, cookie: string, overrides: Record<string, string>) => {
    const pending: Promise<unknown>[] = [];
    const res = await createMailApp().request(
      `${BASE}${path}`,
      { headers: { cookie } },
      { ...env, ...overrides },
      { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => {}, props: {} },
    );
    await Promise.allSettled(pending);
    return res;
  };

  it('with MAIL_DEV_AUTO_CONNECT and a loopback identity platform, the first mail request connects', async () => {
    const session = await directSession('demo@example.com');
    const res = await request('/api/folders', session.cookie, { MAIL_DEV_AUTO_CONNECT: 'true' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { folders: unknown[] }).folders.length).toBeGreaterThan(3);
    expect((await mailbox(session).status()).connected).toBe(true);
  });

  it('is off unless configured: 401 without a connection', async () => {
    const session = await directSession('demo@example.com');
    expect((await request('/api/folders', session.cookie, { MAIL_DEV_AUTO_CONNECT: 'false' })).status).toBe(401);
  });

  it('never against a non-loopback identity platform', async () => {
    const session = await directSession('demo@example.com');
    const res = await request('/api/folders', session.cookie, {
      MAIL_DEV_AUTO_CONNECT: 'true',
      IDENTITY_BASE_URL: 'https://login.microsoftonline.com',
    });
    expect(res.status).toBe(401);
    expect((await mailbox(session).status()).connected).toBe(false);
  });
});
