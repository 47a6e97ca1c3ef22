import { explainDatabaseError, sqlStateOf } from '#shared/pg-errors.ts';
import { type Condition, compileCondition } from './condition.ts';
import { type Reads, type Sql, ident, sourceReads } from './db.ts';
import { introspectReads } from './introspect.ts';
import { type Connection, type EngineEnv, FilterError, HostNotAllowedError, type SchemaInfo } from './types.ts';

// Operator-typed WHERE conditions on the source. Each is parsed and printed by condition.ts (an
// allow-list of node kinds, columns and functions); the printed condition runs as one
// parameterised statement inside a READ ONLY transaction with a statement timeout. The direct
// copy path's `COPY … TO STDOUT` never carries a filter: it names its rows by the ids that a
// filtered, parameterised query returned.

export const FILTER_TIMEOUT_MS = 5_000;
/** Source reads of a run (a filter included) get longer than a wizard's test. */
export const COPY_READ_TIMEOUT_MS = 60_000;

/** A read-only, time-limited transaction on the source: how every source read of the engine runs. */
export function readSource<T>(source: Sql, work: (tx: Sql) => Promise<T>, timeoutMs = COPY_READ_TIMEOUT_MS): Promise<T> {
  return source.transaction(work, { readOnly: true, statementTimeoutMs: timeoutMs });
}

/** The compiled filter of a source table, or undefined when it has none. */
export function tableCondition(filter: string | undefined, table: string, schema: SchemaInfo): Condition | undefined {
  return filter && filter.trim() ? compileCondition(filter, { table, schema }) : undefined;
}

/**
 * A filter that failed on the source, in the app's own words: what kind of failure (SQLSTATE and
 * its class), and the columns the filter reads with their types. The database's message, which can
 * carry values from the source, goes to the log only.
 */
export function filterFailure(error: unknown, condition: Condition, timeoutMs: number): FilterError {
  const state = sqlStateOf(error);
  console.error(
    JSON.stringify({
      level: 'error',
      service: 'migrate',
      event: 'filter_failed',
      sqlstate: state ?? null,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  const columns = [...new Map(condition.columns.map((c) => [`${c.table}.${c.column.ColumnName}`, c.column.DataType])).entries()];
  const reads = columns.length ? ` The filter reads ${columns.map(([name, type]) => `${name} (${type})`).join(', ')}.` : '';
  if (state === '57014')
    return new FilterError(`The filter took longer than ${timeoutMs / 1000} s on the source (statement timeout, SQLSTATE 57014).${reads}`);
  return new FilterError(`The filter failed on the source: ${explainDatabaseError(error)}.${reads}`);
}

/**
 * Rows of the source table matching the condition, or FilterError in the app's words: one
 * read-only batch with its statement timeout, one round trip.
 */
export async function countWithFilter(source: Reads, table: string, condition: Condition, timeoutMs = FILTER_TIMEOUT_MS): Promise<number> {
  try {
    // A parameter keeps the statement on the extended protocol, which refuses a second statement.
    const [rows = []] = await source.batch(
      [{ text: `SELECT count(*)::bigint AS n FROM ${ident(table)} WHERE ${condition.sql} LIMIT $1`, values: [1] }],
      {
        statementTimeoutMs: timeoutMs,
      },
    );
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    if (error instanceof HostNotAllowedError) throw error;
    throw filterFailure(error, condition, timeoutMs);
  }
}

/**
 * `/api/table/test-filter` and the wizard's filter steps: the count of source rows the filter keeps.
 * The source's schema is read first (the filter's columns and subquery tables are resolved in it).
 */
export async function testFilter(env: EngineEnv, conn: Connection, table: string, filter: string): Promise<{ count: number }> {
  const reads = sourceReads(env, conn);
  const schema = await introspectReads(reads).catch((error: unknown) => {
    if (error instanceof HostNotAllowedError) throw error;
    console.error(
      JSON.stringify({
        level: 'error',
        service: 'migrate',
        event: 'source_schema_failed',
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    throw new FilterError(`The source's tables could not be read to check the filter: ${explainDatabaseError(error)}`);
  });
  const condition = compileCondition(filter, { table, schema });
  return { count: await countWithFilter(reads, table, condition) };
}
