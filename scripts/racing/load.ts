import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { racingDataset } from '../../workers/shared/racing/schema';
import { ROOT } from '../workers';
import { type GenerateOptions, generateRacing } from './generate';
import { DEFAULT_SEED } from './sizes';
import { RACING_TABLES, type RacingBatch, type RacingTableName } from './tables';

const MIGRATIONS = join(ROOT, 'workers', 'shared', 'racing', 'migrations');
const BATCH_ROWS = 5_000;

export type LoadProgress = { table: RacingTableName; rows: number };
export type RacingDatasetInfo = { size: string; seed: number; today: string };

/**
 * Replaces the racing tables with a generated data set: tables first, rows in bulk (one
 * `INSERT … SELECT * FROM unnest(…)` per few thousand rows, which works on PostgreSQL and on
 * PGlite alike), then indexes and foreign keys, then ANALYZE. All in one transaction.
 */
export async function loadRacing(
  client: pg.ClientBase,
  options: GenerateOptions,
  onProgress?: (progress: LoadProgress) => void,
): Promise<Record<RacingTableName, number>> {
  const { tables, afterLoad } = migrationStatements();
  const inserters = new Map<RacingTableName, BulkInserter>();
  const pending = new Map<RacingTableName, Record<string, unknown>[]>();
  const loaded = Object.fromEntries(Object.keys(RACING_TABLES).map((t) => [t, 0])) as Record<RacingTableName, number>;

  const flush = async (table: RacingTableName) => {
    const rows = pending.get(table);
    if (!rows?.length) return;
    let inserter = inserters.get(table);
    if (!inserter) inserters.set(table, (inserter = new BulkInserter(RACING_TABLES[table])));
    await inserter.insert(client, rows);
    loaded[table] += rows.length;
    pending.set(table, []);
    onProgress?.({ table, rows: loaded[table] });
  };

  await client.query('BEGIN');
  try {
    const names = [...Object.values(RACING_TABLES), racingDataset].map((t) => `"${getTableName(t)}"`);
    await client.query(`DROP TABLE IF EXISTS ${names.join(', ')} CASCADE`);
    for (const statement of tables) await client.query(statement);

    for (const batch of generateRacing(options) as Iterable<RacingBatch>) {
      const rows = pending.get(batch.table) ?? [];
      for (const row of batch.rows) rows.push(row);
      pending.set(batch.table, rows);
      if (rows.length >= BATCH_ROWS) await flush(batch.table);
    }
    for (const table of Object.keys(RACING_TABLES) as RacingTableName[]) await flush(table);

    for (const statement of afterLoad) await client.query(statement);
    // Rows came with explicit ids: move each identity sequence past them.
    for (const table of Object.values(RACING_TABLES)) {
      const name = getTableName(table);
      await client.query(
        `SELECT setval(pg_get_serial_sequence('"${name}"', 'id'), GREATEST((SELECT max(id) FROM "${name}"), 1))`,
      );
    }
    await client.query('INSERT INTO racing_dataset (size, seed, today) VALUES ($1, $2, $3)', [
      options.size,
      options.seed ?? DEFAULT_SEED,
      options.today,
    ]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
  await client.query('ANALYZE');
  return loaded;
}

/** Which generated data set the database holds, or null when it holds none. */
export async function racingDatasetInfo(client: pg.ClientBase): Promise<RacingDatasetInfo | null> {
  try {
    const { rows } = await client.query<RacingDatasetInfo>(
      'SELECT size, seed, to_char(today, \'YYYY-MM-DD\') AS today FROM racing_dataset ORDER BY loaded_at DESC LIMIT 1',
    );
    return rows[0] ?? null;
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === '42P01') return null; // undefined_table
    throw err;
  }
}

/** The drizzle-kit migration, split into table definitions and what is cheaper after a bulk load. */
function migrationStatements(): { tables: string[]; afterLoad: string[] } {
  const statements = readdirSync(MIGRATIONS)
    .filter((file) => /^\d{4}_.*\.sql$/.test(file))
    .sort()
    .flatMap((file) => readFileSync(join(MIGRATIONS, file), 'utf8').split('--> statement-breakpoint'))
    .map((statement) => statement.trim())
    .filter(Boolean);
  const isTable = (s: string) => /^CREATE TABLE/i.test(s);
  return { tables: statements.filter(isTable), afterLoad: statements.filter((s) => !isTable(s)) };
}

/** One table's bulk INSERT: a column array per column, typed from the drizzle schema. */
class BulkInserter {
  private readonly keys: string[];
  private readonly sql: string;

  constructor(table: PgTable) {
    const columns = Object.entries(getTableColumns(table));
    this.keys = columns.map(([key]) => key);
    const names = columns.map(([, column]) => `"${column.name}"`).join(', ');
    const arrays = columns.map(([, column], i) => `$${i + 1}::${column.getSQLType()}[]`).join(', ');
    this.sql = `INSERT INTO "${getTableName(table)}" (${names}) SELECT * FROM unnest(${arrays})`;
  }

  async insert(client: pg.ClientBase, rows: Record<string, unknown>[]): Promise<void> {
    const values = this.keys.map((key) => rows.map((row) => row[key] ?? null));
    await client.query(this.sql, values);
  }
}
