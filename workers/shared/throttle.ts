import type { Context } from 'hono';
import type { AccountGuard } from '#durable-objects/account-guard.ts';

// Failed attempts at a secret (an admin login, a client secret) counted per client address in an
// AccountGuard Durable Object, so every isolate sees the same count. Keyed by address, not by
// account: one attacker locks out only their own address, never the shared admin everywhere.

/** Failures from one address within the window before that address is refused for the lockout. */
export const ADDRESS_FAILURE_LIMIT = 10;
export const ADDRESS_FAILURE_WINDOW_MS = 15 * 60_000;
export const ADDRESS_LOCKOUT_MS = 15 * 60_000;

/** The client's address as Cloudflare's edge reports it; local tools without one share `unknown`. */
export const clientAddress = (c: Context) => c.req.header('cf-connecting-ip')?.trim().slice(0, 64) || 'unknown';

export interface AddressThrottle {
  /** Seconds to wait when the address is locked now, else undefined. */
  lockedFor(): Promise<number | undefined>;
  /** Counts a failure; seconds to wait when this one locked the address, else undefined. */
  failed(): Promise<number | undefined>;
}

/** The throttle of one secret check (`scope`, e.g. `stats-login`) for the request's client address. */
export function addressThrottle(guards: DurableObjectNamespace<AccountGuard>, scope: string, address: string): AddressThrottle {
  const guard = guards.get(guards.idFromName(`ip-failures:${scope}:${address}`));
  return {
    async lockedFor() {
      const verdict = await guard.status();
      return verdict.allowed ? undefined : verdict.retryAfterSeconds;
    },
    async failed() {
      const { lockedNow } = await guard.recordFailure(ADDRESS_FAILURE_LIMIT, ADDRESS_FAILURE_WINDOW_MS, ADDRESS_LOCKOUT_MS);
      return lockedNow ? Math.ceil(ADDRESS_LOCKOUT_MS / 1000) : undefined;
    },
  };
}
