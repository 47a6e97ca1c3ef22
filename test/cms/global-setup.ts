import type { TestProject } from 'vitest/node';
import { startTestAuthService } from '../support/auth-service';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';

/**
 * The real authentication service for the CMS tests, in its own workerd with its own D1: the CMS
 * reaches it through its AUTH service binding (a stand-in that forwards to this Worker). One
 * enrolled account per purpose, so test files never share an account's used TOTP steps.
 */
export default async function setup(project: TestProject) {
  const auth = await startTestAuthService(TEST_ACCOUNTS, AUTH_TEST_VARS);
  project.provide('authUrl', auth.url);
  project.provide('testBackupCodes', JSON.stringify(auth.backupCodes));
  return () => auth.dispose();
}

declare module 'vitest' {
  export interface ProvidedContext {
    authUrl: string;
    /** JSON: each test account's single-use backup codes. */
    testBackupCodes: string;
  }
}
