import { type EnrolledAccount, authTestVars, enrolled } from '../support/accounts';

/** Settings of the authentication service the migrate tests run against (see global-setup.ts). */
export const AUTH_TEST_VARS = authTestVars('migrate');

/**
 * Enrolled accounts, one per test file and role: a TOTP step is accepted once per account, so
 * files signing in at the same time must not share one. `siteRole` is the role on the migrate
 * site; without one the account's global role applies (admin → Admin, others have no role here).
 */
export const TEST_ACCOUNTS = {
  accountAdmin: enrolled('account-admin', 'admin', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'),
  accountUser: enrolled('account-user', 'user', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U'),
  accountOperator: enrolled('account-operator', 'user', 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF', { siteRole: 'Operator' }),
  accountViewer: enrolled('account-viewer', 'user', 'ONXXI4TJMVZXG5DPOJUWK43TNFXGOZLT', { siteRole: 'Viewer' }),
  routesAdmin: enrolled('routes-admin', 'admin', 'NVSWI2LBNVSWI2LBNVSWI2LBNVSWI2LB'),
  routesOperator: enrolled('routes-operator', 'user', 'NRXW623VOBZWY33PNN2XA4ZANRXW6ZDT', { siteRole: 'Operator' }),
  routesViewer: enrolled('routes-viewer', 'user', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', { siteRole: 'Viewer' }),
  dryRunOperator: enrolled('dry-run-operator', 'user', 'MRZHSLLSOVXC233QMVZGC5DPOIWWIZDS', { siteRole: 'Operator' }),
  dryRunViewer: enrolled('dry-run-viewer', 'user', 'MRZHSLLSOVXC25TJMV3WK4RNMRZHSLLS', { siteRole: 'Viewer' }),
  wizardOperator: enrolled('wizard-operator', 'user', 'GAYTEMZUGU3DOOBZGAYTEMZUGU3DOOBZ', { siteRole: 'Operator' }),
  wizardViewer: enrolled('wizard-viewer', 'user', 'MZXW6YTBOI2TEMZUGU3DOOBZGEZDGNBV', { siteRole: 'Viewer' }),
  acceptOperator: enrolled('accept-operator', 'user', 'SZCVMETCQNMVEDOTZIGU6D3UEJ2M5AGW', { siteRole: 'Operator' }),
  acceptViewer: enrolled('accept-viewer', 'user', 'AJA5GFX4VGSL2ZF3RZWYIFWHVBLJRCYZ', { siteRole: 'Viewer' }),
  pathOperator: enrolled('path-operator', 'user', 'NWPZ5ATJVAZGJLMW4OXKZ2KHOEDWDGXU', { siteRole: 'Operator' }),
  validateOperator: enrolled('validate-operator', 'user', '36C3YLNNBUMNHTBJ3LS47PG3KVMQ3E4I', { siteRole: 'Operator' }),
  meetingsAdmin: enrolled('meetings-admin', 'admin', 'AMXPQOTT35ALDCPWZUGYZ2YFEQRIIIHE'),
  meetingsOperator: enrolled('meetings-operator', 'user', 'ZR3A3427XM7P3UZGQJPPLV5754L5Y5LH', { siteRole: 'Operator' }),
  meetingsViewer: enrolled('meetings-viewer', 'user', 'AKFN7P2UNFYW4PPDDB6TCPU7HP5RE6J2', { siteRole: 'Viewer' }),
  syncAdmin: enrolled('sync-admin', 'admin', '36IZS5NAMZGCN7WCEOO4W4I24EK6CFDA'),
  syncOperator: enrolled('sync-operator', 'user', 'PVYYA6E3QLHKGH5IKJAGSBRH3SA4QBUC', { siteRole: 'Operator' }),
  syncViewer: enrolled('sync-viewer', 'user', 'QIRSEMU6EMWJ44CJW2P22IXAOTY6VMTT', { siteRole: 'Viewer' }),
  repairAdmin: enrolled('repair-admin', 'admin', 'J5Z2UCBD4E3HYE3NFZD6OOOYSOHLOMZH'),
  repairOperator: enrolled('repair-operator', 'user', 'RV72RCRJU3APXDHUEDB2Q2HPS37UYSOL', { siteRole: 'Operator' }),
  repairViewer: enrolled('repair-viewer', 'user', 'ZWS3HUVK5CYPL7PDVR6SGE3RNPRLIERF', { siteRole: 'Viewer' }),
  importAdmin: enrolled('import-admin', 'admin', 'P2CFMPJ7ABZOEZ2NY5GBYCYPXEHE3V5J'),
  importOperator: enrolled('import-operator', 'user', 'PJSWIFGJEAIQ2MGJUMXA2KFHZW34GMVZ', { siteRole: 'Operator' }),
  importViewer: enrolled('import-viewer', 'user', 'C74KUBYW5UZJODBCXR6EU4K4KXIUVSEZ', { siteRole: 'Viewer' }),
  prefixOperator: enrolled('prefix-operator', 'user', '4RU6BKDDXYGIZLLEUFAR7CDYKJKBYYXU', { siteRole: 'Operator' }),
  rootOperator: enrolled('root-operator', 'user', 'UOY6QME7CILFENXAQKQEH344NNAJPWXJ', { siteRole: 'Operator' }),
  refreshOperator: enrolled('refresh-operator', 'user', 'MFZWIZLUN5ZGK43IMVZGK2LSMFZWIZLU', { siteRole: 'Operator' }),
  readsOperator: enrolled('reads-operator', 'user', 'BZAUB7VLULVL7U6FJCWFPLI7CHXRRXPT', { siteRole: 'Operator' }),
  filterOperator: enrolled('filter-operator', 'user', '4VD6EP4PN6A4PZPT7DVEJNDSPVBJEIKE', { siteRole: 'Operator' }),
  fuzzAdmin: enrolled('fuzz-admin', 'admin', 'XTZPREBIB4PK5EBQHPL2PBBQBMN3RMH3'),
  incrementalOperator: enrolled('incremental-operator', 'user', 'GWBDOUANHGTWGEDKZS365Y6VKGV37TYP', { siteRole: 'Operator' }),
  incrementalViewer: enrolled('incremental-viewer', 'user', 'QCUJJ3SV7C5S5QCAIF4E4UL253P7KXZM', { siteRole: 'Viewer' }),
} as const satisfies Record<string, EnrolledAccount & { siteRole?: 'Admin' | 'Operator' | 'Viewer' }>;

export type TestAccountName = keyof typeof TEST_ACCOUNTS;
