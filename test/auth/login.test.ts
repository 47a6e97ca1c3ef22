import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, credentials, sites, totpUsedSteps } from '#d1/auth/schema.ts';
import { stepAt } from '../../workers/auth/src/totp';
import { PENDING_LOGIN_MAX_ATTEMPTS } from '../../workers/auth/src/login';
import { hashPassword } from '../../workers/auth/src/passwords';
import { codeFor, createAccount, db, pendingToken, post, signIn, uniqueEmail, uniqueIp, whoami, type Tokens } from './helpers';

const pendingStub = (token: string) => env.PENDING_LOGINS.get(env.PENDING_LOGINS.idFromName(token));
const events = async (userId: number) =>
  (await db().select().from(auditLog).where(eq(auditLog.userId, userId)).orderBy(auditLog.id)).map((row) => row.event);

describe('POST /api/login/', () => {
  it('answers a pending token for a correct password of an enrolled account', async () => {
    const account = await createAccount({});
    const res = await post('/api/login/', { email: account.email.toUpperCase(), password: account.password, site: 'anything' });
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toEqual({ success: true, pending_token: expect.stringMatching(/^[\w-]{43}$/), enrolled: true });
  });

  it('uses the siteless credential when the site is left out', async () => {
    const account = await createAccount({});
    const res = await post('/api/login/', { email: account.email, password: account.password });
    expect(res.status).toBe(200);
  });

  it('answers unknown e-mail, wrong password and wrong site with the same 400 body', async () => {
    const account = await createAccount({});
    const [site] = await db()
      .insert(sites)
      .values({ siteName: `site-${account.id}`, siteUrl: 'https://a.example' })
      .returning();
    const siteOnly = await createAccount({});
    // siteOnly has a credential for the site only: its siteless one is removed.
    await db().delete(credentials).where(eq(credentials.userId, siteOnly.id));
    await db()
      .insert(credentials)
      .values({ userId: siteOnly.id, siteId: site!.id, passwordHash: hashPassword(siteOnly.password) });

    const answers = await Promise.all([
      post('/api/login/', { email: uniqueEmail('nobody'), password: account.password, site: '' }),
      post('/api/login/', { email: account.email, password: 'wrong password', site: '' }),
      post('/api/login/', { email: siteOnly.email, password: siteOnly.password, site: 'some other site' }),
    ]);
    const bodies = await Promise.all(answers.map((res) => res.text()));
    expect(answers.map((res) => res.status)).toEqual([400, 400, 400]);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({ success: false, error: 'Invalid email, password or site.' });
    // The same account signs in for its own site.
    expect((await post('/api/login/', { email: siteOnly.email, password: siteOnly.password, site: site!.siteName })).status).toBe(200);
  });

  it('spends a password hash on unknown accounts too (timing)', async () => {
    const account = await createAccount({});
    const time = async (email: string) => {
      const started = performance.now();
      await post('/api/login/', { email, password: 'not the password', site: '' });
      // workerd's clock moves on I/O; the response is I/O.
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      known.push(await time(account.email));
      unknown.push(await time(uniqueEmail('ghost')));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
    expect(median(unknown)).toBeLessThan(median(known) * 2);
    expect(median(unknown)).toBeGreaterThan(50);
  });

  it('answers 400 for an account not enrolled in 2FA, only after a correct password', async () => {
    const account = await createAccount({ enrolled: false });
    const res = await post('/api/login/', { email: account.email, password: account.password, site: '' });
    expect(res.status).toBe(400);
    const body = await res.json<{ success: boolean; error: string }>();
    expect(body.success).toBe(false);
    expect(body.error).toMatch(/not enrolled/);
    const wrong = await post('/api/login/', { email: account.email, password: 'nope', site: '' });
    expect(await wrong.json()).toEqual({ success: false, error: 'Invalid email, password or site.' });
  });

  it('refuses a deactivated account with the generic answer', async () => {
    const account = await createAccount({ active: false });
    const res = await post('/api/login/', { email: account.email, password: account.password, site: '' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, error: 'Invalid email, password or site.' });
  });

  // About 22 scrypt verifications in a row: seconds on a quiet machine, far more when the cores are shared.
  it('locks an account after repeated failures, for known and unknown e-mails alike', { timeout: 120_000 }, async () => {
    const account = await createAccount({});
    for (let i = 0; i < 10; i++) {
      expect((await post('/api/login/', { email: account.email, password: `wrong-${i}`, site: '' })).status).toBe(400);
    }
    const locked = await post('/api/login/', { email: account.email, password: account.password, site: '' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(await locked.json()).toEqual({ success: false, error: 'Too many attempts. Try again later.' });
    expect(await events(account.id)).toContain('lockout');

    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 10; i++) await post('/api/login/', { email: ghost, password: 'x', site: '' });
    expect((await post('/api/login/', { email: ghost, password: 'x', site: '' })).status).toBe(429);
  });

  it('limits login attempts per client IP', async () => {
    const ip = uniqueIp();
    const limit = Number(env.AUTH_IP_LIMIT_PER_MINUTE);
    const statuses: number[] = [];
    // Attempts at different accounts, so only the IP budget can stop the last one.
    for (let i = 0; i <= limit; i++) {
      statuses.push((await post('/api/login/', { email: uniqueEmail(`ip${i}`), password: 'x', site: '' }, { ip })).status);
    }
    expect(statuses.slice(0, limit).every((s) => s === 400)).toBe(true);
    expect(statuses[limit]).toBe(429);
    expect((await post('/api/login/', { email: uniqueEmail('other'), password: 'x', site: '' }, { ip: uniqueIp() })).status).toBe(400);
  });

  it('counts a consuming application’s users by the address it forwards in X-Auth-Client-IP', async () => {
    const server = uniqueIp();
    const limit = Number(env.AUTH_IP_LIMIT_PER_MINUTE);
    const user = '198.51.100.7';
    for (let i = 0; i < limit; i++) {
      await post(
        '/api/login/',
        { email: uniqueEmail(`fwd${i}`), password: 'x', site: '' },
        { ip: server, headers: { 'x-auth-client-ip': user } },
      );
    }
    const blocked = await post(
      '/api/login/',
      { email: uniqueEmail('fwd'), password: 'x', site: '' },
      { ip: server, headers: { 'x-auth-client-ip': user } },
    );
    expect(blocked.status).toBe(429);
    // The same server, for another of its users, still gets through.
    const other = await post(
      '/api/login/',
      { email: uniqueEmail('fwd'), password: 'x', site: '' },
      { ip: server, headers: { 'x-auth-client-ip': '198.51.100.8' } },
    );
    expect(other.status).toBe(400);
  });
});

describe('POST /api/verify-2fa/', () => {
  it('answers the tokens and the user for a correct code', async () => {
    const account = await createAccount({ role: 'admin' });
    const tokens = await signIn(account);
    expect(tokens).toEqual({
      success: true,
      access_token: expect.stringMatching(/^at\./),
      refresh_token: expect.stringMatching(/^rt\./),
      refresh_token_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      expires_in: 900,
      user: { id: account.id, email: account.email, first_name: 'Test', last_name: 'Account', role: 'admin' },
    });
    const days = (Date.parse(`${tokens.refresh_token_expires_at}Z`) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(await events(account.id)).toContain('login_success');
  });

  it('takes a pending token once', async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    expect((await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret) })).status).toBe(200);
    const again = await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret, -1) });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ success: false, error: 'The login has expired or is unknown; sign in again.' });
  });

  it('refuses a replayed code inside its window, per account', async () => {
    const account = await createAccount({});
    const code = await codeFor(account.secret);
    await signIn(account, { code });
    const replay = await post('/api/verify-2fa/', { pending_token: await pendingToken(account), code });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ success: false, error: 'Invalid code.' });
    // Another account with the same secret is a different account: its code is its own.
    const twin = await createAccount({});
    expect((await post('/api/verify-2fa/', { pending_token: await pendingToken(twin), code })).status).toBe(200);
  });

  it('keeps only the recent used steps of an account', async () => {
    const account = await createAccount({});
    await db()
      .insert(totpUsedSteps)
      .values([
        { userId: account.id, step: 1 },
        { userId: account.id, step: 2 },
      ]);
    await signIn(account);
    const steps = (await db().select().from(totpUsedSteps).where(eq(totpUsedSteps.userId, account.id))).map((r) => r.step);
    expect(steps).toHaveLength(1);
    expect(Math.abs(steps[0]! - stepAt(Date.now()))).toBeLessThanOrEqual(1);
  });

  it('answers 400 for a wrong code and keeps the pending token for another attempt', async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    const right = await codeFor(account.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const res = await post('/api/verify-2fa/', { pending_token: pending, code: wrong });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, error: 'Invalid code.' });
    expect((await post('/api/verify-2fa/', { pending_token: pending, code: right })).status).toBe(200);
    expect(await events(account.id)).toEqual(expect.arrayContaining(['verify_failure', 'login_success']));
  });

  it(`allows ${PENDING_LOGIN_MAX_ATTEMPTS} code attempts per pending token`, async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    const right = await codeFor(account.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < PENDING_LOGIN_MAX_ATTEMPTS; i++) {
      expect(await (await post('/api/verify-2fa/', { pending_token: pending, code: wrong })).json()).toEqual({
        success: false,
        error: 'Invalid code.',
      });
    }
    const after = await post('/api/verify-2fa/', { pending_token: pending, code: right });
    expect(after.status).toBe(400);
    expect(await after.json()).toEqual({ success: false, error: 'The login has expired or is unknown; sign in again.' });
  });

  it('expires a pending token after five minutes (its alarm)', async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    const alarmAt = await runInDurableObject(pendingStub(pending), (_instance, state) => state.storage.getAlarm());
    expect(alarmAt! - Date.now()).toBeGreaterThan(4.9 * 60_000);
    expect(alarmAt! - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(await runDurableObjectAlarm(pendingStub(pending))).toBe(true);
    const res = await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, error: 'The login has expired or is unknown; sign in again.' });
  });

  it('treats a pending token past its expiry as expired even before the alarm runs', async () => {
    const account = await createAccount({});
    const pending = await pendingToken(account);
    await runInDurableObject(pendingStub(pending), (_instance, state) => {
      const login = state.storage.kv.get<{ expiresAt: number }>('login')!;
      state.storage.kv.put('login', { ...login, expiresAt: Date.now() - 1 });
    });
    expect((await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret) })).status).toBe(400);
  });

  it('answers 400 for an unknown or malformed pending token', async () => {
    for (const token of ['x'.repeat(43), 'not a token', '']) {
      const res = await post('/api/verify-2fa/', { pending_token: token, code: '123456' });
      expect(res.status).toBe(400);
      expect((await res.json<{ success: boolean }>()).success).toBe(false);
    }
  });

  it('accepts each backup code once in place of a code', async () => {
    const account = await createAccount({});
    const [first] = account.backupCodes;
    const tokens = await signIn(account, { code: first!.toUpperCase() });
    expect(tokens.success).toBe(true);
    const reuse = await post('/api/verify-2fa/', { pending_token: await pendingToken(account), code: first });
    expect(reuse.status).toBe(400);
    expect((await signIn(account, { code: account.backupCodes[1]!.replace('-', '') })).success).toBe(true);
  });

  it('counts wrong codes towards the account lockout', async () => {
    const account = await createAccount({});
    for (let round = 0; round < 2; round++) {
      const pending = await pendingToken(account);
      for (let i = 0; i < 5; i++) await post('/api/verify-2fa/', { pending_token: pending, code: 'zzzz-zzzz' });
    }
    const res = await post('/api/login/', { email: account.email, password: account.password, site: '' });
    expect(res.status).toBe(429);
    expect(await events(account.id)).toContain('lockout');
  });

  it('limits verify attempts per client IP', async () => {
    const ip = uniqueIp();
    let last = 0;
    for (let i = 0; i <= Number(env.AUTH_IP_LIMIT_PER_MINUTE); i++)
      last = (await post('/api/verify-2fa/', { pending_token: 'y'.repeat(43), code: '123456' }, { ip })).status;
    expect(last).toBe(429);
  });
});

