import { readFile } from 'node:fs/promises';
import type pg from 'pg';

const MIGRATIONS = new URL('../workers/shared/racing/migrations/', import.meta.url);

/**
 * Racing migrations newer than a bench database loaded once (bench data is kept between runs):
 * the statistics baselines table and its triggers (0003) when the table is missing.
 */
export async function applyMissingRacingMigrations(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ present: boolean }>(`select to_regclass('meeting_stats_baselines') is not null as present`);
  const sql = await readFile(new URL('0003_stats_baselines.sql', MIGRATIONS), 'utf8');
  const statements = sql.split('--> statement-breakpoint').map((s) => s.trim()).filter(Boolean);
  // With the table there, only what was added to the migration since (its indexes, IF NOT EXISTS).
  const missing = rows[0]?.present ? statements.filter((s) => /^(--[^\n]*\n)*CREATE INDEX IF NOT EXISTS/i.test(s)) : statements;
  await client.query('begin');
  try {
    for (const statement of missing) await client.query(statement);
    await client.query('analyze runners');
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  }
}
