import type { MiddlewareHandler } from 'hono';
import { refreshSession, type VerifiedLogin } from '#shared/auth-client.ts';
import { BrowserSessions, newSessionRow } from '#shared/browser-session.ts';
import { HttpError } from '#shared/http-error.ts';
import { openOrUndefined, type SealingKey } from '#shared/sealing.ts';
import type { CmsContext, CmsEnv, SessionUser } from './context.ts';
import { sessionStore } from './data/sessions.ts';

// The editor's session is the shared browser session (workers/shared/browser-session.ts): the
// `app_session` cookie names a D1 row, the refresh token sealed in it, rechecked every
// SESSION_RECHECK_SECONDS with the authentication service.

export const SESSION_COOKIE = 'app_session';
const SESSION_MAX_AGE_SECONDS = 86_400;
const COOKIE_PATH = '/api';

/** Refresh tokens at rest: the shared sealing under SESSION_SECRET with this label. */
const refreshTokenKey = (secret: string): SealingKey => ({ secret, label: 'cms-session-refresh-token' });

/** The refresh token, or undefined when the sealed value does not open (forged, moved, another secret). */
export const openRefreshToken = (secret: string, idHash: string, sealed: string): Promise<string | undefined> =>
  openOrUndefined(refreshTokenKey(secret), idHash, sealed);

/** The CMS's sessions: its D1 rows under its policy. */
export function cmsSessions(c: CmsContext): BrowserSessions<SessionUser> {
  return new BrowserSessions(sessionStore(c.var.db), {
    service: 'cms',
    cookie: SESSION_COOKIE,
    cookiePath: COOKIE_PATH,
    maxAgeSeconds: SESSION_MAX_AGE_SECONDS,
    upstream: {
      recheckSeconds: c.var.config.SESSION_RECHECK_SECONDS,
      sealing: refreshTokenKey(c.var.config.SESSION_SECRET),
      refresh: (token) => refreshSession(c, token),
    },
  });
}

/**
 * A session's cookie value and its row in the D1 table's shape, as a sign-in stores it (the
 * benchmark and the tests seed signed-in editors with it).
 */
export async function newSession(secret: string, user: SessionUser, refreshToken: string, now = Date.now()) {
  const { id, row } = await newSessionRow(
    user,
    { maxAgeSeconds: SESSION_MAX_AGE_SECONDS, upstream: { sealing: refreshTokenKey(secret) } },
    refreshToken,
    now,
  );
  const { profile, ...rest } = row;
  return {
    id,
    row: {
      ...rest,
      userId: profile.id,
      email: profile.email,
      firstName: profile.firstName,
      lastName: profile.lastName,
      role: profile.role,
    },
  };
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
  await cmsSessions(c).start(c, user, login.refresh_token, now);
  return user;
}

const ENDED: Record<string, string> = {
  malformed: 'The session cookie is not valid; sign in again.',
  ended: 'The session has ended; sign in again.',
  revoked: 'The session was ended at the authentication service; sign in again.',
  deactivated: 'The account has been deactivated.',
};

/**
 * Every route behind it needs a live session: the cookie names a stored, unexpired session, and
 * the authentication service has confirmed the account within SESSION_RECHECK_SECONDS (a revoked
 * session or deactivated account ends the session here too).
 */
export function requireSession(): MiddlewareHandler<CmsEnv> {
  return async (c, next) => {
    const session = await cmsSessions(c).read(c);
    if (session.kind === 'none') {
      if (session.reason === 'absent')
        throw new HttpError(401, 'unauthenticated', 'Sign in first: this route needs the app_session cookie.');
      throw new HttpError(401, 'unauthenticated', ENDED[session.reason]!);
    }
    c.set('user', session.profile);
    await next();
  };
}

/** Removes the caller's session; answers its refresh token so the caller can revoke it upstream. */
export const endSession = (c: CmsContext): Promise<string | undefined> => cmsSessions(c).end(c);

/** Writes (create, update, delete) need an editing role; reads need only a session. */
export function requireEditor(): MiddlewareHandler<CmsEnv> {
  return async (c, next) => {
    if (!c.var.config.CMS_EDITOR_ROLES.includes(c.var.user.role.toUpperCase())) {
      throw new HttpError(403, 'forbidden', `The role ${c.var.user.role} may read content but not change it.`);
    }
    await next();
  };
}
