import { type Context, Hono } from 'hono';
import { antiForgeryToken, checkAntiForgery, formNonce, issueFormNonce, type NonceCookie } from '#shared/anti-forgery.ts';
import { limitBody } from '#shared/body.ts';
import { anonymous } from '#shared/guard.ts';
import type { FormEnv } from '../context.ts';
import { signedIn } from '../guards.ts';
import { addressThrottle, clientAddress } from '#shared/throttle.ts';
import { COOKIE_PATH, credentialMatches, endSession, sessionSettings, startSession } from '../session.ts';
import { loginPage } from '../views/login.tsx';

export const login = new Hono<FormEnv>();

/**
 * The login form's anti-forgery token (workers/shared/anti-forgery.ts): there is no session yet,
 * so it is bound to a random nonce in the `form_login` cookie; the page carries its HMAC.
 */
const LOGIN_COOKIE: NonceCookie = { name: 'form_login', path: COOKIE_PATH, sameSite: 'Strict', maxAge: 3600 };
const LOGIN_PURPOSE = 'form-login-form';

const issueLoginToken = (c: Context<FormEnv>) =>
  antiForgeryToken(c.var.config.SESSION_SECRET, LOGIN_PURPOSE, issueFormNonce(c, LOGIN_COOKIE));

const loginAntiForgery = {
  token: {
    purpose: LOGIN_PURPOSE,
    secret: (c: Context<FormEnv>) => c.var.config.SESSION_SECRET,
    binding: (c: Context<FormEnv>) => formNonce(c, LOGIN_COOKIE),
    field: 'csrf_token',
  },
};

/** The login page again, with a fresh form token and what went wrong. */
async function loginAgain(c: Context<FormEnv>, status: 200 | 403 | 429, error: string, username: string) {
  const token = await issueLoginToken(c);
  return c.html(loginPage({ token, error, username: username.slice(0, 200) }), status);
}

/** Too many wrong pairs from this address: 429 with Retry-After, the page saying so. */
function tooManyAttempts(c: Context<FormEnv>, retryAfterSeconds: number, username: string) {
  c.header('Retry-After', String(retryAfterSeconds));
  return loginAgain(
    c,
    429,
    `Too many failed logins from your address. Try again in ${Math.ceil(retryAfterSeconds / 60)} minutes.`,
    username,
  );
}

login.get('/', anonymous, async (c) => {
  if (c.var.session) return c.redirect('/form/runner/', 302);
  return c.html(loginPage({ token: await issueLoginToken(c) }));
});

login.post(
  '/',
  // Open to anyone; the handler runs the anti-forgery check (same origin, the form's token).
  anonymous,
  limitBody<FormEnv>(16 * 1024, (c) => c.text('Login form too large', 413)),
  async (c) => {
    const config = c.var.config;
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const username = typeof form.username === 'string' ? form.username : '';
    const password = typeof form.password === 'string' ? form.password : '';
    if (await checkAntiForgery(c, loginAntiForgery))
      return loginAgain(c, 403, 'The login form expired or came from another site; please try again.', username);
    const throttle = addressThrottle(c.env.LOGIN_GUARD, 'form-login', clientAddress(c));
    const locked = await throttle.lockedFor();
    if (locked !== undefined) return tooManyAttempts(c, locked, username);
    // Both compared every time, so the answer takes as long whichever is wrong.
    const [userOk, passwordOk] = await Promise.all([
      credentialMatches(username, config.ADMIN_USERNAME),
      credentialMatches(password, config.ADMIN_PASSWORD),
    ]);
    if (!userOk || !passwordOk) {
      const lockedNow = await throttle.failed();
      if (lockedNow !== undefined) return tooManyAttempts(c, lockedNow, username);
      return loginAgain(c, 200, 'Invalid username or password.', username);
    }
    await startSession(c, sessionSettings(c), config.ADMIN_USERNAME, config.SESSION_MAX_AGE_SECONDS);
    return c.redirect('/form/runner/', 302);
  },
);

login.get('/logout/', signedIn, async (c) => {
  // The spec logs out on GET; a cross-site navigation (a link on another site) is not allowed to.
  if (c.req.header('sec-fetch-site') === 'cross-site') return c.redirect('/form/runner/', 302);
  await endSession(c, sessionSettings(c));
  return c.redirect('/form/', 302);
});
