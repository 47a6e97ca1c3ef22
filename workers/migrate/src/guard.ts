import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { derivedKey, fromBase64Url, randomBytes, toBase64Url, utf8 } from '#shared/crypto.ts';
import { type Access as SharedAccess, defineGuard } from '#shared/guard.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext, MigrateEnv, Role } from './context.ts';
import { checkSession } from './session.ts';

/**
 * Access control is part of each route's definition (workers/shared/guard.ts): every route passes
 * one of these guards in its own `app.get(path, guard, handler)` /
 * `createRoute({ middleware: [guard] })` call, and a test walks `app.routes` to prove none is
 * missing. A guard states who may call the route
 * (anonymous, any signed-in role, Admin or Operator, Admin) and whether it checks anti-forgery
 * (every POST does).
 */

export type Access = SharedAccess<'any' | 'operator' | 'admin'>;

const ALLOWED: Record<Exclude<Access, 'anonymous'>, readonly Role[]> = {
  any: ['Admin', 'Operator', 'Viewer'],
  operator: ['Admin', 'Operator'],
  admin: ['Admin'],
};

export const CSRF_COOKIE = 'migrate_csrf';
export const CSRF_FIELD = '__RequestVerificationToken';
export const CSRF_HEADER = 'RequestVerificationToken';

const csrfKey = (secret: string) =>
  derivedKey(secret, 'migrate-anti-forgery', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign', 'verify']);

/**
 * Anti-forgery (double submit): a random nonce in an HttpOnly cookie, its HMAC in every form
 * (`__RequestVerificationToken`) and in the pages' meta tag for scripts (`RequestVerificationToken`
 * header). Sets `c.var.csrfToken` for the response, creating the nonce when missing.
 */
export function antiForgeryToken(): MiddlewareHandler<MigrateEnv> {
  return async (c, next) => {
    let nonce = getCookie(c, CSRF_COOKIE);
    if (!nonce || !/^[A-Za-z0-9_-]{32}$/.test(nonce)) {
      nonce = toBase64Url(randomBytes(24));
      setCookie(c, CSRF_COOKIE, nonce, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    }
    const mac = await crypto.subtle.sign('HMAC', await csrfKey(c.var.config.SESSION_SECRET), utf8(nonce));
    c.set('csrfToken', toBase64Url(new Uint8Array(mac)));
    await next();
  };
}

async function antiForgeryValid(c: MigrateContext): Promise<boolean> {
  const origin = c.req.header('origin');
  // A browser names the page that sent the request: another origin is a forged post whatever it carries.
  if (origin && origin !== new URL(c.req.url).origin) return false;
  if (!origin && c.req.header('sec-fetch-site') === 'cross-site') return false;
  const nonce = getCookie(c, CSRF_COOKIE);
  if (!nonce || !/^[A-Za-z0-9_-]{32}$/.test(nonce)) return false;
  let submitted = c.req.header(CSRF_HEADER);
  if (!submitted) {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      const form = await c.req.parseBody({ all: true }).catch(() => undefined);
      const value = form?.[CSRF_FIELD];
      submitted = typeof value === 'string' ? value : undefined;
    }
  }
  const mac = submitted && submitted.length < 100 ? fromBase64Url(submitted) : null;
  if (!mac || mac.length !== 32) return false;
  return crypto.subtle.verify('HMAC', await csrfKey(c.var.config.SESSION_SECRET), mac, utf8(nonce));
}

function makeGuard(access: Access, antiForgery: boolean, json: boolean): MiddlewareHandler<MigrateEnv> {
  // Every caller of this app is a browser: signed in by the session cookie, or signing in.
  return defineGuard<MigrateEnv>({ access, antiForgery, browserSession: true }, async (c, next) => {
    // Failures of JSON routes (403, 404, 400) come back as JSON bodies, of pages as pages.
    c.set('answerJson', json);
    if (access !== 'anonymous') {
      const session = await checkSession(c);
      // Spec: an expired or invalid token redirects to the login page, JSON routes included.
      if (session.kind === 'signed-out')
        return c.redirect(session.reason ? `/Account/Login?reason=${session.reason}` : '/Account/Login', 302);
      c.set('user', session.user);
    }
    if (antiForgery && !(await antiForgeryValid(c))) {
      throw new HttpError(
        403,
        'antiforgery_failed',
        'The form expired or came from another site (anti-forgery check failed); reload the page and try again.',
      );
    }
    if (access !== 'anonymous' && !ALLOWED[access].includes(c.var.user.role)) {
      throw new HttpError(403, 'forbidden', `This needs the role ${ALLOWED[access].join(' or ')}; you are ${c.var.user.role}.`);
    }
    await next();
  });
}

/**
 * `read`: a GET (page or JSON); `write`: a POST, with anti-forgery. `json` makes failures JSON.
 * Each call makes a new middleware, so every route's guard is its own registered function.
 */
export const guard = {
  read: (access: Access, options: { json?: boolean } = {}) => makeGuard(access, false, options.json ?? false),
  write: (access: Access, options: { json?: boolean } = {}) => makeGuard(access, true, options.json ?? false),
};
