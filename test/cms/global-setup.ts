import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { accountSql } from '../../workers/auth/src/account-sql';
import { executeSql } from '../../scripts/auth-admin';
import { applyLocalD1Migrations, startLocalWorker } from '../../scripts/local-worker';
import { AUTH_TEST_VARS, TEST_ACCOUNTS, type TestAccountName } from './accounts';

const AUTH_CONFIG = 'workers/auth/wrangler.toml';

/**
 * The real authentication service for the CMS tests, in its own workerd with its own D1: the CMS
 * reaches it through its AUTH service binding (a stand-in that forwards to this Worker). One
 * enrolled account per purpose, so test files never share an account's used TOTP steps.
 */
export default async function setup(project: TestProject) {
  const persistTo = mkdtempSync(join(tmpdir(), 'cms-auth-'));
  applyLocalD1Migrations(AUTH_CONFIG, 'DB', persistTo);
  const statements: string[] = [];
  const backupCodes: Partial<Record<TestAccountName, string[]>> = {};
  for (const name of Object.keys(TEST_ACCOUNTS) as TestAccountName[]) {
    const account = TEST_ACCOUNTS[name];
    const { statements: sql, enrolment } = await accountSql({
      ...account,
      firstName: name,
      lastName: 'Tester',
      totpEncryptionKey: AUTH_TEST_VARS.AUTH_TOTP_ENCRYPTION_KEY,
      issuer: 'Racing back-office',
      mode: 'replace',
    });
    statements.push(...sql);
    backupCodes[name] = enrolment.backupCodes;
  }
  executeSql(statements, { remote: false, persistTo });
  const worker = await startLocalWorker({ config: AUTH_CONFIG, vars: { ...AUTH_TEST_VARS }, persistTo, logLevel: 'error' });
  project.provide('authUrl', (await worker.url).origin);
  project.provide('testBackupCodes', JSON.stringify(backupCodes));
  return async () => {
    await worker.dispose();
    rmSync(persistTo, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    authUrl: string;
    /** JSON: each test account's single-use backup codes. */
    testBackupCodes: string;
  }
}
