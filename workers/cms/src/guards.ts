import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { antiForgery, forbiddenOrigin } from '#shared/anti-forgery.ts';
import { limitBody } from '#shared/body.ts';
import { defineGuard } from '#shared/guard.ts';
import { HttpError } from '#shared/http-error.ts';
import type { CmsEnv } from './context.ts';
import { requireEditor, requireSession } from './session.ts';

/**
 * The CMS's guards, one named in each route's definition (workers/shared/guard.ts): who may call
 * it, with the checks every /api request of that kind gets ahead of its handler: writes only
 * from this service's or an editor's origin, JSON bodies capped, then the session and the role.
 */

/** Who may call a CMS route: anyone, a signed-in user (reads), or an editing role (writes). */
export type CmsAccess = 'session' | 'editor';

/** JSON bodies (stories with their content) are capped here; media bytes go straight to R2. */
export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Cookie-authenticated writes must come from this service's own origin or a configured editor
 * origin, and never from a request the browser marks `Sec-Fetch-Site: cross-site`, whatever its
 * Origin says (the shared anti-forgery check, workers/shared/anti-forgery.ts, in its same-origin
 * part: the API's clients send JSON, and the spec gives them no token). SameSite=Lax already keeps
 * other sites' form posts from carrying the cookie; this also covers sibling hosts of the same site
 * and the login steps (login CSRF).
 */
const sameOriginWrites: MiddlewareHandler<CmsEnv> = antiForgery<CmsEnv>({
  allowedOrigins: (c) => c.var.config.CMS_EDITOR_ORIGINS,
  refuse: (_c, refusal) => {
    throw forbiddenOrigin(refusal);
  },
});

const jsonLimit = limitBody<CmsEnv>(MAX_JSON_BYTES, () => {
  throw new HttpError(413, 'payload_too_large', `The request body is larger than ${MAX_JSON_BYTES} bytes.`);
});

/** The two login steps: open to anyone, posted only from this service's or an editor's origin. */
export const signIn = defineGuard<CmsEnv, CmsAccess>({ access: 'anonymous', antiForgery: true }, every(sameOriginWrites, jsonLimit));

/**
 * Local signed uploads: no session, the upload address's own signature is checked by the handler;
 * the file bytes have their own per-gallery limit rather than the JSON cap.
 */
export const signedUpload = defineGuard<CmsEnv, CmsAccess>(
  { access: 'anonymous', antiForgery: true, requires: 'upload-signature' },
  sameOriginWrites,
);

/** Reading content (and signing out): a live session, any role. */
export const reader = defineGuard<CmsEnv, CmsAccess>(
  { access: 'session', antiForgery: true, browserSession: true },
  every(sameOriginWrites, jsonLimit, requireSession()),
);

/** Changing content (and asking for an upload address): a live session of an editing role. */
export const editor = defineGuard<CmsEnv, CmsAccess>(
  { access: 'editor', antiForgery: true, browserSession: true },
  every(sameOriginWrites, jsonLimit, requireSession(), requireEditor()),
);
