// The test accounts and authentication settings every project's tables are made of: one shape, so
// the tables of the CMS, mail, migrate and command-line tests differ only in their accounts.

/** The roles an account may have at the authentication service. */
export type AccountRole = 'admin' | 'developer' | 'user';

/** An account enrolled at the test authentication service (password and TOTP). */
export interface EnrolledAccount {
  email: string;
  password: string;
  totpSecret: string;
  role: AccountRole;
}

/**
 * An enrolled account named `local`: the address `local@example.com`, the password
 * `local-password`, the given TOTP secret (base32) and role, and any further fields (a site role).
 */
export function enrolled<const Extra extends Record<string, unknown> = Record<never, never>>(
  local: string,
  role: AccountRole,
  totpSecret: string,
  extra?: Extra,
): EnrolledAccount & Extra {
  return { email: `${local}@example.com`, password: `${local}-password`, totpSecret, role, ...(extra as Extra) };
}

/**
 * The settings of a test authentication service named `name` (its secrets are derived from the
 * name, so each project's service has its own), with limits no test reaches by signing in often:
 * many logins from one test address, and deliberate wrong codes, must not trip them.
 */
export function authTestVars(name: string) {
  const totpKey = `${name}-test-totp-key-32-bytes`.padEnd(32, '-');
  if (totpKey.length !== 32) throw new Error(`authTestVars: the name ${name} is too long for a 32-byte key`);
  return {
    AUTH_SSO_SHARED_SECRET: `${name}-test-client-secret`,
    AUTH_TOKEN_SECRET: `${name}-test-token-secret-0123456789abcdef0123456789`,
    AUTH_TOTP_ENCRYPTION_KEY: btoa(totpKey),
    AUTH_IP_LIMIT_PER_MINUTE: '10000',
    AUTH_LOCKOUT_THRESHOLD: '10000',
  } as const;
}
