import type { SQL } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';

const dialect = new SQLiteAsyncDialect();

/**
 * A drizzle `sql` template as a D1 statement, for `D1Database.batch`: drizzle's own batch cannot
 * bind parameters of raw `sql` queries (it expects query-builder statements).
 */
export function statement(d1: D1Database, query: SQL): D1PreparedStatement {
  const { sql, params } = dialect.sqlToQuery(query);
  return d1.prepare(sql).bind(...params);
}

/** Runs the statements as one D1 batch: one round trip, one transaction. */
export function batch(d1: D1Database, queries: SQL[]): Promise<D1Result<Record<string, unknown>>[]> {
  return d1.batch<Record<string, unknown>>(queries.map((query) => statement(d1, query)));
}
