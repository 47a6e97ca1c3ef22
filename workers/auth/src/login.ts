import { and, eq, isNull, lt } from 'drizzle-orm';
import { backupCodes, credentials, totpUsedSteps, users } from '#d1/auth/schema.ts';
import type { PendingLoginState } from '#durable-objects/pending-login.ts';
import { findLoginCredential, normaliseEmail, type User } from './accounts.ts';
import { audit } from './audit.ts';
import type { AuthConfig } from './config.ts';
import type { AuthDb, AuthEnv } from './context.ts';
import { randomBytes, toBase64Url } from '#shared/crypto.ts';
import { accountGuard, pendingLogin, recordAccountFailure, takeIpBudget } from './guards.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.ts';
import { decryptTotpSecret, hashBackupCode, matchTotp, TOTP_WINDOW } from './totp.ts';

/** Fixed by the spec, not configurable. */
export const PENDING_LOGIN_TTL_MS = 5 * 60_000;
/** Code attempts one pending token allows. */
export const PENDING_LOGIN_MAX_ATTEMPTS = 5;

export interface AuthDeps {
  env: Env;
  config: AuthConfig;
  db: AuthDb;
  ip: string;
}

/** A request's AuthDeps; `ip` is the address the rate limits count (the connecting one unless given). */
export const authDeps = (c: { env: Env; var: AuthEnv['Variables'] }, ip = c.var.ip): AuthDeps => ({
  env: c.env,
  config: c.var.config,
  db: c.var.db,
  ip,
});

export type Throttled = { kind: 'throttled'; retryAfterSeconds: number };

export type PasswordResult =
  | { kind: 'pending'; pendingToken: string; user: User }
  | { kind: 'invalid' }
  | { kind: 'not_enrolled' }
  | Throttled;

/** Step one: e-mail, password and site. Unknown account, wrong password and wrong site all cost one password hash and answer alike. */
export async function checkPassword(
  { env, config, db, ip }: AuthDeps,
  input: { email: string; password: string; site: string },
  channel: 'login' | 'dashboard' = 'login',
): Promise<PasswordResult> {
  const email = normaliseEmail(input.email);
  const budget = await takeIpBudget(env, config, channel, ip);
  if (!budget.allowed) return { kind: 'throttled', retryAfterSeconds: budget.retryAfterSeconds };
  const guard = accountGuard(env, email);
  const status = await guard.status();
  if (!status.allowed) return { kind: 'throttled', retryAfterSeconds: status.retryAfterSeconds };

  const found = await findLoginCredential(db, email, input.site);
  const check = await verifyPassword(input.password, found?.credential.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !check.ok || !found.user.isActive) {
    const { lockedNow } = await recordAccountFailure(env, config, email);
    await audit(db, 'login_failure', { userId: found?.user.id, email, siteName: input.site, ip, detail: channel });
    if (lockedNow) await audit(db, 'lockout', { userId: found?.user.id, email, ip, detail: 'password' });
    return { kind: 'invalid' };
  }
  const { user, credential, site } = found;
  if (check.rehash) {
    await db
      .update(credentials)
      .set({ passwordHash: hashPassword(input.password), updatedAt: Date.now() })
      .where(eq(credentials.id, credential.id));
  }
  if (!user.totpSecret) {
    await audit(db, 'login_not_enrolled', { userId: user.id, email, siteName: input.site, ip });
    return { kind: 'not_enrolled' };
  }
  const pendingToken = toBase64Url(randomBytes(32));
  const state: PendingLoginState = { userId: user.id, email, siteId: site?.id ?? null, siteName: input.site, ip };
  await pendingLogin(env, pendingToken).open(state, PENDING_LOGIN_TTL_MS);
  return { kind: 'pending', pendingToken, user };
}

export type CodeResult =
  | { kind: 'verified'; user: User; siteId: number | null; siteName: string }
  | { kind: 'invalid_code' }
  | { kind: 'invalid_token' }
  | Throttled;

const PENDING_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Step two: the pending token and a TOTP code (or one backup code). */
export async function checkCode(
  { env, config, db, ip }: AuthDeps,
  input: { pendingToken: string; code: string },
  channel: 'verify' | 'dashboard' = 'verify',
): Promise<CodeResult> {
  const budget = await takeIpBudget(env, config, channel, ip);
  if (!budget.allowed) return { kind: 'throttled', retryAfterSeconds: budget.retryAfterSeconds };
  if (!PENDING_TOKEN.test(input.pendingToken)) return { kind: 'invalid_token' };
  const pending = pendingLogin(env, input.pendingToken);
  const claim = await pending.claim(PENDING_LOGIN_MAX_ATTEMPTS);
  if (!claim.ok) return { kind: 'invalid_token' };
  const { login } = claim;
  const guard = accountGuard(env, login.email);
  const status = await guard.status();
  if (!status.allowed) return { kind: 'throttled', retryAfterSeconds: status.retryAfterSeconds };

  const [user] = await db.select().from(users).where(eq(users.id, login.userId)).limit(1);
  const failure = async (detail: string): Promise<CodeResult> => {
    const { lockedNow } = await recordAccountFailure(env, config, login.email);
    await audit(db, 'verify_failure', { userId: login.userId, email: login.email, siteName: login.siteName, ip, detail });
    if (lockedNow) await audit(db, 'lockout', { userId: login.userId, email: login.email, ip, detail: 'code' });
    return { kind: 'invalid_code' };
  };
  if (!user || !user.isActive || !user.totpSecret) return failure('account unavailable');

  const code = input.code.trim();
  if (/^\d{6}$/.test(code)) {
    const secret = await decryptTotpSecret(user.totpSecret, user.email, config.AUTH_TOTP_ENCRYPTION_KEY);
    const step = secret === null ? null : await matchTotp(secret, code, Date.now());
    if (step === null) return failure(secret === null ? 'totp secret unreadable' : 'wrong code');
    // A step is good once per account: the unique index makes the second use a no-op insert.
    const used = await db.insert(totpUsedSteps).values({ userId: user.id, step, usedAt: Date.now() }).onConflictDoNothing().run();
    if (used.meta.changes !== 1) return failure('replayed code');
    // Steps older than the window can never match again: only the last few need keeping.
    await db.delete(totpUsedSteps).where(and(eq(totpUsedSteps.userId, user.id), lt(totpUsedSteps.step, step - 2 * TOTP_WINDOW)));
  } else {
    const result = await db
      .update(backupCodes)
      .set({ usedAt: Date.now() })
      .where(and(eq(backupCodes.userId, user.id), eq(backupCodes.codeHash, await hashBackupCode(code)), isNull(backupCodes.usedAt)))
      .run();
    if (result.meta.changes !== 1) return failure('wrong backup code');
  }
  if (!(await pending.complete())) return { kind: 'invalid_token' };
  await guard.recordSuccess();
  return { kind: 'verified', user, siteId: login.siteId, siteName: login.siteName };
}
