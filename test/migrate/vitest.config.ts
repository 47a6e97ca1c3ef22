import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { executeSql } from '../../scripts/auth-admin';
import { MIGRATE_SITE, siteRoleSql } from '../../scripts/migrate-seed';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';
import './global-setup';
import { PROJECT_TEST_DEFAULTS, prebundled, SHARED_WORKERD } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;
const migrations = await readD1Migrations(`${root}d1/migrate/migrations`);

// The migration app inside workerd with its real D1 and Durable Objects, over the racing data of
// the global setup (destination) and the legacy source database, signing in through the real
// authentication service of ./global-setup.ts.
export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: `${root}workers/migrate/wrangler.toml` },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          TEST_ACCOUNTS: JSON.stringify(TEST_ACCOUNTS),
          TEST_BACKUP_CODES: inject('migrateBackupCodes'),
          TEST_LEGACY_DATABASE_URL: inject('legacyDatabaseUrl') ?? '',
          TEST_REAL_POSTGRES_URL: inject('realPostgresUrl') ?? '',
          DATABASE_URL: inject('racingDatabaseUrl'),
          PG_WS_PROXY: inject('pgRelay'),
          MIGRATE_ALLOWED_HOSTS: inject('legacyDatabaseHost') ?? '',
          // The auto-sync tests' sheet addresses (imports.test.ts, sheet-hosts.test.ts).
          MIGRATE_SHEET_HOSTS: 'sheets.invalid,*.sheets.invalid',
          // The embedded racing database cannot take COPY … FROM STDIN (engine-direct.test.ts covers
          // that path on a real server).
          MIGRATE_DIRECT_COPY: inject('racingDatabaseEmbedded') ? 'off' : 'on',
          AUTH_CLIENT_SECRET: AUTH_TEST_VARS.AUTH_SSO_SHARED_SECRET,
          SESSION_SECRET: 'migrate-test-session-secret-0123456789abcdef',
          CONFIG_ENCRYPTION_KEY: 'migrate-test-config-key-0123456789abcdef01',
        },
        serviceBindings: {
          // Test only: sets (or, with role null, removes) an account's role on the migrate site at the auth service.
          AUTH_SITE_ROLE: async (request: Request) => {
            const { email, role } = (await request.json()) as { email: string; role: 'Admin' | 'Operator' | 'Viewer' | null };
            const user = `(SELECT id FROM users WHERE email = '${email.toLowerCase().replace(/'/g, "''")}')`;
            const site = `(SELECT id FROM sites WHERE site_name = '${MIGRATE_SITE}')`;
            const statements = role ? siteRoleSql(email, role) : [`DELETE FROM credentials WHERE user_id = ${user} AND site_id = ${site}`];
            executeSql(statements, { remote: false, persistTo: inject('migrateAuthPersist') });
            return new Response(null, { status: 204 });
          },
          // The real auth Worker, reached over local HTTP as the binding would reach it.
          AUTH: async (request: Request) => {
            const url = new URL(request.url);
            return fetch(new URL(url.pathname + url.search, inject('migrateAuthUrl')), {
              method: request.method,
              headers: request.headers,
              body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
            });
          },
        },
      },
    })),
  ],
  resolve: { preserveSymlinks: true },
  test: {
    ...PROJECT_TEST_DEFAULTS,
    // The files take turns in one workerd per worker slot; setup.ts empties its storage before each.
    ...SHARED_WORKERD,
    name: 'migrate',
    deps: prebundled(root, ['workers/migrate/src', 'workers/shared', 'durable-objects', 'test/migrate']),
    // Sign-in goes through the real auth service (scrypt) and runs copy jobs: seconds, not milliseconds.
    testTimeout: 30_000,
    include: ['test/migrate/**/*.test.ts'],
    setupFiles: ['test/migrate/setup.ts'],
    globalSetup: ['test/migrate/global-setup.ts'],
    root,
  },
});
