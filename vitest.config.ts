import { defineConfig } from 'vitest/config';

// One project per Worker (each runs inside workerd with its own bindings), plus the Node-side
// scripts. The racing database and its relay are started once for all of them.
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    projects: ['test/*/vitest.config.ts'],
    // One test file at a time, whatever the machine reports: the racing database is one embedded
    // PGlite that runs one statement at a time, and files share the relay, the Graph stand-in and
    // Chromium; two files at once could stall each other on a slower machine.
    maxWorkers: 1,
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
