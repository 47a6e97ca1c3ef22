import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEV_MIGRATE_ACCOUNTS, seedMigrateAuthAccounts, seedMigrateDevData } from '../../scripts/migrate-seed';
import { queryLocalD1 } from '../../scripts/d1-local';
import { applyLocalD1Migrations } from '../../scripts/workers';
import { DEV_LEGACY_CONNECTION } from '../../scripts/racing/legacy-load';
import { openPassword } from '../../workers/migrate/src/sealing';

const KEY = 'dev-only-migrate-config-key-change-me-012345';

function query<T>(config: string, persistTo: string, sql: string): T[] {
  return queryLocalD1<T>(config, 'DB', persistTo, sql);
}

describe('migration app development seed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrate-seed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores one active configuration on the legacy database with a sealed password, once however often it runs', async () => {
    const persistTo = join(dir, 'migrate');
    applyLocalD1Migrations('workers/migrate/wrangler.toml', 'DB', persistTo);
    process.env.CONFIG_ENCRYPTION_KEY = KEY;
    try {
      await seedMigrateDevData(DEV_LEGACY_CONNECTION, persistTo);
      await seedMigrateDevData(DEV_LEGACY_CONNECTION, persistTo);
    } finally {
      delete process.env.CONFIG_ENCRYPTION_KEY;
    }
    const rows = query<{ host: string; port: number; database: string; username: string; password_sealed: string; is_active: number }>(
      'workers/migrate/wrangler.toml',
      persistTo,
      'select host, port, database, username, password_sealed, is_active from configurations',
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({ host: DEV_LEGACY_CONNECTION.host, port: DEV_LEGACY_CONNECTION.port, is_active: 1 });
    expect(row.password_sealed).not.toContain(DEV_LEGACY_CONNECTION.password);
    expect(await openPassword(KEY, row, row.password_sealed)).toBe(DEV_LEGACY_CONNECTION.password);
  }, 240_000);

  it('gives the Operator and Viewer accounts their roles on the migrate site, once however often it runs', async () => {
    const persistTo = join(dir, 'auth');
    applyLocalD1Migrations('workers/auth/wrangler.toml', 'DB', persistTo);
    await seedMigrateAuthAccounts(persistTo, 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=');
    await seedMigrateAuthAccounts(persistTo, 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=');
    const sites = query<{ site_name: string; roles: string }>(
      'workers/auth/wrangler.toml',
      persistTo,
      'select site_name, roles from sites',
    );
    expect(sites).toEqual([{ site_name: 'migrate', roles: '["Admin","Operator","Viewer"]' }]);
    const roles = query<{ email: string; site_role: string }>(
      'workers/auth/wrangler.toml',
      persistTo,
      'select u.email, c.site_role from credentials c join users u on u.id = c.user_id where c.site_id is not null order by u.email',
    );
    expect(roles).toEqual([
      { email: DEV_MIGRATE_ACCOUNTS.operator.email, site_role: 'Operator' },
      { email: DEV_MIGRATE_ACCOUNTS.viewer.email, site_role: 'Viewer' },
    ]);
  }, 240_000);
});
