import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

// Real-browser tests: each service's pages in Debian Chromium, driven by playwright-core,
// against the service started in local workerd (test/support/browser.ts).
export default defineProject({
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'browser',
    environment: 'node',
    include: ['test/browser/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
    // One Chromium and one workerd at a time on a 2-core machine, beside the other projects' files:
    // not `fileParallelism: false`, which runs the project after all the others with one slot idle.
    setupFiles: ['test/support/one-at-a-time.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
