import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, refreshFamilies, users } from '#d1/auth/schema.ts';
import { CONCURRENT_REFRESH_GRACE_MS } from '../../workers/auth/src/refresh-families';
import { signAccessToken } from '../../workers/auth/src/tokens';
import { createAccount, db, post, signIn, whoami, type Tokens } from './helpers';

const refresh = (token: string) => post('/api/token/refresh/', { refresh_token: token });
const revoke = (token: string) => post('/api/token/revoke/', { refresh_token: token });
const familyOf = async (userId: number) => (await db().select().from(refreshFamilies).where(eq(refreshFamilies.userId, userId)))[0]!;

describe('POST /api/token/refresh/', () => {
  it('rotates: a new pair without user, and the old refresh token is spent', async () => {
    const account = await createAccount({ role: 'developer' });
    const first = await signIn(account);
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    const second = await res.json<Tokens>();
    expect(Object.keys(second).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'refresh_token_expires_at', 'success']);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(await (await whoami(second.access_token)).json()).toEqual({ user_name: account.email, user_permissions: 'DEVELOPER' });
    expect((await refresh(second.refresh_token)).status).toBe(200);
  });

  it('answers 401 for a rotated token and revokes the whole family (reuse detection)', async () => {
    const account = await createAccount({});
    const first = await signIn(account);
    const second = await (await refresh(first.refresh_token)).json<Tokens>();
    // Past the grace that concurrent refreshes get (see the next test).
    await db()
      .update(refreshFamilies)
      .set({ lastRefreshedAt: Date.now() - CONCURRENT_REFRESH_GRACE_MS - 1 })
      .where(eq(refreshFamilies.userId, account.id));
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(401);
    expect(await reuse.json()).toEqual({ success: false, error: 'The refresh token is invalid, expired or already used.' });
    // The thief's (or the owner's) newer token dies with the family.
    expect((await refresh(second.refresh_token)).status).toBe(401);
    const family = await familyOf(account.id);
    expect(family.revokedReason).toBe('reuse_detected');
    const logged = await db().select().from(auditLog).where(eq(auditLog.userId, account.id));
    expect(logged.map((row) => row.event)).toContain('reuse_detected');
  });

  it('lets exactly one of two concurrent refreshes of one token win', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    const answers = await Promise.all([refresh(tokens.refresh_token), refresh(tokens.refresh_token), refresh(tokens.refresh_token)]);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 401, 401]);
    const winner = answers.find((res) => res.status === 200)!;
    const next = await winner.json<Tokens>();
    // The losers presented a token rotated a moment ago: a race, not theft, so the family lives on.
    expect((await familyOf(account.id)).generation).toBe(1);
    expect((await familyOf(account.id)).revokedAt).toBeNull();
    expect((await refresh(next.refresh_token)).status).toBe(200);
  });

  it('revokes the family when a token older than the one just replaced comes back', async () => {
    const account = await createAccount({});
    const first = await signIn(account);
    const second = await (await refresh(first.refresh_token)).json<Tokens>();
    const third = await (await refresh(second.refresh_token)).json<Tokens>();
    expect((await refresh(first.refresh_token)).status).toBe(401);
    expect((await refresh(third.refresh_token)).status).toBe(401);
    expect((await familyOf(account.id)).revokedReason).toBe('reuse_detected');
  });

  it('answers 403 for a deactivated account and leaves the token usable after reactivation', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    await db().update(users).set({ isActive: false }).where(eq(users.id, account.id));
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ success: false, error: 'This account is deactivated.' });
    expect((await familyOf(account.id)).generation).toBe(0);
    await db().update(users).set({ isActive: true }).where(eq(users.id, account.id));
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('answers 401 for an expired refresh family', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    await db()
      .update(refreshFamilies)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(refreshFamilies.userId, account.id));
    expect((await refresh(tokens.refresh_token)).status).toBe(401);
  });

  it('issues tokens nobody else can read: no e-mail, role or ids in them', async () => {
    const account = await createAccount({ role: 'admin' });
    const tokens = await signIn(account);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      const decoded = token
        .split('.')
        .map((part) => {
          try {
            return atob(part.replace(/-/g, '+').replace(/_/g, '/'));
          } catch {
            return part;
          }
        })
        .join('.');
      expect(decoded).not.toContain(account.email);
      expect(decoded).not.toMatch(/admin|"uid"|"fam"/i);
    }
  });

  it('answers 401 for forged, tampered, access and garbage tokens', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    const [kind, payload, signature] = tokens.refresh_token.split('.');
    const tampered = `${kind}.${payload}x.${signature}`;
    const forged = `${kind}.${payload}.${signature!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`;
    for (const token of [tampered, forged, tokens.access_token, 'garbage', 'rt.e30.AAAA']) {
      expect((await refresh(token)).status).toBe(401);
    }
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });
});

