import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS, prebundled, SHARED_WORKERD } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;
const migrations = await readD1Migrations(`${root}d1/auth/migrations`);

// The hash modules as one bundle each. Left to vitest's module transform, every call between
// @noble/hashes' own files goes through an accessor, and scrypt runs ten times slower than in
// a deployed Worker (which wrangler bundles the same way as here).
const bundled = mkdtempSync(join(tmpdir(), 'auth-noble-'));
const noble = Object.fromEntries(
  await Promise.all(
    ['scrypt', 'pbkdf2', 'sha2'].map(async (name) => {
      const outfile = join(bundled, `${name}.js`);
      await build({ entryPoints: [`@noble/hashes/${name}.js`], bundle: true, format: 'esm', outfile, logLevel: 'error' });
      return [`@noble/hashes/${name}.js`, outfile];
    }),
  ),
);

// The auth Worker with its real bindings (D1, both Durable Objects) from its wrangler.toml.
export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: `${root}workers/auth/wrangler.toml` },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          AUTH_SSO_SHARED_SECRET: 'test-client-secret',
          AUTH_TOKEN_SECRET: 'test-token-secret-0123456789abcdef0123456789',
          AUTH_TOTP_ENCRYPTION_KEY: 'dGVzdC10b3RwLWtleS0zMi1ieXRlcy0tLS0tLS0tLS0=',
          // Lower than production's 30, so the rate-limit tests need fewer password hashes (each
          // attempt at login spends one, known account or not); they read the limit from here.
          AUTH_IP_LIMIT_PER_MINUTE: '5',
        },
      },
    }),
  ],
  resolve: { alias: noble },
  test: {
    ...PROJECT_TEST_DEFAULTS,
    // The files take turns in one workerd per worker slot, over one database: each makes its own
    // accounts, sites, addresses and tokens, and counts only its own rows.
    ...SHARED_WORKERD,
    name: 'auth',
    // The hash modules are bundled above (resolve.alias), not by the optimizer.
    deps: prebundled(root, ['workers/auth/src', 'workers/shared', 'test/auth'], { exclude: Object.keys(noble) }),
    include: ['test/auth/**/*.test.ts'],
    setupFiles: ['test/auth/setup.ts'],
    testTimeout: 30_000,
    root,
  },
});
