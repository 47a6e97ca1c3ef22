import type { MiddlewareHandler } from 'hono';
import {
  type AntiForgeryOptions,
  antiForgeryToken as tokenOf,
  checkAntiForgery,
  formNonce,
  issueFormNonce,
  type NonceCookie,
} from '#shared/anti-forgery.ts';
import { type Access as SharedAccess, defineGuard } from '#shared/guard.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateEnv, Role } from './context.ts';
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

const CSRF_COOKIE: NonceCookie = { name: 'migrate_csrf', path: '/', sameSite: 'Lax' };
export const CSRF_FIELD = '__RequestVerificationToken';
export const CSRF_HEADER = 'RequestVerificationToken';
const CSRF_PURPOSE = 'migrate-anti-forgery';

/**
 * Anti-forgery, the shared mechanism (workers/shared/anti-forgery.ts): the same-origin check, and
 * a token bound to this browser: the HMAC of a random nonce kept in an HttpOnly cookie (the sign-in
 * form has it before any session), in every form (`__RequestVerificationToken`) and in the pages'
 * meta tag for scripts (`RequestVerificationToken` header). Sets `c.var.csrfToken` for the
 * response, creating the nonce when missing.
 */
export function antiForgeryToken(): MiddlewareHandler<MigrateEnv> {
  return async (c, next) => {
    const nonce = issueFormNonce(c, CSRF_COOKIE, true);
    c.set('csrfToken', await tokenOf(c.var.config.SESSION_SECRET, CSRF_PURPOSE, nonce));
    await next();
  };
}

const migrateAntiForgery: Omit<AntiForgeryOptions<MigrateEnv>, 'refuse'> = {
  token: {
    purpose: CSRF_PURPOSE,
    secret: (c) => c.var.config.SESSION_SECRET,
    binding: (c) => formNonce(c, CSRF_COOKIE),
    field: CSRF_FIELD,
    header: CSRF_HEADER,
    formAll: true,
  },
};

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
    if (antiForgery && (await checkAntiForgery(c, migrateAntiForgery))) {
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
