import { z } from 'zod';
import { HttpError } from './http-error.ts';

/**
 * The one client of the authentication service (spec 001 A, `workers/auth/openapi.json`) over a
 * service's AUTH binding. Every answer is checked against that service's contract.
 *
 * One error behaviour: a step the service refuses is an HttpError with the service's message (400
 * `login_failed`, 429 `too_many_attempts` with `retryAfterSeconds`); a service that does not
 * answer, answers off contract or answers a status it should not (a 401 here means our client
 * secret is wrong) is an HttpError 502 `auth_unavailable`: callers read an outage as 502, never
 * as 500 and never as a half-made session. A session that the service has ended (refresh: 401,
 * 403) is an outcome, not an error.
 */

const TIMEOUT_MS = 5_000;
const UNAVAILABLE = 'The authentication service could not be reached; try again shortly.';

// What this client reads of each answer; test/platform/auth-client-contract.test.ts holds these
// to the response schemas of workers/auth/openapi.json.
export const Failure = z.object({ success: z.literal(false), error: z.string() });
export const Pending = z.object({ success: z.literal(true), pending_token: z.string().min(1) });
export const Tokens = z.object({
  success: z.literal(true),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().int().positive(),
});
export const Verified = Tokens.extend({
  user: z.object({ id: z.number().int(), email: z.string(), first_name: z.string(), last_name: z.string(), role: z.string() }),
});
export const WhoAmI = z.object({ user_name: z.string(), user_permissions: z.string() });
export const Revoked = z.object({ success: z.boolean() });

export type Tokens = z.output<typeof Tokens>;
/** A completed login: tokens, the user, and the user's permission on the site (whoami). */
export type VerifiedLogin = z.output<typeof Verified> & { permissions: string };

/** A refresh: rotated tokens, or the session is over (401 revoked, expired or reused; 403 deactivated). */
export type RefreshOutcome = { kind: 'rotated'; tokens: Tokens } | { kind: 'ended'; status: 401 | 403; reason: string };

/** What the client needs of a request context: the AUTH binding, the client secret, the request id. */
export interface AuthCaller {
  env: { AUTH: Fetcher };
  var: { requestId: string; config: { AUTH_CLIENT_SECRET: string } };
  req: { header(name: string): string | undefined };
}

type Answer = { status: number; json: unknown; retryAfter: string | null };

async function call(
  c: AuthCaller,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  let res: Response;
  try {
    // Calls with a body carry the client secret and the user's address (the service throttles per user, not per Worker).
    const ip = c.req.header('cf-connecting-ip');
    res = await c.env.AUTH.fetch(`https://auth.internal${path}`, {
      method,
      headers: {
        ...(body === undefined
          ? {}
          : {
              'content-type': 'application/json',
              'x-auth-client-secret': c.var.config.AUTH_CLIENT_SECRET,
              ...(ip ? { 'x-auth-client-ip': ip } : {}),
            }),
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

export function unavailable(detail: string): HttpError {
  return new HttpError(502, 'auth_unavailable', UNAVAILABLE, { detail });
}

function parsed<T extends z.ZodType>(schema: T, answer: Answer, path: string): z.output<T> {
  const result = schema.safeParse(answer.json);
  if (!result.success) throw unavailable(`${path} answered ${answer.status} off contract`);
  return result.data;
}

/** The service's own message for a 400 (wrong credentials, bad code) or a 429; anything else is an outage. */
function rejection(answer: Answer, path: string): HttpError {
  const failure = Failure.safeParse(answer.json);
  const message = failure.success ? failure.data.error : 'The authentication service refused the request.';
  if (answer.status === 400) return new HttpError(400, 'login_failed', message);
  // Retry-After passed on from the authentication service; a minute when it named none.
  if (answer.status === 429)
    return new HttpError(429, 'too_many_attempts', message, { retryAfterSeconds: Number(answer.retryAfter) || 60 });
  return unavailable(`${path} answered ${answer.status}`);
}

/** Step 1: e-mail and password for `site` (empty: no site). Answers the pending token step 2 needs. */
export async function startLogin(c: AuthCaller, email: string, password: string, site: string): Promise<string> {
  const path = '/api/login/';
  const answer = await call(c, 'POST', path, { email, password, ...(site ? { site } : {}) });
  if (answer.status !== 200) throw rejection(answer, path);
  return parsed(Pending, answer, path).pending_token;
}

/** The account's permission on the site of its login (whoami, with the access token). */
export async function permissionsOf(c: AuthCaller, accessToken: string): Promise<string> {
  const path = '/api/whoami/';
  const answer = await call(c, 'GET', path, undefined, { authorization: `Bearer ${accessToken}` });
  if (answer.status !== 200) throw unavailable(`${path} answered ${answer.status}`);
  return parsed(WhoAmI, answer, path).user_permissions;
}

/** Step 2: the TOTP (or backup) code. Answers tokens, the user, and the user's permission on the site. */
export async function finishLogin(c: AuthCaller, pendingToken: string, code: string): Promise<VerifiedLogin> {
  const path = '/api/verify-2fa/';
  const answer = await call(c, 'POST', path, { pending_token: pendingToken, code });
  if (answer.status !== 200) throw rejection(answer, path);
  const verified = parsed(Verified, answer, path);
  try {
    // The site's own role vocabulary reaches consumers through whoami, not the verify answer.
    return { ...verified, permissions: await permissionsOf(c, verified.access_token) };
  } catch (err) {
    // No session will hold this refresh family: end it rather than leave it live for 30 days.
    await revokeSession(c, verified.refresh_token).catch(() => false);
    throw err;
  }
}

/** Rotates the refresh token: proves the account is still active and the session not revoked. */
export async function refreshSession(c: AuthCaller, refreshToken: string): Promise<RefreshOutcome> {
  const path = '/api/token/refresh/';
  const answer = await call(c, 'POST', path, { refresh_token: refreshToken });
  if (answer.status === 200) return { kind: 'rotated', tokens: parsed(Tokens, answer, path) };
  if (answer.status === 401 || answer.status === 403) {
    const failure = Failure.safeParse(answer.json);
    return { kind: 'ended', status: answer.status, reason: failure.success ? failure.data.error : 'session ended' };
  }
  throw unavailable(`${path} answered ${answer.status}`);
}

/**
 * Ends the refresh family at the authentication service: true when it was live and is now ended,
 * false when it was already dead there. An outage is the 502 HttpError; a caller for whom the
 * revoke is best effort (logout) catches it.
 */
export async function revokeSession(c: AuthCaller, refreshToken: string): Promise<boolean> {
  const path = '/api/token/revoke/';
  const answer = await call(c, 'POST', path, { refresh_token: refreshToken });
  if (answer.status !== 200) throw unavailable(`${path} answered ${answer.status}`);
  return parsed(Revoked, answer, path).success;
}
