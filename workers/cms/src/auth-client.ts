import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import type { CmsContext } from './context.ts';

/**
 * The authentication service (spec 001 A) over its service binding. Every answer is checked
 * against that service's contract; anything else (a timeout, a 5xx, a body off contract) is a 502,
 * never a half-made session.
 */

const TIMEOUT_MS = 5_000;

const Failure = z.object({ success: z.literal(false), error: z.string() });
const Pending = z.object({ success: z.literal(true), pending_token: z.string().min(1) });
const Tokens = z.object({
  success: z.literal(true),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number(),
});
const Verified = Tokens.extend({
  user: z.object({ id: z.number().int(), email: z.string(), first_name: z.string(), last_name: z.string(), role: z.string() }),
});
const WhoAmI = z.object({ user_name: z.string(), user_permissions: z.string() });
const Revoked = z.object({ success: z.boolean() });

export type VerifiedLogin = z.output<typeof Verified> & { permissions: string };

/** What a refresh or a check can come back with: a rotated token, or the session is over. */
export type RefreshOutcome = { kind: 'rotated'; refreshToken: string } | { kind: 'ended'; status: 401 | 403; reason: string };

async function call(c: CmsContext, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  let res: Response;
  try {
    res = await c.env.AUTH.fetch(`https://auth.internal${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'x-auth-client-secret': c.var.config.AUTH_CLIENT_SECRET }),
        'x-request-id': c.var.requestId,
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
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

function parsed<T extends z.ZodType>(schema: T, value: unknown, path: string, status: number): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw unavailable(`${path} answered ${status} off contract`);
  return result.data;
}

/** The auth service's own message for a 400 (wrong credentials, bad code), else a generic one. */
function rejection(status: number, json: unknown, path: string, retryAfter: string | null): HttpError {
  const failure = Failure.safeParse(json);
  const message = failure.success ? failure.data.error : 'The authentication service refused the request.';
  if (status === 400) return new HttpError(400, 'login_failed', message);
  // Retry-After passed on from the authentication service; a minute when it named none.
  if (status === 429) return new HttpError(429, 'too_many_attempts', message, { retryAfterSeconds: Number(retryAfter) || 60 });
  // 401 here means our client secret is wrong: a configuration fault, not the user's.
  return unavailable(`${path} answered ${status}`);
}

function clientIp(c: CmsContext): Record<string, string> {
  const ip = c.req.header('cf-connecting-ip');
  return ip ? { 'x-auth-client-ip': ip } : {};
}

/** Step 1: e-mail and password. Answers the pending token that step 2 needs. */
export async function startLogin(c: CmsContext, email: string, password: string): Promise<string> {
  const path = '/api/login/';
  const site = c.var.config.CMS_AUTH_SITE;
  const { status, json, retryAfter } = await call(c, 'POST', path, { email, password, ...(site ? { site } : {}) }, clientIp(c));
  if (status === 200) return parsed(Pending, json, path, status).pending_token;
  throw rejection(status, json, path, retryAfter);
}

/** Step 2: the TOTP (or backup) code. Answers tokens, the user, and the user's permissions for this site. */
export async function finishLogin(c: CmsContext, pendingToken: string, code: string): Promise<VerifiedLogin> {
  const path = '/api/verify-2fa/';
  const { status, json, retryAfter } = await call(c, 'POST', path, { pending_token: pendingToken, code }, clientIp(c));
  if (status !== 200) throw rejection(status, json, path, retryAfter);
  const verified = parsed(Verified, json, path, status);
  try {
    // The site's own role vocabulary reaches consumers through whoami, not the verify answer.
    const who = await call(c, 'GET', '/api/whoami/', undefined, { authorization: `Bearer ${verified.access_token}` });
    const permissions = parsed(WhoAmI, who.json, '/api/whoami/', who.status).user_permissions;
    return { ...verified, permissions };
  } catch (err) {
    // No session will hold this refresh family: end it rather than leave it live for 30 days.
    await revokeSession(c, verified.refresh_token).catch(() => false);
    throw err;
  }
}

/** Rotates the refresh token: proves the account is still active and the session not revoked. */
export async function refreshSession(c: CmsContext, refreshToken: string): Promise<RefreshOutcome> {
  const path = '/api/token/refresh/';
  const { status, json } = await call(c, 'POST', path, { refresh_token: refreshToken });
  if (status === 200) return { kind: 'rotated', refreshToken: parsed(Tokens, json, path, status).refresh_token };
  if (status === 401 || status === 403) {
    const failure = Failure.safeParse(json);
    return { kind: 'ended', status, reason: failure.success ? failure.data.error : 'session ended' };
  }
  throw unavailable(`${path} answered ${status}`);
}

/** Ends the refresh family at the authentication service; false when it was already dead there. */
export async function revokeSession(c: CmsContext, refreshToken: string): Promise<boolean> {
  const path = '/api/token/revoke/';
  const { status, json } = await call(c, 'POST', path, { refresh_token: refreshToken });
  if (status !== 200) throw unavailable(`${path} answered ${status}`);
  return parsed(Revoked, json, path, status).success;
}
