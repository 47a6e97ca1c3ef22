import { and, eq, lt } from 'drizzle-orm';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { jwtVerify, SignJWT } from 'jose';
import { loginSessions } from '#d1/migrate/schema.ts';
import { derivedKey, randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';
import { permissionsOf, refreshSession, revokeSession, type Tokens, type VerifiedLogin } from '#shared/auth-client.ts';
import { HttpError } from '#shared/http-error.ts';
import { ROLES, type MigrateContext, type Role, type SessionUser } from './context.ts';
import { open, openOrUndefined, seal } from '#shared/sealing.ts';
import { refreshTokenKey } from './sealing.ts';

/**
 * Sign-in state. The `AuthToken` cookie holds this app's own session JWT (HS256, jose): the user,
 * their role, the session id and the upstream access token's expiry (`uexp`). The upstream tokens
 * never reach the browser: the refresh token is sealed in D1 (`login_sessions`), keyed by the
 * session id's SHA-256, so sign-out ends the session server-side at once.
 */

export const AUTH_COOKIE = 'AuthToken';
const ISSUER = 'migrate';
const jwtKey = (secret: string) =>
  derivedKey(secret, 'migrate-session-jwt', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign', 'verify']);

export type SessionClaims = { sid: string; sub: string; email: string; name: string; role: Role; uexp: number };

/** Roles as the authentication service reports them for this site (upper-cased) → this app's roles. */
export function roleFromPermissions(permissions: string): Role | undefined {
  const wanted = permissions.trim().toUpperCase();
  return ROLES.find((role) => role.toUpperCase() === wanted);
}

/** True when a request at `now` must refresh an access token expiring at `accessExpiresAt` (both ms). */
export function inRefreshWindow(now: number, accessExpiresAt: number, windowSeconds: number): boolean {
  return now >= accessExpiresAt - windowSeconds * 1000;
}

export async function signSessionJwt(secret: string, claims: SessionClaims, expiresAt: number, now = Date.now()): Promise<string> {
  return new SignJWT({ sid: claims.sid, email: claims.email, name: claims.name, role: claims.role, uexp: claims.uexp })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(await jwtKey(secret));
}

export async function verifySessionJwt(secret: string, token: string, now = Date.now()): Promise<SessionClaims | undefined> {
  if (token.length > 4096) return undefined;
  try {
    const { payload } = await jwtVerify(token, await jwtKey(secret), { algorithms: ['HS256'], issuer: ISSUER, currentDate: new Date(now) });
    const { sid, email, name, role, uexp, sub } = payload;
    if (
      typeof sid !== 'string' ||
      typeof email !== 'string' ||
      typeof name !== 'string' ||
      typeof uexp !== 'number' ||
      typeof sub !== 'string'
    )
      return undefined;
    const known = ROLES.find((r) => r === role);
    return known ? { sid, sub, email, name, role: known, uexp } : undefined;
  } catch {
    return undefined;
  }
}

const cookieOptions = { httpOnly: true, secure: true, sameSite: 'Lax', path: '/' } as const;

async function setAuthCookie(c: MigrateContext, claims: SessionClaims, expiresAt: number, now: number) {
  const jwt = await signSessionJwt(c.var.config.SESSION_SECRET, claims, expiresAt, now);
  setCookie(c, AUTH_COOKIE, jwt, { ...cookieOptions, maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)) });
}

export function clearAuthCookie(c: MigrateContext) {
  deleteCookie(c, AUTH_COOKIE, cookieOptions);
}

/** Stores the session of a completed sign-in and sets its cookie. */
export async function startSession(c: MigrateContext, login: VerifiedLogin, role: Role, now = Date.now()): Promise<void> {
  const { config, db } = c.var;
  const sid = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(sid);
  const accessExpiresAt = now + login.expires_in * 1000;
  const expiresAt = now + config.SESSION_MAX_AGE_SECONDS * 1000;
  const name = `${login.user.first_name} ${login.user.last_name}`.trim() || login.user.email;
  await db.insert(loginSessions).values({
    idHash,
    userId: login.user.id,
    email: login.user.email,
    name,
    role,
    refreshTokenSealed: await seal(refreshTokenKey(config.SESSION_SECRET), idHash, login.refresh_token),
    accessExpiresAt,
    expiresAt,
  });
  // Ended sessions of anyone: a cheap indexed delete keeps the table to live sessions.
  c.executionCtx.waitUntil(
    db
      .delete(loginSessions)
      .where(lt(loginSessions.expiresAt, now))
      .run()
      .catch(() => {}),
  );
  await setAuthCookie(
    c,
    { sid, sub: String(login.user.id), email: login.user.email, name, role, uexp: Math.floor(accessExpiresAt / 1000) },
    expiresAt,
    now,
  );
}

export type SessionCheck = { kind: 'ok'; user: SessionUser } | { kind: 'signed-out'; reason?: 'expired' };

