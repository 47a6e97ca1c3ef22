import { z } from 'zod';
import { type Reads, ident, sourceReads, destinationReads, rows as readRows } from './db.ts';
import { countMappings } from './mappings.ts';
import type { TableSample } from './suggest.ts';
import type { Connection, EngineEnv, TableInfo } from './types.ts';

// What the suggestions and the duplicate guard read from the databases: sampled rows, unique
// indexes, how unique a column set is in the destination, and row counts. Each is one read-only
// batch (one round trip) over the HTTP read path; names are quoted identifiers, values parameters.

/** Rows read per table for the suggestions. */
export const SAMPLE_ROWS = 1_000;
/** Destination rows a uniqueness check reads. */
export const UNIQUE_CHECK_ROWS = 50_000;
const SAMPLE_TIMEOUT_MS = 10_000;
/** Longest text kept of a sampled value. */
const VALUE_CHARS = 200;

/** Up to `limit` rows of each table, every column as text (at most 200 characters). */
export async function sampleTables(reads: Reads, tables: readonly TableInfo[], limit = SAMPLE_ROWS): Promise<Map<string, TableSample>> {
  const wanted = tables.filter((t) => t.columns.length > 0);
  if (wanted.length === 0) return new Map();
  const statements = wanted.map((t) => ({
    text: `SELECT ${t.columns.map((c, i) => `left(${ident(c.ColumnName)}::text, ${VALUE_CHARS}) AS c${i}`).join(', ')} FROM ${ident(t.name)} LIMIT $1`,
    values: [limit],
  }));
  const results = await reads.batch(statements, { statementTimeoutMs: SAMPLE_TIMEOUT_MS });
  const out = new Map<string, TableSample>();
  wanted.forEach((t, i) => {
    const rows = results[i] ?? [];
    const columns: Record<string, (string | null)[]> = {};
    t.columns.forEach((c, j) => {
      columns[c.ColumnName] = rows.map((r) => (r[`c${j}`] === null || r[`c${j}`] === undefined ? null : String(r[`c${j}`])));
    });
    out.set(t.name, { table: t.name, rows: rows.length, columns });
  });
  return out;
}

/** Samples of source tables (the active configuration's database). */
export function sampleSource(env: EngineEnv, conn: Connection, tables: readonly TableInfo[]): Promise<Map<string, TableSample>> {
  return sampleTables(sourceReads(env, conn), tables);
}

/** Samples of destination tables. */
export function sampleDestination(env: EngineEnv, tables: readonly TableInfo[]): Promise<Map<string, TableSample>> {
  return sampleTables(destinationReads(env), tables);
}

export type UniqueIndex = { table: string; name: string; columns: string[] };

const UNIQUES = `
SELECT c.relname::text AS table_name, i.relname::text AS index_name,
       ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(num, ord)
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.num ORDER BY k.ord) AS columns
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class c ON c.oid = x.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND x.indisunique AND NOT x.indisprimary AND x.indpred IS NULL AND x.indexprs IS NULL
ORDER BY c.relname, i.relname`;

/** The destination's unique constraints and unique indexes on plain columns (no expression, no predicate). */
export async function destinationUniques(env: EngineEnv): Promise<UniqueIndex[]> {
  const rows = await readRows(
    destinationReads(env),
    z.object({ table_name: z.string(), index_name: z.string(), columns: z.unknown() }),
    UNIQUES,
  );
  return rows.map((r) => ({
    table: r.table_name,
    name: r.index_name,
    columns: Array.isArray(r.columns)
      ? r.columns.map(String)
      : String(r.columns)
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter(Boolean),
  }));
}

/** How a column set fares in the destination table: rows read, distinct value sets, rows with an empty value. */
export type KeyStats = { rows: number; distinct: number; withNull: number; capped: boolean };

/** For each column set of `sets`, its KeyStats over the first 50,000 rows of `table` (one statement). */
export async function destinationKeyStats(env: EngineEnv, table: string, sets: readonly string[][]): Promise<KeyStats[]> {
  if (sets.length === 0) return [];
  const columns = [...new Set(sets.flat())];
  const parts = sets.flatMap((set, i) => [
    `count(DISTINCT json_build_array(${set.map(ident).join(', ')})::text)::int AS d${i}`,
    `(count(*) FILTER (WHERE ${set.map((c) => `${ident(c)} IS NULL`).join(' OR ')}))::int AS z${i}`,
  ]);
  const [rows = []] = await destinationReads(env).batch(
    [
      {
        text: `SELECT count(*)::int AS n, ${parts.join(', ')} FROM (SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)} LIMIT $1) s`,
        values: [UNIQUE_CHECK_ROWS + 1],
      },
    ],
    { statementTimeoutMs: SAMPLE_TIMEOUT_MS },
  );
  const row = rows[0] ?? {};
  const n = Number(row.n ?? 0);
  return sets.map((_, i) => ({
    rows: Math.min(n, UNIQUE_CHECK_ROWS),
    distinct: Number(row[`d${i}`] ?? 0),
    withNull: Number(row[`z${i}`] ?? 0),
    capped: n > UNIQUE_CHECK_ROWS,
  }));
}

/** Destination rows of each table (counted up to `cap`) and the configuration's id mappings into it. */
export async function destinationCounts(
  env: EngineEnv,
  configId: number,
  tables: readonly string[],
  cap = 1_000_000,
): Promise<Map<string, { rows: number; mapped: number; capped: boolean }>> {
  const out = new Map<string, { rows: number; mapped: number; capped: boolean }>();
  if (tables.length === 0) return out;
  const results = await destinationReads(env).batch(
    tables.map((t) => ({
      text: `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM ${ident(t)} LIMIT $3) s) AS n, ${countMappings('$t.config_id = $1 AND $t.dest_table = $2')} AS mapped`,
      values: [configId, t, cap + 1],
    })),
    { statementTimeoutMs: SAMPLE_TIMEOUT_MS },
  );
  tables.forEach((t, i) => {
    const row = results[i]?.[0] ?? {};
    const n = Number(row.n ?? 0);
    out.set(t, { rows: Math.min(n, cap), mapped: Number(row.mapped ?? 0), capped: n > cap });
  });
  return out;
}

/** Rows of a source table (no filter), counted exactly. */
export async function sourceRowCount(env: EngineEnv, conn: Connection, table: string): Promise<number> {
  const [rows = []] = await sourceReads(env, conn).batch(
    [{ text: `SELECT count(*)::bigint AS n FROM ${ident(table)} LIMIT $1`, values: [1] }],
    { statementTimeoutMs: SAMPLE_TIMEOUT_MS },
  );
  return Number(rows[0]?.n ?? 0);
}
