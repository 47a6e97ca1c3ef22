import type { MiddlewareHandler } from 'hono';
import { type StatsEnv, statsConfig } from './context.ts';
import { detailError } from './errors.ts';

const encoder = new TextEncoder();

/**
 * Compares two secrets in constant time: both are hashed first, so neither their contents nor
 * their lengths show in the timing.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** The presented token: `Authorization: Bearer`, then query `token`, then query `sso_token`. */
export function presentedToken(authorization: string | undefined, url: URL): string | undefined {
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return bearer ?? url.searchParams.get('token') ?? url.searchParams.get('sso_token') ?? undefined;
}

/** The static token guard of every data route: 401 `{detail}` when it is missing or wrong. */
export function requireToken(): MiddlewareHandler<StatsEnv> {
  return async (c, next) => {
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
  };
}
