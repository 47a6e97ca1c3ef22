import { Hono } from 'hono';
import { z } from 'zod';
import { finishLogin, revokeSession, startLogin } from '#shared/auth-client.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext, MigrateEnv } from '../context.ts';
import { guard } from '../guards.ts';
import { formBody, text } from '../input.ts';
import { endSession, roleFromPermissions, startSession } from '../session.ts';
import { LoginPage, VerifyPage } from '../views/account.tsx';

/** The Account controller: the only anonymous pages (spec 002 A, Authentication 1). */
export const account = new Hono<MigrateEnv>();

const LoginForm = z.object({ email: text(254).trim().min(1, 'is required'), password: text(1024).min(1, 'is required') });
const VerifyForm = z.object({
  pendingToken: text(512).min(1, 'is required'),
  email: text(254).default(''),
  code: text(32).trim().min(1, 'is required'),
});
const VerifyQuery = z.object({ pendingToken: text(512).min(1), email: text(254).default('') });

const REASONS: Record<string, string> = {
  expired: 'Your session expired; sign in again.',
  signedout: 'You are signed out.',
};

/**
 * The authentication service's refusal in this form's words: it names a site field this form does
 * not have, and says nothing of what was typed.
 */
function refusalText(outcome: HttpError, typed: { email: string; code?: string }): string {
  if (outcome.status !== 400) return outcome.message;
  if (typed.code === undefined && /^invalid email, password/i.test(outcome.message)) {
    return `The password is not the one for ${typed.email}, or no account signs in with that address here. Check both and try again.`;
  }
  if (typed.code !== undefined && /^invalid code/i.test(outcome.message)) {
    return `The code ${typed.code} is not accepted${typed.email ? ` for ${typed.email}` : ''}: enter the 6-digit code your authenticator app shows now, or an unused backup code.`;
  }
  return outcome.message;
}

/** A step that did not succeed: the form again, with the status that says why. */
function failureStatus(outcome: HttpError, c: MigrateContext): 200 | 429 | 502 {
  if (outcome.status === 429) {
    c.header('Retry-After', String(outcome.details?.retryAfterSeconds ?? 60));
    return 429;
  }
  return outcome.status === 400 ? 200 : 502;
}

/** A login step's refusal or an outage of the authentication service, to show on the form; anything else goes on. */
async function step<T>(run: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: HttpError }> {
  try {
    return { ok: true, value: await run };
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, error: err };
    throw err;
  }
}

account.get('/Account/Login', guard.read('anonymous'), (c) => {
  const reason = c.req.query('reason');
  return c.html(LoginPage({ csrf: c.var.csrfToken, notice: reason ? REASONS[reason] : undefined }));
});

account.post('/Account/Login', guard.write('anonymous'), async (c) => {
  const input = LoginForm.safeParse(await formBody(c));
  if (!input.success) {
    return c.html(LoginPage({ csrf: c.var.csrfToken, error: 'Enter your e-mail address and password.' }), 400);
  }
  const { email, password } = input.data;
  const outcome = await step(startLogin(c, email, password, c.var.config.MIGRATE_AUTH_SITE));
  if (outcome.ok) {
    const next = new URLSearchParams({ pendingToken: outcome.value, email });
    return c.redirect(`/Account/Verify?${next}`, 302);
  }
  return c.html(LoginPage({ csrf: c.var.csrfToken, error: refusalText(outcome.error, { email }), email }), failureStatus(outcome.error, c));
});

account.get('/Account/Verify', guard.read('anonymous'), (c) => {
  const input = VerifyQuery.safeParse({ pendingToken: c.req.query('pendingToken'), email: c.req.query('email') });
  if (!input.success) return c.redirect('/Account/Login', 302);
  return c.html(VerifyPage({ csrf: c.var.csrfToken, pendingToken: input.data.pendingToken, email: input.data.email }));
});

account.post('/Account/Verify', guard.write('anonymous'), async (c) => {
  const input = VerifyForm.safeParse(await formBody(c));
  if (!input.success) {
    const body = await formBody(c);
    const pendingToken =
      typeof body.pendingToken === 'string' && !body.pendingToken.includes('\u0000') ? body.pendingToken.slice(0, 512) : '';
    if (!pendingToken) return c.redirect('/Account/Login', 302);
    return c.html(
      VerifyPage({ csrf: c.var.csrfToken, pendingToken, email: '', error: 'Enter the 6-digit code from your authenticator app.' }),
      400,
    );
  }
  const { pendingToken, email, code } = input.data;
  const outcome = await step(finishLogin(c, pendingToken, code));
  if (!outcome.ok) {
    return c.html(
      VerifyPage({ csrf: c.var.csrfToken, pendingToken, email, error: refusalText(outcome.error, { email, code }) }),
      failureStatus(outcome.error, c),
    );
  }
  const role = roleFromPermissions(outcome.value.permissions);
  if (!role) {
    await revokeSession(c, outcome.value.refresh_token).catch(() => false);
    return c.html(
      LoginPage({ csrf: c.var.csrfToken, error: 'Your account has no role (Admin, Operator or Viewer) in the migration app.', email }),
      403,
    );
  }
  await startSession(c, outcome.value, role);
  return c.redirect('/', 302);
});

account.post('/Account/Logout', guard.write('anonymous'), async (c) => {
  await endSession(c);
  return c.redirect('/Account/Login', 302);
});
