import { and, eq, lt } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sessions } from '#d1/cms/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';
import { HttpError } from '#shared/http-error.ts';
import { openOrUndefined, seal, type SealingKey } from '#shared/sealing.ts';
import { refreshSession, type VerifiedLogin } from '#shared/auth-client.ts';
import type { CmsContext, CmsEnv, SessionUser } from './context.ts';

export const SESSION_COOKIE = 'app_session';
export const SESSION_MAX_AGE_SECONDS = 86_400;
/** Past this many recheck periods without reaching the authentication service, a session is refused. */
const OUTAGE_GRACE_PERIODS = 3;

/** Refresh tokens at rest: the shared sealing under SESSION_SECRET with this label. */
const refreshTokenKey = (secret: string): SealingKey => ({ secret, label: 'cms-session-refresh-token' });

/** The session id is the associated data: a sealed token copied to another row does not open. */
export const sealRefreshToken = (secret: string, idHash: string, token: string): Promise<string> =>
  seal(refreshTokenKey(secret), idHash, token);

/** The refresh token, or undefined when the sealed value does not open (forged, moved, another secret). */
export const openRefreshToken = (secret: string, idHash: string, sealed: string): Promise<string | undefined> =>
  openOrUndefined(refreshTokenKey(secret), idHash, sealed);

function sessionCookie(c: CmsContext, value: string) {
  setCookie(c, SESSION_COOKIE, value, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/api', maxAge: SESSION_MAX_AGE_SECONDS });
}

export function clearSessionCookie(c: CmsContext) {
  deleteCookie(c, SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/api' });
}

/**
 * A new session: the cookie value (a random 256-bit id) and the row that stores it, keyed by the
 * id's SHA-256, with the refresh token sealed. Confirmed by the authentication service as of `now`.
 */
export async function newSession(secret: string, user: SessionUser, refreshToken: string, now = Date.now()) {
  const id = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(id);
  const row: typeof sessions.$inferInsert = {
    idHash,
    userId: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    refreshTokenSealed: await sealRefreshToken(secret, idHash, refreshToken),
    checkedAt: now,
    expiresAt: now + SESSION_MAX_AGE_SECONDS * 1000,
  };
  return { id, row };
}

/** Stores a new session for a completed login and sets its cookie. */
export async function startSession(c: CmsContext, login: VerifiedLogin, now = Date.now()): Promise<SessionUser> {
  const user: SessionUser = {
    id: login.user.id,
    email: login.user.email,
    firstName: login.user.first_name,
    lastName: login.user.last_name,
    role: login.permissions.toUpperCase(),
  };
  const { id, row } = await newSession(c.var.config.SESSION_SECRET, user, login.refresh_token, now);
  await c.var.db.insert(sessions).values(row);
  // Expired rows of anyone: a cheap indexed delete keeps the table to a day of sessions.
  c.executionCtx.waitUntil(
    c.var.db
      .delete(sessions)
      .where(lt(sessions.expiresAt, now))
      .run()
      .catch(() => {}),
  );
  sessionCookie(c, id);
  return user;
}

type SessionRow = typeof sessions.$inferSelect;

function unauthenticated(c: CmsContext, message: string): never {
  clearSessionCookie(c);
  throw new HttpError(401, 'unauthenticated', message);
}

/**
 * Every route behind it needs a live session: the cookie names a stored, unexpired session, and
 * the authentication service has confirmed the account within SESSION_RECHECK_SECONDS (a refresh
 * token rotation; a revoked session or deactivated account ends the session here too).
 */
export function requireSession(): MiddlewareHandler<CmsEnv> {
  return async (c, next) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (!id) throw new HttpError(401, 'unauthenticated', 'Sign in first: this route needs the app_session cookie.');
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) unauthenticated(c, 'The session cookie is not valid; sign in again.');
    const idHash = await sha256Hex(id);
    const row = await c.var.db.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
    const now = Date.now();
    if (!row || row.expiresAt <= now) unauthenticated(c, 'The session has ended; sign in again.');
    if (now - row.checkedAt >= c.var.config.SESSION_RECHECK_SECONDS * 1000) await recheck(c, row, now);
    c.set('user', { id: row.userId, email: row.email, firstName: row.firstName, lastName: row.lastName, role: row.role });
    await next();
  };
}

async function recheck(c: CmsContext, row: SessionRow, now: number): Promise<void> {
  const { db, config } = c.var;
  // Claim the recheck: of concurrent requests only one refreshes (a second refresh of the same
  // token would be a reuse at the authentication service); the others go on with the session.
  const claimed = await db
    .update(sessions)
    .set({ checkedAt: now })
    .where(and(eq(sessions.idHash, row.idHash), eq(sessions.checkedAt, row.checkedAt)))
    .run();
  if (claimed.meta.changes !== 1) return;
  const refreshToken = await openRefreshToken(config.SESSION_SECRET, row.idHash, row.refreshTokenSealed);
  if (refreshToken === undefined) {
    // Sealed under another SESSION_SECRET (or damaged): nothing to recheck with, the session ends.
    await db.delete(sessions).where(eq(sessions.idHash, row.idHash)).run();
    unauthenticated(c, 'The session has ended; sign in again.');
  }
  let outcome;
  try {
    outcome = await refreshSession(c, refreshToken);
  } catch (err) {
    // Unreachable: keep the session for a while (the account was confirmed recently), so an auth
    // outage does not sign every editor out; retry on the next request.
    await db.update(sessions).set({ checkedAt: row.checkedAt }).where(eq(sessions.idHash, row.idHash)).run();
    const periods = (now - row.checkedAt) / (config.SESSION_RECHECK_SECONDS * 1000);
    if (periods > OUTAGE_GRACE_PERIODS) throw err;
    console.warn(
      JSON.stringify({
        level: 'warn',
        service: 'cms',
        request_id: c.var.requestId,
        event: 'session_recheck_failed',
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    return;
  }
  if (outcome.kind === 'ended') {
    await db.delete(sessions).where(eq(sessions.idHash, row.idHash)).run();
    unauthenticated(
      c,
      outcome.status === 403 ? 'The account has been deactivated.' : 'The session was ended at the authentication service; sign in again.',
    );
  }
  const sealed = await sealRefreshToken(config.SESSION_SECRET, row.idHash, outcome.tokens.refresh_token);
  await db.update(sessions).set({ refreshTokenSealed: sealed }).where(eq(sessions.idHash, row.idHash)).run();
}

/** Removes the caller's session; answers its refresh token so the caller can revoke it upstream. */
export async function endSession(c: CmsContext): Promise<string | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  clearSessionCookie(c);
  if (!id) return undefined;
  const idHash = await sha256Hex(id);
  const row = await c.var.db.delete(sessions).where(eq(sessions.idHash, idHash)).returning().get();
  if (!row) return undefined;
  return openRefreshToken(c.var.config.SESSION_SECRET, idHash, row.refreshTokenSealed);
}

/** Writes (create, update, delete) need an editing role; reads need only a session. */
export function requireEditor(): MiddlewareHandler<CmsEnv> {
  return async (c, next) => {
    if (!c.var.config.CMS_EDITOR_ROLES.includes(c.var.user.role.toUpperCase())) {
      throw new HttpError(403, 'forbidden', `The role ${c.var.user.role} may read content but not change it.`);
    }
    await next();
  };
}
