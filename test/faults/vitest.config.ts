import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

// Faults under load, short and bounded: Node-side tests that start their own database, relay and
// Workers (in local workerd) and stop a piece of the stack while autocannon drives a route.
export default defineProject({
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'faults',
    environment: 'node',
    include: ['test/faults/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
