import { type EnrolledAccount, authTestVars, enrolled } from '../support/accounts';

/** Settings of the authentication service the CMS tests run against (see global-setup.ts). */
export const AUTH_TEST_VARS = authTestVars('cms');

/**
 * Enrolled accounts, one per test file or purpose: a TOTP step is accepted once per account, so
 * files signing in at the same time must not share one.
 */
export const TEST_ACCOUNTS = {
  auth: enrolled('auth-flow', 'admin', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'),
  reader: enrolled('reader', 'user', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U'),
  platform: enrolled('platform', 'admin', 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF'),
  stories: enrolled('stories', 'admin', 'ONXXI4TJMVZXG5DPOJUWK43TNFXGOZLT'),
  media: enrolled('media', 'admin', 'NVSWI2LBNVSWI2LBNVSWI2LBNVSWI2LB'),
  lookups: enrolled('lookups', 'developer', 'NRXW623VOBZWY33PNN2XA4ZANRXW6ZDT'),
  prefix: enrolled('prefix-flow', 'admin', 'OBZGKZTJPAWWM3DPO4WXGZLDOJSXILJS'),
  fuzz: enrolled('fuzz', 'admin', 'WQBTY3ATIX7LYMZ3SOR6DFG4ZDYZ6FMS'),
} satisfies Record<string, EnrolledAccount>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
