import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { describe, expect, it } from 'vitest';
import { sessions } from '#d1/mail/schema.ts';
import { sha256Hex } from '#shared/crypto.ts';
import { createMailApp } from '../../workers/mail/src/app';
import { open, seal } from '../../workers/mail/src/sealing';
import { BASE, directSession, send, signIn } from './helpers';

/**
 * The session is confirmed with the real authentication service every SESSION_RECHECK_SECONDS
 * (300) by rotating its refresh token: a revoked session is signed out at the next request after
 * the period; concurrent requests rotate once; an auth outage has a short grace, then 502.
 */

const db = () => drizzle(env.DB);
const PERIOD_MS = 300_000;

async function signedIn() {
  const cookie = await signIn('recheck');
  const idHash = await sha256Hex(cookie.split('=')[1]!);
  return { cookie, idHash };
}
/** A stored session holding a refresh token that only a stand-in auth answer (withAuth) knows. */
async function sessionWithToken(token: string) {
  const session = await directSession('recheck-fake@example.com');
  await db()
    .update(sessions)
    .set({ refreshTokenSealed: await seal(env.MAIL_TOKEN_SECRET, 'auth-refresh-token', session.idHash, token) })
    .where(eq(sessions.idHash, session.idHash))
    .run();
  return { cookie: session.cookie, idHash: session.idHash };
}
const row = (idHash: string) => db().select().from(sessions).where(eq(sessions.idHash, idHash)).get();
/** As if the authentication service last confirmed the session `ms` ago. */
const confirmedAgo = async (idHash: string, ms: number) => {
  const checkedAt = Date.now() - ms;
  await db().update(sessions).set({ checkedAt }).where(eq(sessions.idHash, idHash)).run();
  return checkedAt;
};
const refreshToken = async (idHash: string) =>
  (await open(env.MAIL_TOKEN_SECRET, 'auth-refresh-token', idHash, (await row(idHash))!.refreshTokenSealed))!;

/** The Worker with its AUTH binding wrapped, to count (or replace) what reaches the auth service. */
function withAuth(fetcher: (request: Request) => Promise<Response>) {
  const app = createMailApp();
  const auth = { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetcher(new Request(input, init)) };
  return async (path: string, cookie: string) => {
    const pending: Promise<unknown>[] = [];
    const res = await app.request(
      `${BASE}${path}`,
      { headers: { cookie } },
      { ...env, AUTH: auth },
      { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => {}, props: {} },
    );
    await Promise.allSettled(pending);
    return res;
  };
}

describe('happy path', () => {
  it('within the period nothing is asked; after it the refresh token is rotated and the session goes on', async () => {
    const { cookie, idHash } = await signedIn();
    const first = await row(idHash);
    expect(first!.checkedAt).toBeGreaterThan(Date.now() - 60_000);
    expect((await send('/outlook', { cookie })).status).toBe(200);
    expect((await row(idHash))!.refreshTokenSealed).toBe(first!.refreshTokenSealed);

    const before = await refreshToken(idHash);
    await confirmedAgo(idHash, PERIOD_MS + 1_000);
    expect((await send('/outlook', { cookie })).status).toBe(200);
    const after = await row(idHash);
    expect(after!.checkedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(await refreshToken(idHash)).not.toBe(before);
  });

  it('5 parallel requests that find the session due rotate its token once', async () => {
    const { cookie, idHash } = await signedIn();
    let refreshes = 0;
    const request = withAuth(async (req) => {
      if (new URL(req.url).pathname === '/api/token/refresh/') refreshes += 1;
      return env.AUTH.fetch(req);
    });
    await confirmedAgo(idHash, PERIOD_MS + 1_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => request('/api/auth-status', cookie)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(refreshes).toBe(1);
    // The token was never presented twice: the auth service still honours the rotated one.
    await confirmedAgo(idHash, PERIOD_MS + 1_000);
    expect((await send('/outlook', { cookie })).status).toBe(200);
    expect((await row(idHash))!.checkedAt).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('error cases', () => {
  it('a session revoked upstream is signed out at the next request after the period', async () => {
    const { cookie, idHash } = await signedIn();
    const revoked = await env.AUTH.fetch('https://auth.internal/api/token/revoke/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-client-secret': env.AUTH_CLIENT_SECRET },
      body: JSON.stringify({ refresh_token: await refreshToken(idHash) }),
    });
    expect(revoked.status).toBe(200);
    await confirmedAgo(idHash, PERIOD_MS + 1_000);
    const page = await send('/outlook', { cookie });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/login?next=%2Foutlook');
    expect(page.headers.get('set-cookie')).toMatch(/mail_session=;/);
    expect(await row(idHash)).toBeUndefined();
    const api = await send('/api/folders', { cookie });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: 'unauthenticated' });
    expect(await (await send('/api/auth-status', { cookie })).json()).toEqual({ authenticated: false });
  });

  it('a deactivated account (403 from the auth service) is signed out', async () => {
    const { cookie, idHash } = await sessionWithToken('token-of-a-deactivated-account');
    let presented: unknown;
    const request = withAuth(async (req) => {
      presented = await req.json();
      return Response.json({ success: false, error: 'This account is deactivated.' }, { status: 403 });
    });
    await confirmedAgo(idHash, PERIOD_MS + 1_000);
    const res = await request('/api/folders', cookie);
    expect(res.status).toBe(401);
    expect(presented).toEqual({ refresh_token: 'token-of-a-deactivated-account' });
    expect(await row(idHash)).toBeUndefined();
  });

  it('an auth outage keeps a recently confirmed session for a grace, then answers 502', async () => {
    const { cookie, idHash } = await sessionWithToken('token-during-an-outage');
    const down = withAuth(async () => new Response('upstream down', { status: 503 }));
    const twoPeriods = await confirmedAgo(idHash, 2 * PERIOD_MS);
    expect((await down('/outlook', cookie)).status).toBe(200);
    // Not counted as confirmed: the next request tries again.
    expect((await row(idHash))!.checkedAt).toBe(twoPeriods);
    await confirmedAgo(idHash, 4 * PERIOD_MS);
    const api = await down('/api/folders', cookie);
    expect(api.status).toBe(502);
    expect(await api.json()).toMatchObject({ error: 'auth_unavailable' });
    expect((await down('/outlook', cookie)).status).toBe(502);
    // The session itself is kept: once the service is back it is confirmed and goes on.
    expect(await row(idHash)).toBeDefined();
    const back = withAuth(async () =>
      Response.json({ success: true, access_token: 'a', refresh_token: 'rotated-after-the-outage', expires_in: 900 }),
    );
    expect((await back('/outlook', cookie)).status).toBe(200);
    expect(await refreshToken(idHash)).toBe('rotated-after-the-outage');
  });

  it('a session whose sealed token does not open is over at the recheck', async () => {
    const { cookie, idHash } = await signedIn();
    await db()
      .update(sessions)
      .set({ refreshTokenSealed: 'v1.broken.token', checkedAt: Date.now() - PERIOD_MS - 1_000 })
      .where(eq(sessions.idHash, idHash))
      .run();
    expect((await send('/api/folders', { cookie })).status).toBe(401);
    expect(await row(idHash)).toBeUndefined();
  });
});