describe('sites and roles', () => {
  it('uses a per-site credential and the site’s own role vocabulary in whoami', async () => {
    const account = await createAccount({ role: 'user', password: 'siteless password' });
    const name = `Racing CMS ${account.id}`;
    const [site] = await db()
      .insert(sites)
      .values({ siteName: name, siteUrl: 'https://cms.example', roles: JSON.stringify(['Editor', 'Senior Editor']) })
      .returning();
    await db()
      .insert(credentials)
      .values({ userId: account.id, siteId: site!.id, passwordHash: hashPassword('site password'), siteRole: 'Senior Editor' });

    // The site's password for the site; the siteless password does not open it.
    expect((await post('/api/login/', { email: account.email, password: 'siteless password', site: name })).status).toBe(400);
    // Two sign-ins of one account: the current step, then the next (the previous step would be refused
    // if the clock reached the following step before the code is checked).
    const onSite = await signIn({ ...account, password: 'site password' }, { site: name, offsetSteps: 0 });
    expect(await (await whoami(onSite.access_token)).json()).toEqual({ user_name: account.email, user_permissions: 'SENIOR EDITOR' });
    // Site names match exactly: another spelling falls through to the siteless credential and global role.
    const elsewhere = await signIn(account, { site: name.toLowerCase(), offsetSteps: 1 });
    expect(await (await whoami(elsewhere.access_token)).json()).toEqual({ user_name: account.email, user_permissions: 'USER' });
    const cred = await db()
      .select()
      .from(credentials)
      .where(and(eq(credentials.userId, account.id), eq(credentials.siteId, site!.id)));
    expect(cred).toHaveLength(1);
  });

  it('keeps the global role on a site without a vocabulary', async () => {
    const account = await createAccount({ role: 'developer' });
    const name = `plain-${account.id}`;
    await db().insert(sites).values({ siteName: name, siteUrl: 'https://plain.example' });
    const tokens: Tokens = await signIn(account, { site: name });
    expect(await (await whoami(tokens.access_token)).json()).toEqual({ user_name: account.email, user_permissions: 'DEVELOPER' });
  });
});
