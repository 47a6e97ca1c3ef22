import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedAuthDevAccount } from '../../scripts/auth-admin';
import { executeLocalD1 } from '../../scripts/d1-local';
import { ROOT, applyLocalD1Migrations } from '../../scripts/workers';

const persistTo = mkdtempSync(join(tmpdir(), 'auth-d1-'));
afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

const query = (sql: string) => executeLocalD1('workers/auth/wrangler.toml', 'DB', sql, persistTo);

// The path `npm run dev` takes: migrations, then the seed into local state (as `wrangler d1 execute --local` writes it).
describe('auth development seed and first-admin command', () => {
  it('seeds the demo account into local D1, idempotently', { timeout: 60_000 }, async () => {
    applyLocalD1Migrations('workers/auth/wrangler.toml', 'DB', persistTo);
    await seedAuthDevAccount(persistTo);
    await seedAuthDevAccount(persistTo);
    const [users] = query("select email, role, is_active, totp_secret like 'v1.%' as sealed from users");
    expect(users!.results).toEqual([{ email: 'demo@example.com', role: 'admin', is_active: 1, sealed: 1 }]);
    const [codes] = query('select count(*) as n from backup_codes');
    expect(codes!.results).toEqual([{ n: 10 }]);
  });

  it('creates an admin from the command line and prints the enrolment', { timeout: 60_000 }, () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/auth-admin.ts',
        'create-admin',
        '--email',
        'First.Admin@example.com',
        '--first',
        'First',
        '--persist-to',
        persistTo,
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, AUTH_ADMIN_PASSWORD: 'a long admin password', CI: 'true', WRANGLER_SEND_METRICS: 'false' },
      },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/otpauth:\/\/totp\/Racing%20back-office:first\.admin%40example\.com\?secret=[A-Z2-7]{32}&/);
    expect(run.stdout.match(/^ {2}[a-z0-9]{4}-[a-z0-9]{4}$/gm)).toHaveLength(10);
    const [users] = query("select email, role, first_name from users where email = 'first.admin@example.com'");
    expect(users!.results).toEqual([{ email: 'first.admin@example.com', role: 'admin', first_name: 'First' }]);
  });
});