describe('POST /api/token/revoke/', () => {
  it('kills a live token once: success true, then false', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    expect(await (await revoke(tokens.refresh_token)).json()).toEqual({ success: true });
    expect(await (await revoke(tokens.refresh_token)).json()).toEqual({ success: false });
    expect((await refresh(tokens.refresh_token)).status).toBe(401);
    expect((await familyOf(account.id)).revokedReason).toBe('revoked');
  });

  it('answers success false for rotated, invalid and garbage tokens', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    await refresh(tokens.refresh_token);
    for (const token of [tokens.refresh_token, tokens.access_token, 'garbage']) {
      const res = await revoke(token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: false });
    }
  });
});

describe('GET /api/whoami/', () => {
  it('answers the account and its role in upper case, without the client secret', async () => {
    const account = await createAccount({ role: 'admin' });
    const tokens = await signIn(account);
    const res = await whoami(tokens.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user_name: account.email, user_permissions: 'ADMIN' });
  });

  it('answers 401 for a missing, malformed, forged, expired or refresh token', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    const expired = await signAccessToken(
      { uid: 1, name: 'a@example.com', perm: 'ADMIN', exp: Math.floor(Date.now() / 1000) - 1 },
      env.AUTH_TOKEN_SECRET,
    );
    const otherKey = await signAccessToken(
      { uid: 1, name: 'a@example.com', perm: 'ADMIN', exp: Math.floor(Date.now() / 1000) + 60 },
      'another-secret-another-secret-another',
    );
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: 'Bearer' },
      { authorization: `Basic ${tokens.access_token}` },
      { authorization: `Bearer ${tokens.refresh_token}` },
      { authorization: `Bearer ${expired}` },
      { authorization: `Bearer ${otherKey}` },
      { authorization: `Bearer ${'a'.repeat(5000)}` },
      { authorization: 'Bearer at.!!!.???' },
    ];
    for (const header of headers) {
      const res = await fetchWhoami(header);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect((await res.json<{ success: boolean }>()).success).toBe(false);
    }
  });

  it('reads no database: it answers with D1 unreachable', async () => {
    const account = await createAccount({ role: 'developer' });
    const tokens = await signIn(account);
    const { createAuthApp } = await import('../../workers/auth/src/app');
    const unreachable = new Proxy({} as D1Database, {
      get() {
        throw new Error('whoami touched the database');
      },
    });
    const res = await createAuthApp().request(
      '/api/whoami/',
      { headers: { authorization: `Bearer ${tokens.access_token}` } },
      { ...env, DB: unreachable },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user_name: account.email, user_permissions: 'DEVELOPER' });
    // The same stand-in does break a route that needs the database, so it would catch a query.
    const refreshed = await createAuthApp().request(
      '/api/token/refresh/',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-client-secret': 'test-client-secret' },
        body: JSON.stringify({ refresh_token: tokens.refresh_token }),
      },
      { ...env, DB: unreachable },
    );
    expect(refreshed.status).toBe(500);
  });

  it('keeps answering for a revoked session until the access token expires (documented trade-off)', async () => {
    const account = await createAccount({});
    const tokens = await signIn(account);
    await revoke(tokens.refresh_token);
    expect((await whoami(tokens.access_token)).status).toBe(200);
  });
});

async function fetchWhoami(headers?: Record<string, string>) {
  const { exports } = await import('cloudflare:workers');
  return exports.default.fetch('https://auth.test/api/whoami/', { headers });
}
