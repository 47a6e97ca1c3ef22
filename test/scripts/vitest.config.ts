import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

export default defineProject({
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'scripts',
    environment: 'node',
    include: ['test/scripts/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
