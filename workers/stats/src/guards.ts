import type { MiddlewareHandler } from 'hono';
import { defineGuard } from '#shared/guard.ts';
import { type StatsEnv, statsConfig } from './context.ts';
import { detailError } from './errors.ts';
// The one constant-time comparison every service uses (web-standard: no Workers-only API).
import { secretsEqual } from '#shared/crypto.ts';

/** The presented token: `Authorization: Bearer`, then query `token`, then query `sso_token`. */
export function presentedToken(authorization: string | undefined, url: URL): string | undefined {
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return bearer ?? url.searchParams.get('token') ?? url.searchParams.get('sso_token') ?? undefined;
}

/**
 * The static token guard of every data route (access 'token'): 401 `{detail}` when it is missing
 * or wrong. Not a browser session (the token is sent explicitly), so no anti-forgery is needed.
 */
export function requireToken(): MiddlewareHandler<StatsEnv> {
  return defineGuard<StatsEnv, StatsAccess>({ access: 'token' }, async (c, next) => {
    const config = statsConfig(c);
    const token = presentedToken(c.req.header('authorization'), new URL(c.req.url));
    if (!token) {
      c.header('WWW-Authenticate', 'Bearer');
      throw detailError(401, 'Not authenticated');
    }
    if (token.length > 512 || !(await secretsEqual(token, config.STATIC_API_TOKEN))) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw detailError(401, 'Invalid token');
    }
    await next();
  });
}

/** Who may call a stats route: anyone, or a caller presenting the static token. */
export type StatsAccess = 'token';
