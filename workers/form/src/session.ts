import type { Context } from 'hono';
import type { LiveSession } from '#durable-objects/live-session.ts';
import type { FormEnv } from './context.ts';
import { hmacKey, hmacSha256, secretsEqual, toBase64Url } from '#shared/crypto.ts';
import { BrowserSessions } from '#shared/browser-session.ts';
import { liveSessionStore } from '#shared/live-session.ts';

// The session is the shared browser session (workers/shared/browser-session.ts): the
// `form_session` cookie is an opaque random id naming a row kept in its LiveSession Durable Object
// (logout takes it away there, at once). The row holds the user name and a tag of the password the
// session was opened with, which must match the configured password (changing ADMIN_PASSWORD ends
// every session).

export const SESSION_COOKIE = 'form_session';
export const COOKIE_PATH = '/form/';

export interface Session {
  username: string;
  /** Tag of the password the session was opened with (see `passwordTag`). */
  passwordTag: string;
}

/** Imported keys, kept for the isolate's life: every request checks a cookie with the same key. */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

function purposeKey(secret: string, purpose: string): Promise<CryptoKey> {
  // One secret, separate keys per purpose (the password tag's own key).
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

/** A stored profile of this service's shape, or undefined. */
function profileOf(stored: unknown): Session | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const username: unknown = Reflect.get(stored, 'username');
  const tag: unknown = Reflect.get(stored, 'passwordTag');
  return typeof username === 'string' && typeof tag === 'string' ? { username, passwordTag: tag } : undefined;
}

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

const formSessions = (settings: SessionSettings, maxAgeSeconds: number) =>
  new BrowserSessions(liveSessionStore(settings.sessions, profileOf), {
    service: 'form',
    cookie: SESSION_COOKIE,
    cookiePath: COOKIE_PATH,
    maxAgeSeconds,
  });

export async function startSession(c: Context, settings: SessionSettings, username: string, maxAgeSeconds: number): Promise<void> {
  const tag = await passwordTag(settings.secret, settings.password);
  await formSessions(settings, maxAgeSeconds).start(c, { username, passwordTag: tag });
}

/** The signed-in session: its row still kept server-side, opened under the current password. */
export async function readSession(c: Context, settings: SessionSettings): Promise<Session | undefined> {
  const session = await formSessions(settings, 0).read(c);
  if (session.kind === 'none') return undefined;
  return session.profile.passwordTag === (await passwordTag(settings.secret, settings.password)) ? session.profile : undefined;
}

/** Ends the session server-side (its cookie stops working everywhere at once) and deletes the cookie. */
export async function endSession(c: Context, settings: SessionSettings): Promise<void> {
  await formSessions(settings, 0).end(c);
}

/** Equal-time comparison of a submitted credential with the configured one (hashes first, so lengths never leak). */
export const credentialMatches = secretsEqual;
