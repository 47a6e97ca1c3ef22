import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

// The command line (`npm run mail`, scripts/mail-cli) in Node against the mail Worker in local
// workerd, the real authentication Worker and the Graph stand-in, started once by ./global-setup.ts.
export default defineProject({
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'mail-cli',
    environment: 'node',
    include: ['test/mail-cli/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
    globalSetup: ['test/mail-cli/global-setup.ts'],
    // Sign-in goes through the real auth service (scrypt); one workerd for the files, each with an account and mailbox of its own.
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
