import type pg from 'pg';
import { DEFAULT_SEED } from './sizes.ts';
import { withClient } from './pg-client.ts';
import { LEGACY_TABLES, LEGACY_TABLE_NAMES, type LegacyOptions, type LegacyRow, type LegacyTableName, generateLegacy } from './legacy.ts';

// Loads the old system's database (see legacy.ts) the way load.ts loads the racing one: tables
// without constraints, rows by INSERT … SELECT FROM unnest(arrays) in batches, then primary keys,
// foreign keys and indexes, all in one transaction; then ANALYZE.

const BATCH_ROWS = 8_000;
const DATASET_TABLE = 'legacy_dataset';

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
const arrayType = (type: string) => type.replace(/\(.*\)/, '');

export interface LegacyLoadReport {
  rows: Record<LegacyTableName, number>;
  elapsedMs: number;
}

/** CREATE TABLE statements (no constraints) and the constraints/indexes to add once rows are in. */
export function legacyDdl(): { tables: string[]; afterLoad: string[] } {
  const tables: string[] = [];
  const afterLoad: string[] = [];
  for (const { table, columns } of LEGACY_TABLES) {
    const defs = columns.map((c) => `${quote(c.name)} ${c.type}${c.notNull || c === columns[0] ? ' NOT NULL' : ''}`);
    tables.push(`CREATE TABLE ${quote(table)} (${defs.join(', ')})`);
    afterLoad.push(`ALTER TABLE ${quote(table)} ADD PRIMARY KEY (${quote(columns[0]!.name)})`);
  }
  for (const { table, columns } of LEGACY_TABLES) {
    for (const column of columns) {
      if (!column.references) continue;
      const parent = LEGACY_TABLES.find((t) => t.table === column.references)!;
      afterLoad.push(
        `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(`${table}_${column.name}_fkey`)} FOREIGN KEY (${quote(column.name)}) REFERENCES ${quote(parent.table)} (${quote(parent.columns[0]!.name)})`,
        `CREATE INDEX ${quote(`${table}_${column.name}_idx`)} ON ${quote(table)} (${quote(column.name)})`,
      );
    }
  }
  afterLoad.push(`CREATE UNIQUE INDEX "venue_code_key" ON "venue" ("venue_code")`);
  return { tables, afterLoad };
}

/** Replaces the old system's tables with a generated data set (everything before ANALYZE in one transaction). */
export async function loadLegacy(
  target: pg.ClientBase | string,
  options: LegacyOptions,
  onProgress?: (table: LegacyTableName, rows: number) => void,
): Promise<LegacyLoadReport> {
  const started = performance.now();
  const ddl = legacyDdl();
  const counts = Object.fromEntries(LEGACY_TABLE_NAMES.map((t) => [t, 0])) as Record<LegacyTableName, number>;
  const inserts = new Map(
    LEGACY_TABLES.map(({ table, columns }) => [
      table,
      {
        columns,
        sql: `INSERT INTO ${quote(table)} (${columns.map((c) => quote(c.name)).join(', ')}) SELECT * FROM unnest(${columns
          .map((c, i) => `$${i + 1}::${arrayType(c.type)}[]`)
          .join(', ')})`,
      },
    ]),
  );
  const buffers = new Map<LegacyTableName, LegacyRow[]>(LEGACY_TABLE_NAMES.map((t) => [t, []]));
  return withClient(target, async (client) => {
    const flush = async (table: LegacyTableName) => {
      const rows = buffers.get(table)!;
      if (rows.length === 0) return;
      buffers.set(table, []);
      const plan = inserts.get(table)!;
      await client.query(
        plan.sql,
        plan.columns.map((c) => rows.map((row) => row[c.name] ?? null)),
      );
      counts[table] += rows.length;
      onProgress?.(table, counts[table]);
    };
    await client.query('BEGIN');
    try {
      await client.query(`DROP TABLE IF EXISTS ${[...LEGACY_TABLE_NAMES, DATASET_TABLE].map(quote).join(', ')} CASCADE`);
      for (const statement of ddl.tables) await client.query(statement);
      for (const batch of generateLegacy(options)) {
        const buffer = buffers.get(batch.table)!;
        for (const row of batch.rows) buffer.push(row);
        if (buffer.length >= BATCH_ROWS) await flush(batch.table);
      }
      for (const table of LEGACY_TABLE_NAMES) await flush(table);
      for (const statement of ddl.afterLoad) await client.query(statement);
      await client.query(
        `CREATE TABLE ${quote(DATASET_TABLE)} (size text NOT NULL, seed integer NOT NULL, today date NOT NULL, extra_days integer NOT NULL, loaded_at timestamptz NOT NULL DEFAULT now())`,
      );
      await client.query(`INSERT INTO ${quote(DATASET_TABLE)} (size, seed, today, extra_days) VALUES ($1, $2, $3, $4)`, [
        options.size,
        options.seed ?? DEFAULT_SEED,
        options.today,
        options.extraDays ?? 3,
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    await client.query('ANALYZE');
    return { rows: counts, elapsedMs: performance.now() - started };
  });
}

/** The data set in the old system's database, or null when there is none. */
export async function legacyDatasetInfo(target: pg.ClientBase | string): Promise<{ size: string; seed: number; today: string } | null> {
  return withClient(target, async (client) => {
    const exists = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [DATASET_TABLE]);
    if (!exists.rows[0]?.present) return null;
    const result = await client.query<{ size: string; seed: number; today: string }>(
      `SELECT size, seed, today::text AS today FROM ${quote(DATASET_TABLE)} ORDER BY loaded_at DESC LIMIT 1`,
    );
    return result.rows[0] ?? null;
  });
}

/** The dev runner's legacy source database (embedded PGlite behind a password check on a fixed port; data in .data/pglite-legacy). */
export const DEV_LEGACY_PORT = 54330;
export const DEV_LEGACY_CONNECTION = {
  host: '127.0.0.1',
  port: DEV_LEGACY_PORT,
  database: 'postgres',
  username: 'postgres',
  // Checked by the front before the embedded database (scripts/racing/legacy-password.ts).
  password: 'postgres',
} as const;
