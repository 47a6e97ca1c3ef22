import { refreshSession, type VerifiedLogin } from '#shared/auth-client.ts';
import { BrowserSessions } from '#shared/browser-session.ts';
import { antiForgeryToken } from '#shared/anti-forgery.ts';
import type { MailContext, SessionUser } from './context.ts';
import { sessionStore } from './data/sessions.ts';

/**
 * The person's session is the shared browser session (workers/shared/browser-session.ts): the
 * `mail_session` cookie names a D1 row keyed by its SHA-256, logout deletes the row, so the cookie
 * stops working at once, copies included; every SESSION_RECHECK_SECONDS the authentication service
 * confirms it again, so a revoked session or a deactivated account stops reading the mailbox.
 * The anti-forgery token of a session (workers/shared/anti-forgery.ts) is an HMAC of its id's
 * hash: known to its pages, never stored.
 */

export const SESSION_COOKIE = 'mail_session';

/** The purpose of the session's anti-forgery tokens (their key's label). */
export const CSRF_PURPOSE = 'mail-csrf';

export const csrfTokenFor = (secret: string, idHash: string): Promise<string> => antiForgeryToken(secret, CSRF_PURPOSE, idHash);

export interface ActiveSession {
  user: SessionUser;
  idHash: string;
  csrfToken: string;
}

/** The mail assistant's sessions: its D1 rows under its policy (refresh tokens sealed as `mail-auth-refresh-token`). */
function mailSessions(c: MailContext): BrowserSessions<SessionUser> {
  const { config, db } = c.var;
  return new BrowserSessions(sessionStore(db), {
    service: 'mail',
    cookie: SESSION_COOKIE,
    cookiePath: '/',
    maxAgeSeconds: config.SESSION_MAX_AGE_SECONDS,
    upstream: {
      recheckSeconds: config.SESSION_RECHECK_SECONDS,
      sealing: { secret: config.MAIL_TOKEN_SECRET, label: 'mail-auth-refresh-token' },
      refresh: (token) => refreshSession(c, token),
    },
  });
}

/** Stores the session of a completed login and sets its cookie. */
export async function startSession(c: MailContext, login: VerifiedLogin, now = Date.now()): Promise<void> {
  const name = `${login.user.first_name} ${login.user.last_name}`.trim() || login.user.email;
  await mailSessions(c).start(c, { id: login.user.id, email: login.user.email, name }, login.refresh_token, now);
}

/**
 * The live session the cookie names, or undefined (also when the authentication service has just
 * ended it). A 502 `auth_unavailable` when that service has been unreachable for too long.
 */
export async function readSession(c: MailContext): Promise<ActiveSession | undefined> {
  const session = await mailSessions(c).read(c);
  if (session.kind === 'none') return undefined;
  return { user: session.profile, idHash: session.idHash, csrfToken: await csrfTokenFor(c.var.config.SESSION_SECRET, session.idHash) };
}

/** Deletes the caller's session row and cookie; answers the auth refresh token to revoke. */
export const endSession = (c: MailContext): Promise<string | undefined> => mailSessions(c).end(c);
