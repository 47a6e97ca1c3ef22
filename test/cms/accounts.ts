/** Settings of the authentication service the CMS tests run against (see global-setup.ts). */
export const AUTH_TEST_VARS = {
  AUTH_SSO_SHARED_SECRET: 'cms-test-client-secret',
  AUTH_TOKEN_SECRET: 'cms-test-token-secret-0123456789abcdef0123456789',
  AUTH_TOTP_ENCRYPTION_KEY: 'Y21zLXRlc3QtdG90cC1rZXktMzItYnl0ZXMtLS0tLS0=',
  // Many logins from one test address, and deliberate wrong codes, must not trip the limits.
  AUTH_IP_LIMIT_PER_MINUTE: '10000',
  AUTH_LOCKOUT_THRESHOLD: '10000',
} as const;

/**
 * Enrolled accounts, one per test file or purpose: a TOTP step is accepted once per account, so
 * files signing in at the same time must not share one.
 */
export const TEST_ACCOUNTS = {
  auth: { email: 'auth-flow@example.com', password: 'auth-flow-password', totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', role: 'admin' },
  reader: { email: 'reader@example.com', password: 'reader-password', totpSecret: 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U', role: 'user' },
  platform: { email: 'platform@example.com', password: 'platform-password', totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF', role: 'admin' },
  stories: { email: 'stories@example.com', password: 'stories-password', totpSecret: 'ONXXI4TJMVZXG5DPOJUWK43TNFXGOZLT', role: 'admin' },
  media: { email: 'media@example.com', password: 'media-password', totpSecret: 'NVSWI2LBNVSWI2LBNVSWI2LBNVSWI2LB', role: 'admin' },
  lookups: {
    email: 'lookups@example.com',
    password: 'lookups-password',
    totpSecret: 'NRXW623VOBZWY33PNN2XA4ZANRXW6ZDT',
    role: 'developer',
  },
  prefix: {
    email: 'prefix-flow@example.com',
    password: 'prefix-flow-password',
    totpSecret: 'OBZGKZTJPAWWM3DPO4WXGZLDOJSXILJS',
    role: 'admin',
  },
  fuzz: { email: 'fuzz@example.com', password: 'fuzz-password', totpSecret: 'WQBTY3ATIX7LYMZ3SOR6DFG4ZDYZ6FMS', role: 'admin' },
} as const satisfies Record<string, { email: string; password: string; totpSecret: string; role: 'admin' | 'developer' | 'user' }>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
