import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { FAKE_EXTERNAL_KEY } from './fake-contract';
import './global-setup';
import { PROJECT_TEST_DEFAULTS, SHARED_WORKERD } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;

// The stats Worker inside workerd with its real Durable Object, against the racing database of
// the global setup (tiny data) and the fake external services of ./global-setup.ts.
export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: `${root}workers/stats/src/index.ts`,
      wrangler: { configPath: `${root}workers/stats/wrangler.toml` },
      miniflare: {
        bindings: {
          DATABASE_URL: inject('racingDatabaseUrl'),
          PG_WS_PROXY: inject('pgRelay'),
          RACING_TODAY: inject('racingToday'),
          STATIC_API_TOKEN: 'test-static-token-0123456789',
          ADMIN_USERNAME: 'admin',
          ADMIN_PASSWORD: 'test-admin-password',
          EXTERNAL_API_BASE_URL: inject('fakeExternalUrl'),
          EXTERNAL_API_KEY: FAKE_EXTERNAL_KEY,
          EXTERNAL_API_TIMEOUT_MS: '1000',
          AUTH_LOGOUT_URL: `${inject('fakeExternalUrl')}/logout`,
          AUTH_LOGOUT_TIMEOUT_MS: '1000',
          SSO_PORTAL_URL: 'https://sso.racing.example/portal',
          FAKE_EXTERNAL_URL: inject('fakeExternalUrl'),
          SILENT_PORT: String(inject('silentPort')),
        },
      },
    })),
  ],
  // node_modules is a symlink here: keep its path under the root so the Text module rules of
  // wrangler.toml (npm assets bundled as strings) resolve the same way wrangler's bundler does.
  resolve: { preserveSymlinks: true },
  test: {
    ...PROJECT_TEST_DEFAULTS,
    ...SHARED_WORKERD,
    name: 'stats',
    include: ['test/stats/**/*.test.ts'],
    globalSetup: ['test/stats/global-setup.ts'],
    root,
  },
});
