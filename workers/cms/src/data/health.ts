import { sql } from 'drizzle-orm';
import { parseConfig } from '#shared/config.ts';
import { openRacingReads, racingDbConfigSchema } from '#shared/pg.ts';

/** One trivial statement against the CMS database: it throws when D1 does not answer. */
export async function pingCmsDatabase(env: Env): Promise<void> {
  await env.DB.prepare('select 1').first();
}

/** One trivial statement against the racing database: it throws when Postgres does not answer. */
export async function pingRacingDatabase(env: Env): Promise<void> {
  await openRacingReads(parseConfig(racingDbConfigSchema, env)).execute(sql`select 1`);
}
