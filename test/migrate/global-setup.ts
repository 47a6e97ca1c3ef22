import type { TestProject } from 'vitest/node';
import { startTestAuthService } from '../support/auth-service';
import { migrateSiteSql, siteRoleSql } from '../../scripts/migrate-seed';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';

/** The migrate site and every account's role on it. */
function siteSql(): string[] {
  const statements = migrateSiteSql();
  for (const account of Object.values(TEST_ACCOUNTS)) {
    if ('siteRole' in account && account.siteRole) statements.push(...siteRoleSql(account.email, account.siteRole));
  }
  return statements;
}

/**
 * The real authentication service for the migrate tests, in its own workerd with its own D1 (with
 * the migrate site and its roles): the app reaches it through its AUTH service binding.
 */
export default async function setup(project: TestProject) {
  const accounts = Object.fromEntries(
    Object.entries(TEST_ACCOUNTS).map(([name, { email, password, totpSecret, role }]) => [name, { email, password, totpSecret, role }]),
  );
  const auth = await startTestAuthService(accounts, AUTH_TEST_VARS, { sql: siteSql() });
  project.provide('migrateAuthUrl', auth.url);
  project.provide('migrateBackupCodes', JSON.stringify(auth.backupCodes));
  project.provide('migrateAuthPersist', auth.persistTo);
  return () => auth.dispose();
}

declare module 'vitest' {
  export interface ProvidedContext {
    migrateAuthUrl: string;
    /** JSON: each test account's single-use backup codes. */
    migrateBackupCodes: string;
    /** The auth service's local D1 folder: AUTH_SITE_ROLE changes a role there while it serves. */
    migrateAuthPersist: string;
  }
}
