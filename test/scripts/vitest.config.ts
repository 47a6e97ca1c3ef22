import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'scripts',
    environment: 'node',
    include: ['test/scripts/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
