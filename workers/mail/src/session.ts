import { eq, lt } from 'drizzle-orm';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sessions } from '../../../d1/mail/schema';
import { derivedKey } from '../../shared/derived-key';
import { randomBytes, sha256Hex, toBase64Url, utf8 } from '../../shared/encoding';
import type { MailContext, SessionUser } from './context';
import type { VerifiedLogin } from './auth-client';
import { open, seal } from './sealing';

/**
 * The service's own session: an opaque cookie (256 random bits) naming a D1 row keyed by its
 * SHA-256. Logout deletes the row, so the cookie stops working at once, copies included.
 * The anti-forgery token of a session is an HMAC of its id: known to its pages, never stored.
 */

export const SESSION_COOKIE = 'mail_session';
const COOKIE_OPTIONS = { path: '/', httpOnly: true, secure: true, sameSite: 'Lax' } as const;

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
    refreshTokenSealed: await seal(config.MAIL_TOKEN_SECRET, 'auth-refresh-token', idHash, login.refresh_token),
    createdAt: now,
    expiresAt: now + config.SESSION_MAX_AGE_SECONDS * 1000,
  });
  c.executionCtx.waitUntil(db.delete(sessions).where(lt(sessions.expiresAt, now)).run().catch(() => {}));
  setCookie(c, SESSION_COOKIE, id, { ...COOKIE_OPTIONS, maxAge: config.SESSION_MAX_AGE_SECONDS });
}

/** The live session the cookie names, or undefined. */
export async function readSession(c: MailContext): Promise<ActiveSession | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const idHash = await sha256Hex(id);
  const row = await c.var.db.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
  if (!row || row.expiresAt <= Date.now()) return undefined;
  return {
    user: { id: row.userId, email: row.email, name: row.name },
    idHash,
    csrfToken: await csrfTokenFor(c.var.config.SESSION_SECRET, idHash),
  };
}

/** Deletes the caller's session row and cookie; answers the auth refresh token to revoke. */
export async function endSession(c: MailContext): Promise<string | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  deleteCookie(c, SESSION_COOKIE, COOKIE_OPTIONS);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const idHash = await sha256Hex(id);
  const row = await c.var.db.delete(sessions).where(eq(sessions.idHash, idHash)).returning().get();
  if (!row) return undefined;
  return open(c.var.config.MAIL_TOKEN_SECRET, 'auth-refresh-token', idHash, row.refreshTokenSealed);
}
