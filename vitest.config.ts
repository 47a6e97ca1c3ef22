import { defineConfig } from 'vitest/config';

// One project per Worker (each runs inside workerd with its own bindings), plus the Node-side
// scripts. The racing database and its relay are started once for all of them.
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    projects: ['test/*/vitest.config.ts'],
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
