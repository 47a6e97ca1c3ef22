import { defineProject } from 'vitest/config';

// The Deno adapters (deno/adapters): their Deno tests and `deno check`, run from Node with the
// npm-installed Deno.
export default defineProject({
  test: {
    name: 'deno',
    environment: 'node',
    include: ['test/deno/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
