import { type EnrolledAccount, authTestVars, enrolled } from '../support/accounts';

/** Settings of the authentication service the mail tests sign in through (see global-setup.ts). */
export const AUTH_TEST_VARS = authTestVars('mail');

/** Enrolled accounts: one per test file that signs in through the real login form. */
export const TEST_ACCOUNTS = {
  login: enrolled('mail-login', 'admin', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'),
  redirect: enrolled('mail-redirect', 'user', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U'),
  recheck: enrolled('mail-recheck', 'user', 'KRUGKIDROVUWG2ZAMJZG653OEBTG66BA'),
  prefix: enrolled('mail-prefix', 'user', 'NVQWS3BNOBZGKZTJPAWXI33UOAWWWZLZ'),
} satisfies Record<string, EnrolledAccount>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
