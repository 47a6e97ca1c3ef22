import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import * as racingSchema from '#shared/racing/schema.ts';
import { type GenerateOptions, countRacing, generateRacing } from './generate.ts';
import { readRacingMigration } from './migration.ts';
import { withClient } from './pg-client.ts';
import { DEFAULT_SEED } from './sizes.ts';
import { RACING_TABLES, RACING_TABLE_NAMES, type RacingTableName, perTable } from './tables.ts';

/** Every table the racing schema declares (the migration creates them all; a load replaces them all). */
const SCHEMA_TABLE_NAMES = Object.values(racingSchema as Record<string, unknown>)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableName(table as PgTable));

// Bulk loading with INSERT … SELECT FROM unnest(arrays): one statement per few thousand rows,
// and it works over the plain extended protocol, so against PostgreSQL and PGlite alike (COPY
// does not go through pglite-socket).

const BATCH_ROWS = 8_000;

export type LoadOptions = GenerateOptions;

/**
 * Rows inserted so far into a table; once the rows are in, `table` is "indexes" (rows counts
 * index and constraint statements done) and then "analyze".
 */
export interface LoadProgress {
  table: RacingTableName | 'indexes' | 'analyze';
  rows: number;
  total?: number;
}

export interface LoadReport {
  rows: Record<RacingTableName, number>;
  elapsedMs: number;
}

export interface RacingDatasetInfo {
  size: string;
  seed: number;
  today: string;
  loadedAt: string;
  /** Tables the racing schema declares that the database lacks: the data predates a migration. */
  missingTables: string[];
}

type Queryable = pg.ClientBase;
type Row = Record<string, unknown>;

interface ColumnPlan {
  key: string;
  name: string;
  /** Array element type for the unnest cast, without precision (numeric, not numeric(4, 1)). */
  type: string;
}

interface TablePlan {
  insert: string;
  columns: ColumnPlan[];
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

function planTable(table: RacingTableName): TablePlan {
  const columns = Object.entries(getTableColumns(RACING_TABLES[table])).map(
    ([key, column]): ColumnPlan => ({
      key,
      name: column.name,
      type: column.getSQLType().replace(/\(.*\)/, ''),
    }),
  );
  const names = columns.map((c) => quote(c.name)).join(', ');
  const arrays = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  return { columns, insert: `INSERT INTO ${quote(table)} (${names}) SELECT * FROM unnest(${arrays})` };
}

/** Inserts batches while the generator produces the next: one statement in flight at a time. */
class BulkInserter {
  private readonly plans = perTable(planTable);
  private readonly buffers = perTable((): Row[] => []);
  readonly inserted = perTable(() => 0);
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: Queryable,
    private readonly onInserted: (table: RacingTableName, rows: number) => void,
  ) {}

  async add(table: RacingTableName, rows: readonly Row[]): Promise<void> {
    const buffer = this.buffers[table];
    for (const row of rows) buffer.push(row);
    if (buffer.length >= BATCH_ROWS) await this.flush(table);
  }

  async flush(table: RacingTableName): Promise<void> {
    const rows = this.buffers[table];
    if (rows.length === 0) return;
    this.buffers[table] = [];
    const plan = this.plans[table];
    const values = plan.columns.map((c) => rows.map((row) => row[c.key]));
    await this.inFlight;
    const insert = this.client.query(plan.insert, values).then(() => {
      this.inserted[table] += rows.length;
      this.onInserted(table, this.inserted[table]);
    });
    // Awaited at the next flush or at finish; until then a failure must not count as unhandled.
    insert.catch(() => undefined);
    this.inFlight = insert;
  }

  async finish(): Promise<void> {
    for (const table of RACING_TABLE_NAMES) await this.flush(table);
    await this.inFlight;
  }
}

/**
 * Replaces the racing tables with a generated data set: drops and recreates them, inserts the
 * rows, then builds indexes and foreign keys, resets id sequences, records the data set in
 * racing_dataset and analyzes. Everything before ANALYZE is one transaction.
 */
export async function loadRacing(
  target: Queryable | string,
  options: LoadOptions,
  onProgress?: (progress: LoadProgress) => void,
): Promise<LoadReport> {
  const started = performance.now();
  const migration = await readRacingMigration();
  // Exact totals cost a dry run of the generator, so only when someone is watching.
  const totals = onProgress ? countRacing(options) : undefined;
  return withClient(target, async (client) => {
    const inserter = new BulkInserter(client, (table, rows) => onProgress?.({ table, rows, total: totals?.[table] }));
    await client.query('BEGIN');
    try {
      // Tables of earlier migrations that a later one dropped too, in case this database still has them.
      const everyTable = [...new Set([...SCHEMA_TABLE_NAMES, ...migration.createdTables])].map(quote).join(', ');
      await client.query(`DROP TABLE IF EXISTS ${everyTable} CASCADE`);
      // Triggers that keep derived tables in step skip the bulk rows; the migration's fills run after them.
      await client.query(`SET LOCAL racing.bulk_load = 'on'`);
      for (const statement of migration.tables) await client.query(statement);
      for (const batch of generateRacing(options)) await inserter.add(batch.table, batch.rows);
      await inserter.finish();
      let done = 0;
      onProgress?.({ table: 'indexes', rows: done, total: migration.afterLoad.length });
      for (const statement of migration.afterLoad) {
        await client.query(statement);
        onProgress?.({ table: 'indexes', rows: ++done, total: migration.afterLoad.length });
      }
      for (const table of RACING_TABLE_NAMES) {
        await client.query(
          `SELECT setval(pg_get_serial_sequence('${quote(table)}', 'id'), coalesce(max(id), 0) + 1, false) FROM ${quote(table)}`,
        );
      }
      await client.query(`INSERT INTO ${quote(getTableName(racingSchema.racingDataset))} (size, seed, today) VALUES ($1, $2, $3)`, [
        options.size,
        options.seed ?? DEFAULT_SEED,
        options.today,
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    onProgress?.({ table: 'analyze', rows: 0 });
    await client.query('ANALYZE');
    return { rows: { ...inserter.inserted }, elapsedMs: performance.now() - started };
  });
}

/** The data set loaded into the database, or null when there is none (no racing_dataset table). */
export async function racingDatasetInfo(target: Queryable | string): Promise<RacingDatasetInfo | null> {
  return withClient(target, async (client) => {
    const table = getTableName(racingSchema.racingDataset);
    const exists = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
    if (!exists.rows[0]?.present) return null;
    const result = await client.query<{ size: string; seed: number; today: string; loaded_at: Date | string }>(
      `SELECT size, seed, today::text AS today, loaded_at FROM ${quote(table)} ORDER BY loaded_at DESC LIMIT 1`,
    );
    const row = result.rows[0];
    if (!row) return null;
    const present = await client.query<{ name: string; present: boolean }>(
      'SELECT name, to_regclass(quote_ident(name)) IS NOT NULL AS present FROM unnest($1::text[]) AS name',
      [SCHEMA_TABLE_NAMES],
    );
    const missingTables = present.rows.filter((r) => !r.present).map((r) => r.name);
    return { size: row.size, seed: row.seed, today: row.today, loadedAt: new Date(row.loaded_at).toISOString(), missingTables };
  });
}
