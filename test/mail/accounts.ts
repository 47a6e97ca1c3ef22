/** Settings of the authentication service the mail tests sign in through (see global-setup.ts). */
export const AUTH_TEST_VARS = {
  AUTH_SSO_SHARED_SECRET: 'mail-test-client-secret',
  AUTH_TOKEN_SECRET: 'mail-test-token-secret-0123456789abcdef0123456789',
  AUTH_TOTP_ENCRYPTION_KEY: 'bWFpbC10ZXN0LXRvdHAta2V5LTMyLWJ5dGVzLS0tLS0=',
  AUTH_IP_LIMIT_PER_MINUTE: '10000',
  AUTH_LOCKOUT_THRESHOLD: '10000',
} as const;

/** Enrolled accounts: one per test file that signs in through the real login form. */
export const TEST_ACCOUNTS = {
  login: {
    email: 'mail-login@example.com',
    password: 'mail-login-password',
    totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    role: 'admin',
  },
  redirect: {
    email: 'mail-redirect@example.com',
    password: 'mail-redirect-password',
    totpSecret: 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U',
    role: 'user',
  },
  recheck: {
    email: 'mail-recheck@example.com',
    password: 'mail-recheck-password',
    totpSecret: 'KRUGKIDROVUWG2ZAMJZG653OEBTG66BA',
    role: 'user',
  },
  prefix: {
    email: 'mail-prefix@example.com',
    password: 'mail-prefix-password',
    totpSecret: 'NVQWS3BNOBZGKZTJPAWXI33UOAWWWZLZ',
    role: 'user',
  },
} as const satisfies Record<string, { email: string; password: string; totpSecret: string; role: 'admin' | 'developer' | 'user' }>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
