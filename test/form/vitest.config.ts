import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS, SHARED_WORKERD } from '../project-defaults';

// The form Worker inside workerd, from its own wrangler.toml (static assets, Cache API), over the
// racing data of the global setup.
const root = new URL('../..', import.meta.url).pathname;

export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: `${root}workers/form/wrangler.toml` },
      miniflare: {
        bindings: {
          DATABASE_URL: inject('racingDatabaseUrl'),
          PG_WS_PROXY: inject('pgRelay'),
          RACING_TODAY: inject('racingToday'),
          ADMIN_USERNAME: 'form-admin',
          ADMIN_PASSWORD: 'correct horse battery staple',
          SESSION_SECRET: 'test-only-session-secret-0123456789abcdef',
        },
      },
    })),
  ],
  test: { ...PROJECT_TEST_DEFAULTS, ...SHARED_WORKERD, name: 'form', include: ['test/form/**/*.test.ts'], root },
});
