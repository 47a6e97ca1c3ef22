import type { Context } from 'hono';
import { secretsEqual } from '#shared/crypto.ts';
import { defineGuard } from '#shared/guard.ts';
import { addressThrottle } from '#shared/throttle.ts';
import type { AuthEnv } from './context.ts';
import { fail } from './schemas.ts';

/** Who may call an auth route: anyone, a client holding the shared secret, or a dashboard administrator. */
export type AuthAccess = 'client' | 'admin';

export const THROTTLED = 'Too many attempts. Try again later.';

/**
 * The guard of every JSON endpoint but whoami (access 'client'), named in each route's
 * definition: the shared client secret in X-Auth-Client-Secret. Wrong values are counted per
 * client address (CF-Connecting-IP: X-Auth-Client-IP is only trusted once the secret is right);
 * past the limit that address gets 429 with Retry-After. Clients are services, not browsers.
 */
export const clientSecret = defineGuard<AuthEnv, AuthAccess>({ access: 'client' }, async (c, next) => {
  const given = c.req.header('x-auth-client-secret') ?? '';
  const throttle = addressThrottle(c.env.ACCOUNT_GUARD, 'client-secret', c.var.ip);
  const locked = await throttle.lockedFor();
  if (locked !== undefined) return throttled(c, locked);
  if (!(await secretsEqual(given, c.var.config.AUTH_SSO_SHARED_SECRET))) {
    const lockedNow = await throttle.failed();
    if (lockedNow !== undefined) return throttled(c, lockedNow);
    return c.json(fail('The client secret is missing or wrong.'), 401);
  }
  await next();
});

function throttled(c: Context<AuthEnv>, retryAfterSeconds: number) {
  c.header('Retry-After', String(retryAfterSeconds));
  return c.json(fail(THROTTLED), 429);
}
