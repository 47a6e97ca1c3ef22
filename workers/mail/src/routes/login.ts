import { type Context, Hono } from 'hono';
import { anonymous } from '#shared/guard.ts';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { antiForgeryToken, checkAntiForgery, formNonce, issueFormNonce, type NonceCookie } from '#shared/anti-forgery.ts';
import { HttpError } from '#shared/http-error.ts';
import { finishLogin, revokeSession, startLogin } from '#shared/auth-client.ts';
import type { MailEnv } from '../context.ts';
import { csrf, limitBody, pageSession } from '../guards.ts';
import { endSession, readSession, startSession } from '../session.ts';
import { loginPage, type Step } from '../views/login.tsx';

/**
 * Sign-in through the authentication service: e-mail and password, then the TOTP code. Both
 * steps post to /login (or /); the pending login waits in an HttpOnly cookie between them. The
 * form carries the shared anti-forgery token (workers/shared/anti-forgery.ts) bound to a nonce in
 * the `mail_login_form` cookie (there is no session yet), against login CSRF.
 */

const FORM_COOKIE: NonceCookie = { name: 'mail_login_form', path: '/', sameSite: 'Strict', maxAge: 3600 };
const FORM_PURPOSE = 'mail-login-form';
const PENDING_COOKIE = 'mail_login_pending';
const PENDING_SECONDS = 300;
const cookieOptions = { path: '/', httpOnly: true, secure: true, sameSite: 'Strict' } as const;

const issueFormToken = (c: Context<MailEnv>) => antiForgeryToken(c.var.config.SESSION_SECRET, FORM_PURPOSE, issueFormNonce(c, FORM_COOKIE));

const loginAntiForgery = {
  token: {
    purpose: FORM_PURPOSE,
    secret: (c: Context<MailEnv>) => c.var.config.SESSION_SECRET,
    binding: (c: Context<MailEnv>) => formNonce(c, FORM_COOKIE),
    field: 'csrf_token',
  },
};

/** Only a path of this service: never an open redirect. */
const safeNext = (next: unknown) => (typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]{0,500}$/.test(next) ? next : '/outlook');

const PasswordStep = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'E-mail is required.')
    .max(320, 'E-mail is too long.')
    .refine((v) => !v.includes('\u0000'), 'E-mail holds a NUL character.'),
  password: z
    .string()
    .min(1, 'Password is required.')
    .max(1024, 'Password is too long.')
    .refine((v) => !v.includes('\u0000'), 'Password holds a NUL character.'),
});
const CodeStep = z.object({
  code: z
    .string()
    .trim()
    .regex(/^(\d{6}|[a-z0-9]{4}-[a-z0-9]{4})$/i, 'The code is 6 digits or a backup code (xxxx-xxxx).'),
});

export const login = new Hono<MailEnv>();

async function showForm(c: Context<MailEnv>) {
  const next = safeNext(c.req.query('next'));
  if (await readSession(c)) return c.redirect(next, 302);
  const step: Step = getCookie(c, PENDING_COOKIE) && c.req.query('step') === 'code' ? 'code' : 'password';
  return c.html(loginPage({ token: await issueFormToken(c), step, next }));
}

async function submit(c: Context<MailEnv>) {
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const next = safeNext(form.next);
  const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
  const again = async (status: 400 | 403 | 429 | 502, step: Step, error: string) =>
    c.html(loginPage({ token: await issueFormToken(c), step, error, email, next }), status);
  const refusal = await checkAntiForgery(c, loginAntiForgery);
  if (refusal?.kind === 'cross-site') return again(403, 'password', 'The login form came from another site.');
  if (refusal) return again(403, 'password', 'The login form expired; please try again.');
  try {
    if ('code' in form) {
      const pending = getCookie(c, PENDING_COOKIE);
      if (!pending) return again(400, 'password', 'No sign-in in progress (or it took longer than 5 minutes): start again.');
      const parsed = CodeStep.safeParse(form);
      if (!parsed.success) return again(400, 'code', parsed.error.issues[0]!.message);
      const verified = await finishLogin(c, pending, parsed.data.code);
      deleteCookie(c, PENDING_COOKIE, cookieOptions);
      try {
        await startSession(c, verified);
      } catch (err) {
        await revokeSession(c, verified.refresh_token).catch(() => false);
        throw err;
      }
      return c.redirect(next, 302);
    }
    const parsed = PasswordStep.safeParse(form);
    if (!parsed.success) return again(400, 'password', parsed.error.issues[0]!.message);
    const pending = await startLogin(c, parsed.data.email, parsed.data.password, c.var.config.MAIL_AUTH_SITE);
    setCookie(c, PENDING_COOKIE, pending, { ...cookieOptions, maxAge: PENDING_SECONDS });
    return c.html(loginPage({ token: await issueFormToken(c), step: 'code', email, next }), 200);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const step: Step = 'code' in form && err.status === 400 ? 'code' : 'password';
    if (err.status === 429) c.header('Retry-After', String(err.details?.retryAfterSeconds ?? 60));
    return again(err.status === 429 ? 429 : err.status === 400 ? 400 : 502, step, err.message);
  }
}

const formLimit = limitBody(16 * 1024);
login.get('/', anonymous, showForm);
login.get('/login', anonymous, showForm);
login.post('/', anonymous, formLimit, submit);
login.post('/login', anonymous, formLimit, submit);

async function logout(c: Context<MailEnv>) {
  const refreshToken = await endSession(c);
  if (refreshToken) c.executionCtx.waitUntil(revokeSession(c, refreshToken).catch(() => false));
  return c.redirect('/login', 302);
}

// The spec logs out on GET; a navigation from another site is not allowed to. The page's own
// button posts the form with the session's anti-forgery token.
login.get(
  '/logout',
  pageSession,
  async (c, next) => {
    if (c.req.header('sec-fetch-site') === 'cross-site') return c.redirect('/outlook', 302);
    await next();
  },
  logout,
);
login.post('/logout', pageSession, formLimit, csrf, logout);
