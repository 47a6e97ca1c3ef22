import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { antiForgery, antiForgeryToken } from '#shared/anti-forgery.ts';
import { limitBody } from '#shared/body.ts';
import { sha256Hex } from '#shared/crypto.ts';
import { anonymous, defineGuard } from '#shared/guard.ts';
import { BrowserSessions } from '#shared/browser-session.ts';
import { liveSessionStore } from '#shared/live-session.ts';
import { audit } from '../../audit.ts';
import { findAccount, sitelessPasswordHash } from '../../data/accounts.ts';
import type { AuthAccess } from '../../client-secret.ts';
import { authDeps, checkCode, checkPassword } from '../../login.ts';
import { codePage, loginPage } from '../../views/dashboard/session.tsx';
import { type DashboardEnv, form } from './common.ts';

/** Signing in (password, then code), out, and the check every other dashboard page sits behind. */
export const session = new Hono<DashboardEnv>();

const DASHBOARD_BODY_BYTES = 16 * 1024;
/**
 * Every form post: refused from another site (the shared anti-forgery check,
 * workers/shared/anti-forgery.ts; a post naming no source at all is refused too), then read through
 * a byte cap.
 */
const formChecks: MiddlewareHandler<DashboardEnv>[] = [
  antiForgery<DashboardEnv>({ requireSource: true, refuse: (c) => c.text('Forbidden', 403) }),
  limitBody<DashboardEnv>(DASHBOARD_BODY_BYTES, (c) => c.text(`The form is larger than ${DASHBOARD_BODY_BYTES} bytes.`, 413)),
];

/** The sign-in and sign-out forms: open to anyone, but only posted from the dashboard's own pages. */
const signInForm = defineGuard<DashboardEnv, AuthAccess>({ access: 'anonymous', antiForgery: true }, every(...formChecks));

const SESSION_COOKIE = '__Host-auth_dashboard';
const SESSION_SECONDS = 3600;

/** What a dashboard session keeps: the administrator, and a tag of the password they signed in with. */
type DashboardSession = { userId: number; passwordTag: string };

function profileOf(stored: unknown): DashboardSession | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const userId: unknown = Reflect.get(stored, 'userId');
  const tag: unknown = Reflect.get(stored, 'passwordTag');
  return typeof userId === 'number' && Number.isSafeInteger(userId) && typeof tag === 'string' ? { userId, passwordTag: tag } : undefined;
}

/**
 * The dashboard's sessions: the shared browser session (an opaque cookie naming a row kept in its
 * LiveSession object, so logout ends it at once everywhere), strict same-site, an hour long.
 */
const dashboardSessions = (c: Context<DashboardEnv>) =>
  new BrowserSessions(liveSessionStore(c.env.SESSIONS, profileOf), {
    service: 'auth',
    cookie: SESSION_COOKIE,
    cookiePath: '/',
    sameSite: 'Strict',
    maxAgeSeconds: SESSION_SECONDS,
  });

session.get('/admin', anonymous, (c) => c.redirect('/admin/'));
session.get('/admin/login/', anonymous, (c) => c.html(loginPage()));

session.post('/admin/login/', signInForm, async (c) => {
  const fields = await form(c);
  const email = (fields.email ?? '').slice(0, 254);
  const password = (fields.password ?? '').slice(0, 1024);
  if (!email || !password) return c.html(loginPage('Enter your e-mail and password.'), 400);
  // The dashboard signs in with the account's siteless credential.
  const result = await checkPassword(authDeps(c), { email, password, site: '' }, 'dashboard');
  if (result.kind === 'pending') return c.html(codePage(result.pendingToken));
  if (result.kind === 'throttled') return c.html(loginPage('Too many attempts. Try again later.'), 429);
  if (result.kind === 'not_enrolled') return c.html(loginPage('This account is not enrolled in two-factor authentication.'), 400);
  return c.html(loginPage('Invalid e-mail or password.'), 400);
});

session.post('/admin/verify/', signInForm, async (c) => {
  const fields = await form(c);
  const pendingToken = (fields.pending_token ?? '').slice(0, 256);
  const code = (fields.code ?? '').slice(0, 32);
  const result = await checkCode(authDeps(c), { pendingToken, code }, 'dashboard');
  if (result.kind === 'invalid_code') return c.html(codePage(pendingToken, 'Invalid code.'), 400);
  if (result.kind === 'throttled') return c.html(loginPage('Too many attempts. Try again later.'), 429);
  if (result.kind === 'invalid_token') return c.html(loginPage('The sign-in has expired; start again.'), 400);
  if (result.user.role !== 'admin') return c.html(loginPage('Only administrators can use this session.'), 403);
  await audit(c.var.db, 'dashboard_login', { userId: result.user.id, email: result.user.email, ip: c.var.ip });
  await dashboardSessions(c).start(c, { userId: result.user.id, passwordTag: await passwordTag(c, result.user.id) });
  return c.redirect('/admin/', 303);
});

session.post('/admin/logout/', signInForm, async (c) => {
  // Ended server-side: the cookie stops working at once, even where a copy of it survives.
  await dashboardSessions(c).end(c);
  return c.redirect('/admin/login/', 303);
});

/**
 * Tag of the account's siteless password (the one the dashboard signs in with), kept in the
 * session: setting a new password there ends every dashboard session opened under the old one.
 */
async function passwordTag(c: Context<DashboardEnv>, userId: number): Promise<string> {
  const passwordHash = await sitelessPasswordHash(c.var.db, userId);
  return passwordHash ? (await sha256Hex(passwordHash)).slice(0, 32) : 'none';
}

/**
 * Everything else needs a signed-in, still active administrator, checked on every request: a
 * session still open (not logged out), opened under the account's current password.
 */
const requireAdmin: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const session = await dashboardSessions(c).read(c);
  if (session.kind === 'live') {
    const admin = await findAccount(c.var.db, session.profile.userId);
    if (admin?.isActive && admin.role === 'admin' && (await passwordTag(c, admin.id)) === session.profile.passwordTag) {
      c.set('admin', admin);
      c.set('dashboardSession', session.idHash);
      c.set('csrfToken', await antiForgeryToken(c.var.config.AUTH_TOKEN_SECRET, CSRF_PURPOSE, session.idHash));
      return next();
    }
  }
  return c.redirect('/admin/login/', 303);
};

/** The dashboard's pages (GET): a signed-in administrator's session, else to the sign-in form. */
export const adminPage = defineGuard<DashboardEnv, AuthAccess>({ access: 'admin', browserSession: true }, requireAdmin);

/** The purpose of the dashboard session's anti-forgery tokens (their key's label). */
const CSRF_PURPOSE = 'auth-dashboard-csrf';

/**
 * The administrator's forms also carry the session's token (`csrf_token`, an HMAC of the session
 * id's hash; workers/shared/anti-forgery.ts): 403 `Forbidden` without it or with another's.
 */
const sessionToken = antiForgery<DashboardEnv>({
  token: {
    purpose: CSRF_PURPOSE,
    secret: (c) => c.var.config.AUTH_TOKEN_SECRET,
    binding: (c) => c.var.dashboardSession,
    field: 'csrf_token',
  },
  refuse: (c) => c.text('Forbidden', 403),
});

/** The dashboard's forms (POST): the form checks, an administrator's session, then its token. */
export const adminForm = defineGuard<DashboardEnv, AuthAccess>(
  { access: 'admin', antiForgery: true, browserSession: true },
  every(...formChecks, requireAdmin, sessionToken),
);
