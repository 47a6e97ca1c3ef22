import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS, SHARED_WORKERD } from '../project-defaults';

// The shared Worker pieces (Postgres access, errors, validation, config) tested inside workerd.
export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      miniflare: {
        compatibilityDate: '2026-04-20',
        bindings: {
          DATABASE_URL: inject('racingDatabaseUrl'),
          PG_WS_PROXY: inject('pgRelay'),
          RACING_TODAY: inject('racingToday'),
          SILENT_PORT: String(inject('silentPort')),
        },
      },
    })),
  ],
  test: {
    ...PROJECT_TEST_DEFAULTS,
    ...SHARED_WORKERD,
    name: 'platform',
    include: ['test/platform/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
  },
});
