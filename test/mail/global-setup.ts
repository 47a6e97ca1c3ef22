import type { TestProject } from 'vitest/node';
import { startGraphStandin } from '../../scripts/graph-standin/server';
import { startTestAuthService } from '../support/auth-service';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';

/**
 * The real authentication service for the mail tests, in its own workerd with its own D1 (the
 * mail Worker reaches it through its AUTH binding, which vitest.config.ts forwards here), and a
 * Graph and identity stand-in of this project's own, so that other projects' resets and faults
 * never reach it. Each test file works on a mailbox of its own there.
 */
export default async function setup(project: TestProject) {
  const [auth, standin] = await Promise.all([startTestAuthService(TEST_ACCOUNTS, AUTH_TEST_VARS), startGraphStandin({ port: 0 })]);
  project.provide('mailAuthUrl', auth.url);
  project.provide('mailGraphStandin', standin.url);
  project.provide('mailBackupCodes', JSON.stringify(auth.backupCodes));
  return async () => {
    await standin.close();
    await auth.dispose();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    mailAuthUrl: string;
    /** `http://127.0.0.1:PORT`: identity platform at the root, Graph under /v1.0, control under /_standin. */
    mailGraphStandin: string;
    /** JSON: each test account's single-use backup codes, for a sign-in once the TOTP steps are used. */
    mailBackupCodes: string;
  }
}
