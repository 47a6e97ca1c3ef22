import type { Reader } from '../../workers/migrate/src/engine/db';

/**
 * A test's look at the databases: a statement's rows typed as the test expects them. The engine
 * reads rows through zod schemas (engine/db.ts `rows`); a test asserts the values it reads, so a
 * wrong expectation fails the test there.
 */
export async function rowsAs<T>(db: Reader, text: string, values?: unknown[]): Promise<T[]> {
  const rows: unknown[] = await db.query(text, values);
  return rows as T[];
}
