import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One project per Worker (each runs inside workerd with its own bindings), plus the Node-side
// scripts. The racing database and its relay are started once for all of them.
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    projects: ['test/*/vitest.config.ts'],
    // One test file per core (vitest's default leaves one core idle): most files spend their time
    // waiting on workerd, PostgreSQL or Chromium, which run in processes of their own.
    maxWorkers: availableParallelism(),
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
