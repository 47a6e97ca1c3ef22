import type pg from 'pg';
import { migrationStatements } from '../scripts/racing/migration.ts';

/**
 * Racing migrations newer than a bench database loaded once (bench data is kept between runs): the
 * statistics' daily aggregates, their triggers and their fill from the loaded rows (0004) when the
 * tables are missing. One transaction; the new tables are vacuumed after it, so their reads are index-only.
 */
export async function applyMissingRacingMigrations(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ present: boolean }>(`select to_regclass('meeting_stats_days') is not null as present`);
  if (rows[0]?.present) return;
  console.log('• applying racing migration 0004 (statistics daily aggregates) to the bench data…');
  const statements = await migrationStatements('0004_stats_daily_aggregates');
  await client.query('begin');
  try {
    for (const statement of statements) await client.query(statement);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  }
  for (const table of ['meeting_stats_days', 'meeting_stats_person_days', 'meeting_stats_person_horses'])
    await client.query(`vacuum analyze ${table}`);
}
