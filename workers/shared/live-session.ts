import type { LiveSession } from '#durable-objects/live-session.ts';
import { randomBytes, toBase64Url } from './crypto.ts';

// Server-side session revocation for services whose session is a signed cookie (the form
// service, the auth dashboard): the cookie carries a random session id, and the LiveSession
// Durable Object of that id says whether it is still open. Logout ends it there.

/** A new random session id (256 bits, base64url). */
export const newSessionId = () => toBase64Url(randomBytes(32));

/** Well-formed session ids only reach a Durable Object. */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export const liveSession = (sessions: DurableObjectNamespace<LiveSession>, id: string) => sessions.get(sessions.idFromName(id));
