import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

// The Deno adapters (deno/adapters): their Deno tests and `deno check`, run from Node with the
// npm-installed Deno.
export default defineProject({
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'deno',
    environment: 'node',
    include: ['test/deno/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
