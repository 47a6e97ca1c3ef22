/** Settings of the authentication service the migrate tests run against (see global-setup.ts). */
export const AUTH_TEST_VARS = {
  AUTH_SSO_SHARED_SECRET: 'migrate-test-client-secret',
  AUTH_TOKEN_SECRET: 'migrate-test-token-secret-0123456789abcdef0123',
  AUTH_TOTP_ENCRYPTION_KEY: 'bWlncmF0ZS10ZXN0LXRvdHAta2V5LTMyLWJ5dGVzLS0=',
  // Many logins from one test address, and deliberate wrong codes, must not trip the limits.
  AUTH_IP_LIMIT_PER_MINUTE: '10000',
  AUTH_LOCKOUT_THRESHOLD: '10000',
} as const;

/**
 * Enrolled accounts, one per test file and role: a TOTP step is accepted once per account, so
 * files signing in at the same time must not share one. `siteRole` is the role on the migrate
 * site; without one the account's global role applies (admin → Admin, others have no role here).
 */
export const TEST_ACCOUNTS = {
  accountAdmin: {
    email: 'account-admin@example.com',
    password: 'account-admin-password',
    totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    role: 'admin',
  },
  accountUser: {
    email: 'account-user@example.com',
    password: 'account-user-password',
    totpSecret: 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U',
    role: 'user',
  },
  accountOperator: {
    email: 'account-operator@example.com',
    password: 'account-operator-password',
    totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF',
    role: 'user',
    siteRole: 'Operator',
  },
  accountViewer: {
    email: 'account-viewer@example.com',
    password: 'account-viewer-password',
    totpSecret: 'ONXXI4TJMVZXG5DPOJUWK43TNFXGOZLT',
    role: 'user',
    siteRole: 'Viewer',
  },
  routesAdmin: {
    email: 'routes-admin@example.com',
    password: 'routes-admin-password',
    totpSecret: 'NVSWI2LBNVSWI2LBNVSWI2LBNVSWI2LB',
    role: 'admin',
  },
  routesOperator: {
    email: 'routes-operator@example.com',
    password: 'routes-operator-password',
    totpSecret: 'NRXW623VOBZWY33PNN2XA4ZANRXW6ZDT',
    role: 'user',
    siteRole: 'Operator',
  },
  routesViewer: {
    email: 'routes-viewer@example.com',
    password: 'routes-viewer-password',
    totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    role: 'user',
    siteRole: 'Viewer',
  },
  dryRunOperator: {
    email: 'dry-run-operator@example.com',
    password: 'dry-run-operator-password',
    totpSecret: 'MRZHSLLSOVXC233QMVZGC5DPOIWWIZDS',
    role: 'user',
    siteRole: 'Operator',
  },
  dryRunViewer: {
    email: 'dry-run-viewer@example.com',
    password: 'dry-run-viewer-password',
    totpSecret: 'MRZHSLLSOVXC25TJMV3WK4RNMRZHSLLS',
    role: 'user',
    siteRole: 'Viewer',
  },
  wizardOperator: {
    email: 'wizard-operator@example.com',
    password: 'wizard-operator-password',
    totpSecret: 'GAYTEMZUGU3DOOBZGAYTEMZUGU3DOOBZ',
    role: 'user',
    siteRole: 'Operator',
  },
  wizardViewer: {
    email: 'wizard-viewer@example.com',
    password: 'wizard-viewer-password',
    totpSecret: 'MZXW6YTBOI2TEMZUGU3DOOBZGEZDGNBV',
    role: 'user',
    siteRole: 'Viewer',
  },
  acceptOperator: {
    email: 'accept-operator@example.com',
    password: 'accept-operator-password',
    totpSecret: 'SZCVMETCQNMVEDOTZIGU6D3UEJ2M5AGW',
    role: 'user',
    siteRole: 'Operator',
  },
  acceptViewer: {
    email: 'accept-viewer@example.com',
    password: 'accept-viewer-password',
    totpSecret: 'AJA5GFX4VGSL2ZF3RZWYIFWHVBLJRCYZ',
    role: 'user',
    siteRole: 'Viewer',
  },
  validateOperator: {
    email: 'validate-operator@example.com',
    password: 'validate-operator-password',
    totpSecret: '36C3YLNNBUMNHTBJ3LS47PG3KVMQ3E4I',
    role: 'user',
    siteRole: 'Operator',
  },
  meetingsAdmin: {
    email: 'meetings-admin@example.com',
    password: 'meetings-admin-password',
    totpSecret: 'AMXPQOTT35ALDCPWZUGYZ2YFEQRIIIHE',
    role: 'admin',
  },
  meetingsOperator: {
    email: 'meetings-operator@example.com',
    password: 'meetings-operator-password',
    totpSecret: 'ZR3A3427XM7P3UZGQJPPLV5754L5Y5LH',
    role: 'user',
    siteRole: 'Operator',
  },
  meetingsViewer: {
    email: 'meetings-viewer@example.com',
    password: 'meetings-viewer-password',
    totpSecret: 'AKFN7P2UNFYW4PPDDB6TCPU7HP5RE6J2',
    role: 'user',
    siteRole: 'Viewer',
  },
  syncAdmin: {
    email: 'sync-admin@example.com',
    password: 'sync-admin-password',
    totpSecret: '36IZS5NAMZGCN7WCEOO4W4I24EK6CFDA',
    role: 'admin',
  },
  syncOperator: {
    email: 'sync-operator@example.com',
    password: 'sync-operator-password',
    totpSecret: 'PVYYA6E3QLHKGH5IKJAGSBRH3SA4QBUC',
    role: 'user',
    siteRole: 'Operator',
  },
  syncViewer: {
    email: 'sync-viewer@example.com',
    password: 'sync-viewer-password',
    totpSecret: 'QIRSEMU6EMWJ44CJW2P22IXAOTY6VMTT',
    role: 'user',
    siteRole: 'Viewer',
  },
  repairAdmin: {
    email: 'repair-admin@example.com',
    password: 'repair-admin-password',
    totpSecret: 'J5Z2UCBD4E3HYE3NFZD6OOOYSOHLOMZH',
    role: 'admin',
  },
  repairOperator: {
    email: 'repair-operator@example.com',
    password: 'repair-operator-password',
    totpSecret: 'RV72RCRJU3APXDHUEDB2Q2HPS37UYSOL',
    role: 'user',
    siteRole: 'Operator',
  },
  repairViewer: {
    email: 'repair-viewer@example.com',
    password: 'repair-viewer-password',
    totpSecret: 'ZWS3HUVK5CYPL7PDVR6SGE3RNPRLIERF',
    role: 'user',
    siteRole: 'Viewer',
  },
  importAdmin: {
    email: 'import-admin@example.com',
    password: 'import-admin-password',
    totpSecret: 'P2CFMPJ7ABZOEZ2NY5GBYCYPXEHE3V5J',
    role: 'admin',
  },
  importOperator: {
    email: 'import-operator@example.com',
    password: 'import-operator-password',
    totpSecret: 'PJSWIFGJEAIQ2MGJUMXA2KFHZW34GMVZ',
    role: 'user',
    siteRole: 'Operator',
  },
  importViewer: {
    email: 'import-viewer@example.com',
    password: 'import-viewer-password',
    totpSecret: 'C74KUBYW5UZJODBCXR6EU4K4KXIUVSEZ',
    role: 'user',
    siteRole: 'Viewer',
  },
  prefixOperator: {
    email: 'prefix-operator@example.com',
    password: 'prefix-operator-password',
    totpSecret: '4RU6BKDDXYGIZLLEUFAR7CDYKJKBYYXU',
    role: 'user',
    siteRole: 'Operator',
  },
  rootOperator: {
    email: 'root-operator@example.com',
    password: 'root-operator-password',
    totpSecret: 'UOY6QME7CILFENXAQKQEH344NNAJPWXJ',
    role: 'user',
    siteRole: 'Operator',
  },
  refreshOperator: {
    email: 'refresh-operator@example.com',
    password: 'refresh-operator-password',
    totpSecret: 'MFZWIZLUN5ZGK43IMVZGK2LSMFZWIZLU',
    role: 'user',
    siteRole: 'Operator',
  },
  readsOperator: {
    email: 'reads-operator@example.com',
    password: 'reads-operator-password',
    totpSecret: 'BZAUB7VLULVL7U6FJCWFPLI7CHXRRXPT',
    role: 'user',
    siteRole: 'Operator',
  },
  filterOperator: {
    email: 'filter-operator@example.com',
    password: 'filter-operator-password',
    totpSecret: '4VD6EP4PN6A4PZPT7DVEJNDSPVBJEIKE',
    role: 'user',
    siteRole: 'Operator',
  },
  fuzzAdmin: {
    email: 'fuzz-admin@example.com',
    password: 'fuzz-admin-password',
    totpSecret: 'XTZPREBIB4PK5EBQHPL2PBBQBMN3RMH3',
    role: 'admin',
  },
  incrementalOperator: {
    email: 'incremental-operator@example.com',
    password: 'incremental-operator-password',
    totpSecret: 'GWBDOUANHGTWGEDKZS365Y6VKGV37TYP',
    role: 'user',
    siteRole: 'Operator',
  },
  incrementalViewer: {
    email: 'incremental-viewer@example.com',
    password: 'incremental-viewer-password',
    totpSecret: 'QCUJJ3SV7C5S5QCAIF4E4UL253P7KXZM',
    role: 'user',
    siteRole: 'Viewer',
  },
} as const satisfies Record<
  string,
  { email: string; password: string; totpSecret: string; role: 'admin' | 'developer' | 'user'; siteRole?: 'Admin' | 'Operator' | 'Viewer' }
>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
