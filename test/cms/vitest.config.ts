import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { forwardToAuthService } from '../support/auth-service';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';
import './global-setup';
import { PROJECT_TEST_DEFAULTS, SHARED_WORKERD } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;
const migrations = await readD1Migrations(`${root}d1/cms/migrations`);

// The CMS Worker inside workerd with its real D1 and R2, over the racing data of the global
// setup, signing in through the real authentication service of ./global-setup.ts.
export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: `${root}workers/cms/wrangler.toml` },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          TEST_ACCOUNTS: JSON.stringify(TEST_ACCOUNTS),
          TEST_BACKUP_CODES: inject('testBackupCodes'),
          DATABASE_URL: inject('racingDatabaseUrl'),
          PG_WS_PROXY: inject('pgRelay'),
          RACING_TODAY: inject('racingToday'),
          AUTH_CLIENT_SECRET: AUTH_TEST_VARS.AUTH_SSO_SHARED_SECRET,
          SESSION_SECRET: 'cms-test-session-secret-0123456789abcdef',
          CMS_EDITOR_ORIGINS: 'https://editor.example',
        },
        serviceBindings: {
          // The real auth Worker, reached over local HTTP as the binding would reach it.
          AUTH: forwardToAuthService(() => inject('authUrl')),
        },
      },
    })),
  ],
  // node_modules may be a symlink to a shared install: keep its paths under the project root, so
  // that workerd's module fallback can load @cf-wasm/photon's .wasm as a CompiledWasm module.
  resolve: { preserveSymlinks: true },
  test: {
    ...PROJECT_TEST_DEFAULTS,
    ...SHARED_WORKERD,
    name: 'cms',
    include: ['test/cms/**/*.test.ts'],
    setupFiles: ['test/cms/setup.ts'],
    globalSetup: ['test/cms/global-setup.ts'],
    root,
  },
});
