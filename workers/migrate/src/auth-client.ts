import { z } from 'zod';
import type { MigrateContext } from './context.ts';

/**
 * The authentication service (spec 001 A) over the AUTH service binding. Every answer is checked
 * against that service's contract: a login step answers its outcome (the form shows the message),
 * anything off contract or unreachable is `unavailable`, never a half-made session.
 */

const TIMEOUT_MS = 5_000;

const Failure = z.object({ success: z.literal(false), error: z.string() });
const Pending = z.object({ success: z.literal(true), pending_token: z.string().min(1) });
const Tokens = z.object({
  success: z.literal(true),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().positive(),
});
const Verified = Tokens.extend({
  user: z.object({ id: z.number().int(), email: z.string(), first_name: z.string(), last_name: z.string(), role: z.string() }),
});
const WhoAmI = z.object({ user_name: z.string(), user_permissions: z.string() });
const Revoked = z.object({ success: z.boolean() });

export type StepOutcome<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'refused'; message: string }
  | { kind: 'throttled'; message: string; retryAfter: string | null }
  | { kind: 'unavailable'; message: string };

export type VerifiedLogin = z.output<typeof Verified> & { permissions: string };
export type Tokens = z.output<typeof Tokens>;
export type RefreshOutcome = { kind: 'rotated'; tokens: Tokens; permissions: string } | { kind: 'ended'; reason: string } | { kind: 'unavailable'; message: string };

const UNAVAILABLE = 'The authentication service could not be reached; try again shortly.';

async function call(c: MigrateContext, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  try {
    const res = await c.env.AUTH.fetch(`https://auth.internal${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'x-auth-client-secret': c.var.config.AUTH_CLIENT_SECRET }),
        'x-request-id': c.var.requestId,
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const json: unknown = await res.json().catch(() => undefined);
    return { status: res.status, json, retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    console.warn(JSON.stringify({ level: 'warn', service: 'migrate', request_id: c.var.requestId, event: 'auth_unreachable', path, error: err instanceof Error ? err.message : String(err) }));
    return { status: 0, json: undefined, retryAfter: null };
  }
}

function failed<T>(status: number, json: unknown, retryAfter: string | null): StepOutcome<T> {
  const failure = Failure.safeParse(json);
  const message = failure.success ? failure.data.error : 'The authentication service refused the request.';
  if (status === 400) return { kind: 'refused', message };
  if (status === 429) return { kind: 'throttled', message, retryAfter };
  // 401 means our client secret is wrong: a configuration fault, not the user's.
  return { kind: 'unavailable', message: UNAVAILABLE };
}

function clientIp(c: MigrateContext): Record<string, string> {
  const ip = c.req.header('cf-connecting-ip');
  return ip ? { 'x-auth-client-ip': ip } : {};
}

/** Step 1: e-mail and password, for this site. Answers the pending token step 2 needs. */
export async function startLogin(c: MigrateContext, email: string, password: string): Promise<StepOutcome<string>> {
  const site = c.var.config.MIGRATE_AUTH_SITE;
  const { status, json, retryAfter } = await call(c, 'POST', '/api/login/', { email, password, ...(site ? { site } : {}) }, clientIp(c));
  if (status === 200) {
    const pending = Pending.safeParse(json);
    return pending.success ? { kind: 'ok', value: pending.data.pending_token } : { kind: 'unavailable', message: UNAVAILABLE };
  }
  return failed(status, json, retryAfter);
}

/** Step 2: the code. Answers tokens, the user and their permission on this site (whoami). */
export async function finishLogin(c: MigrateContext, pendingToken: string, code: string): Promise<StepOutcome<VerifiedLogin>> {
  const { status, json, retryAfter } = await call(c, 'POST', '/api/verify-2fa/', { pending_token: pendingToken, code }, clientIp(c));
  if (status !== 200) return failed(status, json, retryAfter);
  const verified = Verified.safeParse(json);
  if (!verified.success) return { kind: 'unavailable', message: UNAVAILABLE };
  const who = await call(c, 'GET', '/api/whoami/', undefined, { authorization: `Bearer ${verified.data.access_token}` });
  const permissions = WhoAmI.safeParse(who.json);
  if (who.status !== 200 || !permissions.success) {
    // No session will hold this refresh family: end it rather than leave it live.
    await revokeSession(c, verified.data.refresh_token);
    return { kind: 'unavailable', message: UNAVAILABLE };
  }
  return { kind: 'ok', value: { ...verified.data, permissions: permissions.data.user_permissions } };
}

/**
 * Rotates the refresh token: a new access token, proof the account is active and the session live,
 * and the account's permission on this site now (whoami), so a role changed upstream takes effect.
 */
export async function refreshSession(c: MigrateContext, refreshToken: string): Promise<RefreshOutcome> {
  const { status, json } = await call(c, 'POST', '/api/token/refresh/', { refresh_token: refreshToken });
  if (status === 200) {
    const tokens = Tokens.safeParse(json);
    if (!tokens.success) return { kind: 'unavailable', message: UNAVAILABLE };
    const who = await call(c, 'GET', '/api/whoami/', undefined, { authorization: `Bearer ${tokens.data.access_token}` });
    const permissions = WhoAmI.safeParse(who.json);
    if (who.status !== 200 || !permissions.success) {
      // The session ends without a role to go on with: its new refresh family must not stay live.
      await revokeSession(c, tokens.data.refresh_token);
      return { kind: 'unavailable', message: UNAVAILABLE };
    }
    return { kind: 'rotated', tokens: tokens.data, permissions: permissions.data.user_permissions };
  }
  if (status === 401 || status === 403) {
    const failure = Failure.safeParse(json);
    return { kind: 'ended', reason: failure.success ? failure.data.error : 'session ended' };
  }
  return { kind: 'unavailable', message: UNAVAILABLE };
}

/** Ends the refresh family upstream; false when it was already dead or the service is unreachable. */
export async function revokeSession(c: MigrateContext, refreshToken: string): Promise<boolean> {
  const { status, json } = await call(c, 'POST', '/api/token/revoke/', { refresh_token: refreshToken });
  const revoked = Revoked.safeParse(json);
  return status === 200 && revoked.success && revoked.data.success;
}
