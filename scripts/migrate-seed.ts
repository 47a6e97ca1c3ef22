import { accountSql } from '../workers/auth/src/account-sql.ts';
import { sealPassword } from '../workers/migrate/src/sealing.ts';
import { LEGACY_MAPPING } from './racing/legacy-mapping.ts';
import { devVar } from './dev-vars.ts';
import { devStateDir, executeD1 } from './workers.ts';

/**
 * Development data of the migration app: its site at the authentication service (role vocabulary
 * Admin, Operator, Viewer) with an Operator and a Viewer account, one active configuration
 * pointing at the legacy source database the dev runner starts, its mapping document, and one
 * enabled sync job copying its trainers every 5 minutes. Idempotent.
 */

export const MIGRATE_SITE = 'migrate';
export const MIGRATE_ROLES = ['Admin', 'Operator', 'Viewer'] as const;
const ISSUER = 'Racing back-office';

/** Development values only. */
export const DEV_MIGRATE_ACCOUNTS = {
  operator: {
    email: 'operator@example.com',
    password: 'operator-password-1',
    totpSecret: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF',
    siteRole: 'Operator',
  },
  viewer: {
    email: 'viewer@example.com',
    password: 'viewer-password-1',
    totpSecret: 'OZUWK53FOIQHI33UOAQHGZLDOJSXIIDL',
    siteRole: 'Viewer',
  },
} as const;

const text = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The migrate site (with its role vocabulary) at the authentication service. */
export function migrateSiteSql(siteUrl = 'http://localhost:8705'): string[] {
  return [
    `INSERT INTO sites (site_name, site_url, roles) VALUES (${text(MIGRATE_SITE)}, ${text(siteUrl)}, ${text(JSON.stringify(MIGRATE_ROLES))}) ON CONFLICT(site_name) DO UPDATE SET roles = excluded.roles`,
  ];
}

/** Gives an existing account a role on the migrate site, with its siteless password. */
export function siteRoleSql(email: string, role: (typeof MIGRATE_ROLES)[number]): string[] {
  const user = `(SELECT id FROM users WHERE email = ${text(email.toLowerCase())})`;
  const site = `(SELECT id FROM sites WHERE site_name = ${text(MIGRATE_SITE)})`;
  return [
    `DELETE FROM credentials WHERE user_id = ${user} AND site_id = ${site}`,
    `INSERT INTO credentials (user_id, site_id, password_hash, site_role) SELECT user_id, ${site}, password_hash, ${text(role)} FROM credentials WHERE user_id = ${user} AND site_id IS NULL`,
  ];
}

/** SQL for the migrate site and its Operator and Viewer development accounts (idempotent). */
export async function migrateAuthAccountsSql(totpEncryptionKey: string, issuer = ISSUER): Promise<string[]> {
  const statements = [...migrateSiteSql()];
  for (const [name, account] of Object.entries(DEV_MIGRATE_ACCOUNTS)) {
    const { statements: sql } = await accountSql({
      email: account.email,
      password: account.password,
      totpSecret: account.totpSecret,
      role: 'user',
      firstName: name[0]!.toUpperCase() + name.slice(1),
      lastName: 'Demo',
      totpEncryptionKey,
      issuer,
      mode: 'ensure',
    });
    statements.push(...sql, ...siteRoleSql(account.email, account.siteRole));
  }
  return statements;
}

/** The Operator and Viewer development accounts and the site, in the auth service's local D1. */
export async function seedMigrateAuthAccounts(
  authPersistTo = devStateDir('auth'),
  totpEncryptionKey = devVar('auth', 'AUTH_TOTP_ENCRYPTION_KEY'),
): Promise<void> {
  executeD1('workers/auth/wrangler.toml', 'DB', await migrateAuthAccountsSql(totpEncryptionKey), { persistTo: authPersistTo });
}

export type SourceDatabase = { host: string; port: number; database: string; username: string; password: string };

/** The source database a `postgres://user:password@host:port/database` URL names. */
export function sourceDatabaseOf(url: string): SourceDatabase {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    database: u.pathname.slice(1) || 'postgres',
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

/** SQL adding the configuration (when no configuration names that database) and making it active when none is. */
export async function configurationSql(
  source: SourceDatabase,
  encryptionKey: string,
  name = 'Legacy racing system (development)',
): Promise<string[]> {
  const sealed = await sealPassword(encryptionKey, source, source.password);
  const now = Date.now();
  return [
    `INSERT INTO configurations (name, host, port, database, username, password_sealed, is_active, created_at, updated_at) SELECT ${text(name)}, ${text(source.host)}, ${source.port}, ${text(source.database)}, ${text(source.username)}, ${text(sealed)}, 0, ${now}, ${now} WHERE NOT EXISTS (SELECT 1 FROM configurations WHERE host = ${text(source.host)} AND port = ${source.port} AND database = ${text(source.database)})`,
    `UPDATE configurations SET is_active = 1 WHERE host = ${text(source.host)} AND port = ${source.port} AND database = ${text(source.database)} AND NOT EXISTS (SELECT 1 FROM configurations WHERE is_active = 1)`,
  ];
}

export const DEV_SYNC_JOB = { name: 'Trainers from the legacy system (development)', tables: ['trainer'], intervalMinutes: 5 } as const;

/**
 * SQL giving the configuration of `source` the legacy mapping document (for its sync jobs) and the
 * development sync job, due at once, when it has none by that name.
 */
export function syncJobSql(source: SourceDatabase, now = Date.now()): string[] {
  const config = `(SELECT id FROM configurations WHERE host = ${text(source.host)} AND port = ${source.port} AND database = ${text(source.database)})`;
  return [
    `INSERT INTO sync_schema_files (config_id, document, uploaded_by, uploaded_at) SELECT ${config}, ${text(JSON.stringify(LEGACY_MAPPING))}, 'development seed', ${now} WHERE ${config} IS NOT NULL ON CONFLICT(config_id) DO NOTHING`,
    `INSERT INTO sync_jobs (name, config_id, tables, patch_mode, interval_minutes, enabled, next_run_at, created_at, updated_at) SELECT ${text(DEV_SYNC_JOB.name)}, ${config}, ${text(JSON.stringify(DEV_SYNC_JOB.tables))}, 0, ${DEV_SYNC_JOB.intervalMinutes}, 1, ${now}, ${now}, ${now} WHERE ${config} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sync_jobs WHERE name = ${text(DEV_SYNC_JOB.name)})`,
  ];
}

/** The active development configuration and its sync job in the migrate Worker's local D1. */
export async function seedMigrateDevData(source: SourceDatabase, persistTo = devStateDir('migrate')): Promise<void> {
  const statements = [...(await configurationSql(source, devVar('migrate', 'CONFIG_ENCRYPTION_KEY'))), ...syncJobSql(source)];
  executeD1('workers/migrate/wrangler.toml', 'DB', statements, { persistTo });
}
