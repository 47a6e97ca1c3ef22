import type { AuthConfig } from './config.ts';

const MINUTE = 60_000;

/** The account guard of an e-mail address (known or not: lockouts must not reveal which). */
export const accountGuard = (env: Env, email: string) => env.ACCOUNT_GUARD.get(env.ACCOUNT_GUARD.idFromName(`account:${email}`));

/** Per-IP request budget for one endpoint. */
export function takeIpBudget(env: Env, config: AuthConfig, endpoint: 'login' | 'verify' | 'dashboard', ip: string) {
  const stub = env.ACCOUNT_GUARD.get(env.ACCOUNT_GUARD.idFromName(`ip:${endpoint}:${ip}`));
  return stub.take(config.AUTH_IP_LIMIT_PER_MINUTE, MINUTE);
}

export function recordAccountFailure(env: Env, config: AuthConfig, email: string) {
  const lockMs = config.AUTH_LOCKOUT_MINUTES * MINUTE;
  return accountGuard(env, email).recordFailure(config.AUTH_LOCKOUT_THRESHOLD, lockMs, lockMs);
}

export const pendingLogin = (env: Env, token: string) => env.PENDING_LOGINS.get(env.PENDING_LOGINS.idFromName(token));
