import { and, eq, lt } from 'drizzle-orm';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sessions } from '#d1/mail/schema.ts';
import { derivedKey, randomBytes, sha256Hex, toBase64Url, utf8 } from '#shared/crypto.ts';
import type { MailContext, SessionUser } from './context.ts';
import { HttpError } from '#shared/http-error.ts';
import { type VerifiedLogin, refreshSession } from '#shared/auth-client.ts';
import { open, seal } from './sealing.ts';

/**
 * The service's own session: an opaque cookie (256 random bits) naming a D1 row keyed by its
 * SHA-256. Logout deletes the row, so the cookie stops working at once, copies included.
 * The anti-forgery token of a session is an HMAC of its id: known to its pages, never stored.
 * Every SESSION_RECHECK_SECONDS the authentication service confirms the session again (see
 * `recheck`), so a revoked session or a deactivated account stops reading the mailbox.
 */

export const SESSION_COOKIE = 'mail_session';
const COOKIE_OPTIONS = { path: '/', httpOnly: true, secure: true, sameSite: 'Lax' } as const;
const REFRESH_PURPOSE = 'auth-refresh-token';
/** Past this many recheck periods without reaching the authentication service, a session is refused. */
const OUTAGE_GRACE_PERIODS = 3;

const csrfKey = (secret: string) => derivedKey(secret, 'mail-csrf', { name: 'HMAC', hash: 'SHA-256' }, ['sign']);

export async function csrfTokenFor(secret: string, idHash: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', await csrfKey(secret), utf8(idHash))));
}

export interface ActiveSession {
  user: SessionUser;
  idHash: string;
  csrfToken: string;
}

/** Stores the session of a completed login and sets its cookie. */
export async function startSession(c: MailContext, login: VerifiedLogin, now = Date.now()): Promise<void> {
  const { config, db } = c.var;
  const id = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(id);
  await db.insert(sessions).values({
    idHash,
    userId: login.user.id,
    email: login.user.email,
    name: `${login.user.first_name} ${login.user.last_name}`.trim() || login.user.email,
    refreshTokenSealed: await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, idHash, login.refresh_token),
    createdAt: now,
    expiresAt: now + config.SESSION_MAX_AGE_SECONDS * 1000,
    checkedAt: now,
  });
  c.executionCtx.waitUntil(
    db
      .delete(sessions)
      .where(lt(sessions.expiresAt, now))
      .run()
      .catch(() => {}),
  );
  setCookie(c, SESSION_COOKIE, id, { ...COOKIE_OPTIONS, maxAge: config.SESSION_MAX_AGE_SECONDS });
}

type SessionRow = typeof sessions.$inferSelect;

/**
 * The live session the cookie names, or undefined (also when the authentication service has just
 * ended it). A 502 `auth_unavailable` when that service has been unreachable for too long.
 */
export async function readSession(c: MailContext): Promise<ActiveSession | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const idHash = await sha256Hex(id);
  const row = await c.var.db.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
  const now = Date.now();
  if (!row || row.expiresAt <= now) return undefined;
  if (now - row.checkedAt >= c.var.config.SESSION_RECHECK_SECONDS * 1000 && !(await recheck(c, row, now))) {
    deleteCookie(c, SESSION_COOKIE, COOKIE_OPTIONS);
    return undefined;
  }
  return {
    user: { id: row.userId, email: row.email, name: row.name },
    idHash,
    csrfToken: await csrfTokenFor(c.var.config.SESSION_SECRET, idHash),
  };
}

/**
 * Confirms a session with the authentication service by rotating its refresh token; false when
 * that service ended it (revoked family, deactivated account), the row then deleted. Of concurrent
 * requests that find the session due, one claims the recheck with a compare-and-set on
 * `checked_at` and the others go on: the same refresh token is never presented twice (a second
 * presentation would look like theft there and revoke the family). When the service cannot be
 * reached, a session confirmed within OUTAGE_GRACE_PERIODS recheck periods stays usable and the
 * next request tries again; an older one is a 502 until the service is back.
 */
async function recheck(c: MailContext, row: SessionRow, now: number): Promise<boolean> {
  const { db, config } = c.var;
  const claimed = await db
    .update(sessions)
    .set({ checkedAt: now })
    .where(and(eq(sessions.idHash, row.idHash), eq(sessions.checkedAt, row.checkedAt)))
    .run();
  if (claimed.meta.changes !== 1) return true;
  const refreshToken = await open(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, row.idHash, row.refreshTokenSealed);
  let outcome;
  try {
    // A token that does not open can never be confirmed: the session is over.
    outcome = refreshToken
      ? await refreshSession(c, refreshToken)
      : ({ kind: 'ended', status: 401, reason: 'unreadable refresh token' } as const);
  } catch (err) {
    await db.update(sessions).set({ checkedAt: row.checkedAt }).where(eq(sessions.idHash, row.idHash)).run();
    const periods = (now - row.checkedAt) / (config.SESSION_RECHECK_SECONDS * 1000);
    if (periods > OUTAGE_GRACE_PERIODS)
      throw err instanceof HttpError
        ? err
        : new HttpError(502, 'auth_unavailable', 'The authentication service could not be reached; try again shortly.');
    console.warn(
      JSON.stringify({
        level: 'warn',
        service: 'mail',
        request_id: c.var.requestId,
        event: 'session_recheck_failed',
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    return true;
  }
  if (outcome.kind === 'ended') {
    await db.delete(sessions).where(eq(sessions.idHash, row.idHash)).run();
    console.info(
      JSON.stringify({
        level: 'info',
        service: 'mail',
        request_id: c.var.requestId,
        event: 'session_ended_upstream',
        status: outcome.status,
      }),
    );
    return false;
  }
  const sealed = await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, row.idHash, outcome.tokens.refresh_token);
  await db.update(sessions).set({ refreshTokenSealed: sealed }).where(eq(sessions.idHash, row.idHash)).run();
  return true;
}

/** Deletes the caller's session row and cookie; answers the auth refresh token to revoke. */
export async function endSession(c: MailContext): Promise<string | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  deleteCookie(c, SESSION_COOKIE, COOKIE_OPTIONS);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const idHash = await sha256Hex(id);
  const row = await c.var.db.delete(sessions).where(eq(sessions.idHash, idHash)).returning().get();
  if (!row) return undefined;
  return open(c.var.config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, idHash, row.refreshTokenSealed);
}
