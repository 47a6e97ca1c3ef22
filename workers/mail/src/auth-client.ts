import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import type { MailContext } from './context.ts';

/**
 * The authentication service (spec 001 A) over the AUTH service binding: e-mail and password,
 * then the TOTP code; revoke at logout. Anything off its contract (timeout, 5xx, odd body) is a
 * 502, never a half-made session.
 */

const TIMEOUT_MS = 5_000;

const Failure = z.object({ success: z.literal(false), error: z.string() });
const Pending = z.object({ success: z.literal(true), pending_token: z.string().min(1) });
const Verified = z.object({
  success: z.literal(true),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  user: z.object({ id: z.number().int(), email: z.string(), first_name: z.string(), last_name: z.string() }),
});
export type VerifiedLogin = z.output<typeof Verified>;
const Rotated = z.object({ success: z.literal(true), refresh_token: z.string().min(1) });

/** What a session recheck comes back with: a rotated refresh token, or the session is over. */
export type RefreshOutcome = { kind: 'rotated'; refreshToken: string } | { kind: 'ended'; status: 401 | 403; reason: string };

async function call(c: MailContext, path: string, body: unknown) {
  let res: Response;
  try {
    const ip = c.req.header('cf-connecting-ip');
    res = await c.env.AUTH.fetch(`https://auth.internal${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-auth-client-secret': c.var.config.AUTH_CLIENT_SECRET,
        'x-request-id': c.var.requestId,
        ...(ip ? { 'x-auth-client-ip': ip } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw unavailable(`${path} did not answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  const json: unknown = await res.json().catch(() => undefined);
  return { status: res.status, json, retryAfter: res.headers.get('retry-after') };
}

function unavailable(detail: string): HttpError {
  return new HttpError(502, 'auth_unavailable', 'The authentication service could not be reached; try again shortly.', { detail });
}

function rejection(status: number, json: unknown, path: string, retryAfter: string | null): HttpError {
  const failure = Failure.safeParse(json);
  const message = failure.success ? failure.data.error : 'The authentication service refused the request.';
  if (status === 400) return new HttpError(400, 'login_failed', message);
  if (status === 429) return new HttpError(429, 'too_many_attempts', message, { retryAfterSeconds: Number(retryAfter) || 60 });
  return unavailable(`${path} answered ${status}`);
}

/** Step 1: e-mail and password; answers the pending token step 2 needs. */
export async function startLogin(c: MailContext, email: string, password: string): Promise<string> {
  const path = '/api/login/';
  const site = c.var.config.MAIL_AUTH_SITE;
  const { status, json, retryAfter } = await call(c, path, { email, password, ...(site ? { site } : {}) });
  if (status !== 200) throw rejection(status, json, path, retryAfter);
  const pending = Pending.safeParse(json);
  if (!pending.success) throw unavailable(`${path} answered off contract`);
  return pending.data.pending_token;
}

/** Step 2: the TOTP (or backup) code. */
export async function finishLogin(c: MailContext, pendingToken: string, code: string): Promise<VerifiedLogin> {
  const path = '/api/verify-2fa/';
  const { status, json, retryAfter } = await call(c, path, { pending_token: pendingToken, code });
  if (status !== 200) throw rejection(status, json, path, retryAfter);
  const verified = Verified.safeParse(json);
  if (!verified.success) throw unavailable(`${path} answered off contract`);
  return verified.data;
}

/**
 * Rotates the refresh token: proves the account is still active and the session not revoked.
 * A 401 (revoked, expired, reused) or 403 (account deactivated) ends the session; anything else
 * but a 200 on contract is the service being unavailable (502).
 */
export async function refreshSession(c: MailContext, refreshToken: string): Promise<RefreshOutcome> {
  const path = '/api/token/refresh/';
  const { status, json } = await call(c, path, { refresh_token: refreshToken });
  if (status === 200) {
    const rotated = Rotated.safeParse(json);
    if (!rotated.success) throw unavailable(`${path} answered off contract`);
    return { kind: 'rotated', refreshToken: rotated.data.refresh_token };
  }
  if (status === 401 || status === 403) {
    const failure = Failure.safeParse(json);
    return { kind: 'ended', status, reason: failure.success ? failure.data.error : 'session ended' };
  }
  throw unavailable(`${path} answered ${status}`);
}

/** Ends the refresh family at the authentication service (best effort at logout). */
export async function revokeLogin(c: MailContext, refreshToken: string): Promise<boolean> {
  const { status } = await call(c, '/api/token/revoke/', { refresh_token: refreshToken });
  return status === 200;
}
