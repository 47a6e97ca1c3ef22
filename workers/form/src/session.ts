import type { Context } from 'hono';
import type { LiveSession } from '#durable-objects/live-session.ts';
import type { FormEnv } from './context.ts';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { fromBase64Url, hmacKey, hmacSha256, secretsEqual, toBase64Url } from '#shared/crypto.ts';
import { liveSession, newSessionId, SESSION_ID } from '#shared/live-session.ts';

// The session is a signed cookie `<payload>.<hmac>`, the payload holding the user name, the
// expiry, a random session id and a tag of the password it was opened with. The session id must
// be open in its LiveSession Durable Object (logout ends it there, at once), and the tag must
// match the configured password (changing ADMIN_PASSWORD ends every session); the expiry stops a
// copied cookie even if a browser keeps it.

export const SESSION_COOKIE = 'form_session';
/** Login-form token cookie (double submit: the page carries its HMAC, the cookie the nonce). */
export const LOGIN_TOKEN_COOKIE = 'form_login';
const COOKIE_PATH = '/form/';

export interface Session {
  username: string;
  expiresAt: number;
  /** Random id of the LiveSession that must still be open. */
  id: string;
  /** Tag of the password the session was opened with (see `passwordTag`). */
  passwordTag: string;
}

const encoder = new TextEncoder();

/** Strict base64url (no padding, no `+` or `/`): one spelling per cookie. */
const fromBase64url = (text: string) => (/^[A-Za-z0-9_-]*$/.test(text) ? (fromBase64Url(text) ?? undefined) : undefined);

/** Imported keys, kept for the isolate's life: every request checks a cookie with the same key. */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

function purposeKey(secret: string, purpose: string): Promise<CryptoKey> {
  // One secret, separate keys per purpose, so a login token can never pass as a session.
  const material = `${purpose}:${secret}`;
  let key = hmacKeys.get(material);
  if (!key) {
    key = hmacKey(material);
    hmacKeys.set(material, key);
  }
  return key;
}

async function sign(secret: string, purpose: string, value: string): Promise<string> {
  const key = await purposeKey(secret, purpose);
  return toBase64Url(await hmacSha256(key, value));
}

/** crypto.subtle.verify compares in constant time. */
async function verify(secret: string, purpose: string, value: string, signature: string): Promise<boolean> {
  const bytes = fromBase64url(signature);
  if (!bytes || bytes.length !== 32) return false;
  const key = await purposeKey(secret, purpose);
  return crypto.subtle.verify('HMAC', key, bytes, encoder.encode(value));
}

export async function encodeSession(secret: string, session: Session): Promise<string> {
  const payload = toBase64Url(
    encoder.encode(JSON.stringify({ u: session.username, exp: session.expiresAt, sid: session.id, pw: session.passwordTag })),
  );
  return `${payload}.${await sign(secret, 'session', payload)}`;
}

export async function decodeSession(secret: string, cookie: string | undefined, nowSeconds: number): Promise<Session | undefined> {
  if (!cookie || cookie.length > 1024) return undefined;
  const [payload, signature, extra] = cookie.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  if (!(await verify(secret, 'session', payload, signature))) return undefined;
  try {
    const bytes = fromBase64url(payload);
    const data: unknown = bytes && JSON.parse(new TextDecoder().decode(bytes));
    if (typeof data !== 'object' || data === null) return undefined;
    const username = Reflect.get(data, 'u');
    const expiresAt = Reflect.get(data, 'exp');
    const id = Reflect.get(data, 'sid');
    const passwordTag = Reflect.get(data, 'pw');
    if (typeof username !== 'string' || typeof expiresAt !== 'number' || expiresAt <= nowSeconds) return undefined;
    if (typeof id !== 'string' || !SESSION_ID.test(id) || typeof passwordTag !== 'string') return undefined;
    return { username, expiresAt, id, passwordTag };
  } catch {
    return undefined;
  }
}

const baseCookie = { path: COOKIE_PATH, httpOnly: true, secure: true, sameSite: 'Lax' } as const;

/** Tag of a password, kept in the session: a session opened under another password is no session. */
export const passwordTag = async (secret: string, password: string) => (await sign(secret, 'session-password', password)).slice(0, 22);

export interface SessionSettings {
  secret: string;
  password: string;
  sessions: DurableObjectNamespace<LiveSession>;
}

export const sessionSettings = (c: Context<FormEnv>): SessionSettings => ({
  secret: c.var.config.SESSION_SECRET,
  password: c.var.config.ADMIN_PASSWORD,
  sessions: c.env.SESSIONS,
});

export async function startSession(c: Context, settings: SessionSettings, username: string, maxAgeSeconds: number): Promise<void> {
  const expiresAt = Math.floor(Date.now() / 1000) + maxAgeSeconds;
  const id = newSessionId();
  await liveSession(settings.sessions, id).open(expiresAt * 1000);
  const cookie = await encodeSession(settings.secret, {
    username,
    expiresAt,
    id,
    passwordTag: await passwordTag(settings.secret, settings.password),
  });
  setCookie(c, SESSION_COOKIE, cookie, { ...baseCookie, maxAge: maxAgeSeconds });
}

/** The signed-in session: a valid cookie, opened under the current password, still open server-side. */
export async function readSession(c: Context, settings: SessionSettings): Promise<Session | undefined> {
  const session = await decodeSession(settings.secret, getCookie(c, SESSION_COOKIE), Math.floor(Date.now() / 1000));
  if (!session || session.passwordTag !== (await passwordTag(settings.secret, settings.password))) return undefined;
  return (await liveSession(settings.sessions, session.id).isLive()) ? session : undefined;
}

/** Ends the session server-side (its cookie stops working everywhere at once) and deletes the cookie. */
export async function endSession(c: Context, settings: SessionSettings, session: Session | undefined): Promise<void> {
  if (session) await liveSession(settings.sessions, session.id).end();
  deleteCookie(c, SESSION_COOKIE, baseCookie);
}

/** A fresh login-form token: the nonce goes in a cookie, its HMAC in the form. */
export async function issueLoginToken(c: Context, secret: string): Promise<string> {
  const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
  setCookie(c, LOGIN_TOKEN_COOKIE, nonce, { ...baseCookie, sameSite: 'Strict', maxAge: 3600 });
  return sign(secret, 'login-form', nonce);
}

export async function checkLoginToken(c: Context, secret: string, submitted: unknown): Promise<boolean> {
  const nonce = getCookie(c, LOGIN_TOKEN_COOKIE);
  if (!nonce || nonce.length > 64 || typeof submitted !== 'string' || submitted.length > 64) return false;
  return verify(secret, 'login-form', nonce, submitted);
}

/** Equal-time comparison of a submitted credential with the configured one (hashes first, so lengths never leak). */
export const credentialMatches = secretsEqual;
