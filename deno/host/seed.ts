// The development data `npm run dev` seeds after the migrations (scripts/dev.ts, DEV_SEEDS), made
// by the same SQL generators (scripts/ and workers/auth/src/account-sql.ts) and run against the
// host's D1 files instead of `wrangler d1 execute`. Idempotent, as there.
//
// The generators are imported by computed URL: `deno check deno/` then leaves the Workers' and
// scripts' sources (checked by the project's own tsc) out of its graph.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { D1Database } from '../adapters/d1.ts';
import type { RunningService } from './host.ts';
import { ROOT } from './wrangler-config.ts';

// deno-lint-ignore no-explicit-any
const load = (path: string): Promise<any> => import(pathToFileURL(join(ROOT, path)).href);

export async function runStatements(db: D1Database, statements: string[]): Promise<void> {
  await db.batch(statements.map((sql) => db.prepare(sql)));
}

/**
 * Seeds one service's D1 (auth also gets the migration app's accounts when `withMigrate`); the
 * migration app's configuration names the legacy source at `legacyDatabaseUrl`, else the dev one.
 */
export async function seedDevData(
  service: RunningService,
  options: { withMigrate: boolean; legacyDatabaseUrl?: string },
): Promise<string | undefined> {
  const db = service.bindings.d1.get('DB');
  const env = service.bindings.env as Record<string, string>;
  if (!db) return undefined;
  if (service.name === 'auth') {
    const { devSeedSql, DEV_ACCOUNT } = await load('workers/auth/src/account-sql.ts');
    const issuer = env.AUTH_TOTP_ISSUER ?? 'Racing back-office';
    // The seed leaves an existing account's backup codes as they are: these are its codes only on a first start.
    const hadCodes = await db
      .prepare('SELECT count(*) AS n FROM backup_codes WHERE user_id = (SELECT id FROM users WHERE email = ?)')
      .bind(DEV_ACCOUNT.email)
      .first<number>('n');
    const { statements: devStatements, enrolment } = await devSeedSql(env.AUTH_TOTP_ENCRYPTION_KEY, issuer);
    const statements: string[] = [...devStatements];
    if (options.withMigrate) {
      const { migrateAuthAccountsSql } = await load('scripts/migrate-seed.ts');
      statements.push(...(await migrateAuthAccountsSql(env.AUTH_TOTP_ENCRYPTION_KEY, issuer)));
    }
    await runStatements(db, statements);
    const codes = hadCodes
      ? ''
      : `; its backup codes (each works once, shown on this first start only): ${enrolment.backupCodes.join(' ')}`;
    return `development account ${DEV_ACCOUNT.email}${options.withMigrate ? ", the migration app's Operator and Viewer" : ''}${codes}`;
  }
  if (service.name === 'cms') {
    const { generateCmsSeed, cmsSeedSql } = await load('scripts/cms-seed.ts');
    const data = generateCmsSeed();
    await runStatements(db, cmsSeedSql(data));
    return `development content: ${data.sites.length} sites, ${data.stories.length} stories`;
  }
  if (service.name === 'migrate') {
    const { configurationSql, syncJobSql, sourceDatabaseOf } = await load('scripts/migrate-seed.ts');
    const source = options.legacyDatabaseUrl
      ? sourceDatabaseOf(options.legacyDatabaseUrl)
      : (await load('scripts/racing/legacy-load.ts')).DEV_LEGACY_CONNECTION;
    await runStatements(db, [...(await configurationSql(source, env.CONFIG_ENCRYPTION_KEY)), ...syncJobSql(source)]);
    return `active configuration on the legacy source database ${source.host}:${source.port} with its sync job`;
  }
  return undefined;
}