/**
 * The caller's session: the cookie's JWT is valid, its session row is live, and in the last
 * SESSION_REFRESH_WINDOW_SECONDS of the upstream access token it is refreshed and the cookie
 * reissued. A refresh that fails ends the session (`reason: 'expired'`).
 */
export async function checkSession(c: MigrateContext, now = Date.now()): Promise<SessionCheck> {
  const { config, db } = c.var;
  const token = getCookie(c, AUTH_COOKIE);
  if (!token) return { kind: 'signed-out' };
  const claims = await verifySessionJwt(config.SESSION_SECRET, token, now);
  if (!claims) return signedOut(c);
  const idHash = await sha256Hex(claims.sid);
  const row = await db.select().from(loginSessions).where(eq(loginSessions.idHash, idHash)).get();
  if (!row || row.expiresAt <= now) return signedOut(c);
  const user: SessionUser = { id: row.userId, email: row.email, name: row.name, role: row.role, sessionHash: idHash };
  if (!inRefreshWindow(now, row.accessExpiresAt, config.SESSION_REFRESH_WINDOW_SECONDS)) return { kind: 'ok', user };

  // Claim the refresh: of concurrent requests only one rotates the token (a second rotation of the
  // same token would be reuse upstream); the others go on with the session.
  const claimed = await db
    .update(loginSessions)
    .set({ accessExpiresAt: now + config.SESSION_REFRESH_WINDOW_SECONDS * 1000 + 30_000 })
    .where(and(eq(loginSessions.idHash, idHash), eq(loginSessions.accessExpiresAt, row.accessExpiresAt)))
    .run();
  if (claimed.meta.changes !== 1) return { kind: 'ok', user };
  const opened = await open(refreshTokenKey(config.SESSION_SECRET), idHash, row.refreshTokenSealed);
  const refreshToken = opened.ok ? opened.value : undefined;
  const outcome = refreshToken ? await rotate(c, refreshToken) : undefined;
  if (!outcome) {
    await db.delete(loginSessions).where(eq(loginSessions.idHash, idHash)).run();
    return signedOut(c, 'expired');
  }
  const role = roleFromPermissions(outcome.permissions);
  if (!role) {
    // The account has no role on this site any more: the session ends here and upstream.
    await db.delete(loginSessions).where(eq(loginSessions.idHash, idHash)).run();
    c.executionCtx.waitUntil(revokeSession(c, outcome.tokens.refresh_token).catch(() => false));
    return signedOut(c, 'expired');
  }
  const accessExpiresAt = now + outcome.tokens.expires_in * 1000;
  await db
    .update(loginSessions)
    .set({
      accessExpiresAt,
      role,
      refreshTokenSealed: await seal(refreshTokenKey(config.SESSION_SECRET), idHash, outcome.tokens.refresh_token),
    })
    .where(eq(loginSessions.idHash, idHash))
    .run();
  await setAuthCookie(c, { ...claims, role, uexp: Math.floor(accessExpiresAt / 1000) }, row.expiresAt, now);
  return { kind: 'ok', user: { ...user, role } };
}

/**
 * A new access token, proof the account is active and the session live, and the account's
 * permission on this site now (whoami), so a role changed upstream takes effect. Undefined when the
 * session cannot go on: ended upstream, or the authentication service unreachable (the session
 * ends rather than run on an unconfirmed role).
 */
async function rotate(c: MigrateContext, refreshToken: string): Promise<{ tokens: Tokens; permissions: string } | undefined> {
  let tokens: Tokens;
  try {
    const outcome = await refreshSession(c, refreshToken);
    if (outcome.kind === 'ended') return undefined;
    tokens = outcome.tokens;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    console.warn(
      JSON.stringify({
        level: 'warn',
        service: 'migrate',
        request_id: c.var.requestId,
        event: 'session_refresh_failed',
        error: err.message,
        detail: err.details?.detail,
      }),
    );
    return undefined;
  }
  try {
    return { tokens, permissions: await permissionsOf(c, tokens.access_token) };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    // The session ends without a role to go on with: its new refresh family must not stay live.
    await revokeSession(c, tokens.refresh_token).catch(() => false);
    return undefined;
  }
}

function signedOut(c: MigrateContext, reason?: 'expired'): SessionCheck {
  clearAuthCookie(c);
  return { kind: 'signed-out', reason };
}

/** Ends the caller's session here and its refresh family upstream. */
export async function endSession(c: MigrateContext): Promise<void> {
  const token = getCookie(c, AUTH_COOKIE);
  clearAuthCookie(c);
  if (!token) return;
  const claims = await verifySessionJwt(c.var.config.SESSION_SECRET, token);
  if (!claims) return;
  const idHash = await sha256Hex(claims.sid);
  const row = await c.var.db.delete(loginSessions).where(eq(loginSessions.idHash, idHash)).returning().get();
  if (!row) return;
  const refreshToken = await openOrUndefined(refreshTokenKey(c.var.config.SESSION_SECRET), idHash, row.refreshTokenSealed);
  if (refreshToken) c.executionCtx.waitUntil(revokeSession(c, refreshToken).catch(() => false));
}
