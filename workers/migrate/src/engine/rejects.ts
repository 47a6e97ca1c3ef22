import { explainDatabaseError, sqlStateOf } from '#shared/pg-errors.ts';
import { type CopyCounts, NOT_FRESH_MARKER, type PreparedTable, STALE_MARKER, producingKey } from './copy.ts';
import { type Reader, type Sql, ident } from './db.ts';
import { valueExpression } from './expressions.ts';

// Bad rows set aside. When a copy chunk's statement fails with a data error (SQLSTATE class 22, a
// value that does not convert; or 23, a constraint), the chunk runs again in one transaction: the
// statement is tried on parts of the page, each inside a savepoint that is rolled back, to find the
// rows that fail; those are written to migration_rejects and the statement then runs once on the
// other rows, advancing the cursor over the whole page. So the good rows stay all or nothing, and
// the rejects commit with them and the cursor: a retried chunk never records a row twice.
//
// The search keeps the rows found good so far and adds each next part to them: a part that fails
// with them is halved until the failing row is alone. A row that only fails beside an earlier one
// (two source rows with the same unique value) is the later one. One bad row among n costs about
// 2·log2(n) tries; a page of bad rows about two tries per row.

/** Rows a run may set aside before it fails, unless its plan says otherwise. */
export const DEFAULT_REJECT_LIMIT = 100;
export const MAX_REJECT_LIMIT = 100_000;

/** A source row set aside: its key (as the id mappings hold it), the column at fault and its source value. */
export type RejectRecord = { sourceId: string; column: string | null; value: string | null; sqlstate: string; message: string };

/** The run set aside more rows than its plan allows: it stops (a permanent failure, never retried). */
export class RejectLimitError extends Error {
  constructor(
    readonly limit: number,
    table: string,
  ) {
    super(
      `More than ${limit} source rows were set aside (their cast or a constraint failed; the last in ${table}): the run stops. See the rejected rows on the Results page, correct them or raise the reject threshold, and run again.`,
    );
    this.name = 'RejectLimitError';
  }
}

function* chain(error: unknown): Generator<object> {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 6; depth++) {
    yield e;
    e = Reflect.get(e, 'cause');
  }
}

/** A text field of a driver error (possibly wrapped): `column`, `detail`, `constraint`. */
function errorField(error: unknown, name: string): string | null {
  for (const e of chain(error)) {
    const value = Reflect.get(e, name);
    if (typeof value === 'string' && value) return value;
  }
  return null;
}

/** A data error of a row (SQLSTATE class 22 or 23), not one the engine raises on purpose (stale, not fresh, counts). */
export function isRowError(error: unknown): boolean {
  const state = sqlStateOf(error);
  if (!state || !/^2[23]/.test(state)) return false;
  const text = error instanceof Error ? error.message : String(error);
  return ![STALE_MARKER, NOT_FRESH_MARKER, 'direct copy'].some((marker) => text.includes(marker));
}

/** A page field (see `pageField` in copy.ts) as the source value's text: `\N` is NULL, `\.`, `\t`, `\n` undone. */
function decodeField(field: string): string | null {
  if (field === '\\N') return null;
  return field.replace(/\\([.tn])/g, (_, c: string) => (c === '.' ? '\\' : c === 't' ? '\t' : '\n'));
}

const CONSTRAINT_WORDS: Record<string, string> = {
  '23502': 'no value for a column that requires one',
  '23503': 'the row refers to a row that does not exist',
  '23505': 'a row with the same unique value already exists',
  '23514': 'a check constraint refused the row',
  '23P01': 'the row overlaps an existing one (exclusion constraint)',
};

/** Why a row was set aside, in the app's words (never the server's message, which can carry other rows' values). */
function rejectMessage(error: unknown): string {
  const state = sqlStateOf(error) ?? '';
  const words = CONSTRAINT_WORDS[state];
  if (!words) return explainDatabaseError(error);
  const constraint = errorField(error, 'constraint');
  return `${words}${constraint ? ` (constraint ${constraint})` : ''} (SQLSTATE ${state}, integrity constraint violation)`;
}

/** The destination column an error names (its column field, or the key of a unique or foreign key violation). */
function namedColumn(error: unknown, table: PreparedTable): string | null {
  const column = errorField(error, 'column');
  if (column) return column;
  const key = /^Key \(([^)]+)\)=/.exec(errorField(error, 'detail') ?? '')?.[1];
  if (key) return key.replaceAll('"', '');
  const inMessage = /column "([^"]+)"/.exec(error instanceof Error ? error.message : '')?.[1];
  return inMessage && table.plan.columns.some((c) => c.dest === inMessage) ? inMessage : null;
}

/** The first mapped column whose value does not convert to its destination type (one statement per column). */
async function failingConversion(tx: Sql, table: PreparedTable, fields: (string | null)[]): Promise<string | null> {
  const columns = table.plan.columns
    .map((c, i) => ({ c, value: fields[i + 1] ?? null }))
    .filter(({ c, value }) => value !== null && !table.translated[c.dest] && !table.deferred.includes(c.dest));
  await tx.query('SAVEPOINT reject_probe');
  for (const { c, value } of columns) {
    try {
      await tx.query(`SELECT ${valueExpression('$1::text', table.destTypes[c.dest]!, c.transform)} AS v`, [value]);
    } catch (error) {
      if (!isRowError(error)) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT reject_probe');
      return c.dest;
    }
  }
  return null;
}

/** The one column a CHECK constraint of the destination table reads (null when it reads several). */
async function checkedColumn(tx: Sql, table: PreparedTable, constraint: string | null): Promise<string | null> {
  if (!constraint) return null;
  const [row] = await tx.query<{ col: string | null }>(
    `SELECT (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1]) AS col
     FROM pg_constraint c WHERE c.conname = $1 AND c.conrelid = to_regclass($2) AND cardinality(c.conkey) = 1`,
    [constraint, ident(table.plan.destTable)],
  );
  return row?.col ?? null;
}

async function describe(tx: Sql, table: PreparedTable, line: string, error: unknown): Promise<RejectRecord> {
  const fields = line.split('\t').map(decodeField);
  const sqlstate = sqlStateOf(error) ?? '';
  let column = namedColumn(error, table);
  if (!column && sqlstate.startsWith('22')) column = await failingConversion(tx, table, fields);
  if (!column && sqlstate === '23514') column = await checkedColumn(tx, table, errorField(error, 'constraint'));
  const index = column ? table.plan.columns.findIndex((c) => c.dest === column) : -1;
  return {
    sourceId: fields[0] ?? '',
    column,
    value: index >= 0 ? (fields[index + 1] ?? null) : null,
    sqlstate,
    message: rejectMessage(error),
  };
}

/** Rows the run has set aside so far (committed). */
async function rejectedSoFar(sql: Reader, runId: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM migration_rejects WHERE run_id = $1', [runId]);
  return Number(row?.n ?? 0);
}

type ChunkRun = { runId: string; rejectLimit?: number };

/**
 * In an open transaction, after the chunk's statement failed with a row error: finds the rows that
 * fail (statement tries in a savepoint, each rolled back), records them and runs the statement on the
 * others — the page parameter ($9) without their lines, every other parameter as it was, so the
 * cursor still moves over the whole page. Throws RejectLimitError past the run's limit, and the
 * stale error when the cursor moved on.
 */
export async function setAsideIn(
  tx: Sql,
  run: ChunkRun,
  table: PreparedTable,
  text: string,
  params: unknown[],
): Promise<{ row: CopyCounts; rejects: RejectRecord[] }> {
  const lines = params[8] === null || params[8] === undefined ? [] : String(params[8]).split('\n');
  const withLines = (subset: number[]) =>
    params.map((v, i) => (i === 8 ? (subset.length ? subset.map((n) => lines[n]).join('\n') : null) : v));
  await tx.query('SAVEPOINT chunk_try');
  const attempt = async (subset: number[]): Promise<unknown> => {
    let failure: unknown = null;
    try {
      await tx.query(text, withLines(subset));
    } catch (error) {
      if (!isRowError(error)) throw error;
      failure = error;
    }
    await tx.query('ROLLBACK TO SAVEPOINT chunk_try');
    return failure;
  };
  const kept: number[] = [];
  const bad: { index: number; error: unknown }[] = [];
  let allowance: number | null = null;
  const visit = async (part: number[]): Promise<void> => {
    const failure = await attempt([...kept, ...part]);
    if (!failure) {
      kept.push(...part);
      return;
    }
    if (part.length > 1) {
      const half = part.length >> 1;
      await visit(part.slice(0, half));
      await visit(part.slice(half));
      return;
    }
    const limit = run.rejectLimit ?? DEFAULT_REJECT_LIMIT;
    // Read once the first try has waited for the chunk before this one, so its rejects are counted.
    allowance ??= limit - (await rejectedSoFar(tx, run.runId));
    bad.push({ index: part[0]!, error: failure });
    if (bad.length > allowance) throw new RejectLimitError(limit, table.plan.destTable);
  };
  await visit(lines.map((_, i) => i));
  const rejects: RejectRecord[] = [];
  for (const { index, error } of bad) rejects.push(await describe(tx, table, lines[index]!, error));
  await recordRejects(tx, run.runId, table, rejects);
  const [row] = await tx.query<CopyCounts>(text, withLines(kept));
  if (!row?.cursor_row) throw new Error('a chunk statement returned no cursor row');
  return { row, rejects };
}

async function recordRejects(tx: Sql, runId: string, table: PreparedTable, rejects: RejectRecord[]): Promise<void> {
  if (rejects.length === 0) return;
  await tx.query(
    `INSERT INTO migration_rejects (run_id, dest_table, source_id, source_table, column_name, value, sqlstate, message)
     SELECT $1, $2, u.s, $3, u.c, u.v, u.st, u.m FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(s, c, v, st, m)
     ON CONFLICT DO NOTHING`,
    [
      runId,
      table.plan.destTable,
      table.plan.sourceTable,
      rejects.map((r) => r.sourceId),
      rejects.map((r) => r.column),
      rejects.map((r) => r.value),
      rejects.map((r) => r.sqlstate),
      rejects.map((r) => r.message),
    ],
  );
}

/**
 * A copy chunk whose statement failed with a row error, again in one transaction that first takes
 * the lock its successor waits on (see `producing` in copy.ts): the rejects and the good rows commit
 * together with the cursor. `result` is null when the chunk was stale (nothing written).
 */
export async function commitSettingAside(
  dest: Sql,
  run: ChunkRun,
  table: PreparedTable,
  text: string,
  params: unknown[],
): Promise<{ result: CopyCounts | null; rejected: number }> {
  const next = params[6] === null || params[6] === undefined ? null : String(params[6]);
  try {
    return await dest.transaction(
      async (tx) => {
        const { row, rejects } = await setAsideIn(tx, run, table, text, params);
        return { result: row, rejected: rejects.length };
      },
      { begin: `SELECT pg_advisory_xact_lock(${producingKey(run.runId, table.plan.destTable, next)})` },
    );
  } catch (error) {
    if (error instanceof Error && error.message.includes(STALE_MARKER)) return { result: null, rejected: 0 };
    throw error;
  }
}

export type RejectRow = RejectRecord & { table: string; sourceTable: string; createdAt: string };

/** A run's rejected rows per destination table, by table name. */
export async function rejectCounts(sql: Reader, runId: string): Promise<{ table: string; rejected: number }[]> {
  const rows = await sql.query<{ dest: string; n: number }>(
    'SELECT dest_table AS dest, count(*)::int AS n FROM migration_rejects WHERE run_id = $1 GROUP BY dest_table ORDER BY dest_table',
    [runId],
  );
  return rows.map((r) => ({ table: r.dest, rejected: Number(r.n) }));
}

/** A run's rejected rows (of one table, or all), by table and source key, at most `limit`. */
export async function rejectRows(sql: Reader, runId: string, options: { table?: string; limit: number }): Promise<RejectRow[]> {
  const rows = await sql.query<Record<string, string | null>>(
    `SELECT dest_table, source_table, source_id, column_name, value, sqlstate, message, created_at::text AS created_at
     FROM migration_rejects WHERE run_id = $1 AND ($2::text IS NULL OR dest_table = $2)
     ORDER BY dest_table, source_id LIMIT $3`,
    [runId, options.table ?? null, options.limit],
  );
  return rows.map((r) => ({
    table: String(r.dest_table),
    sourceTable: String(r.source_table),
    sourceId: String(r.source_id),
    column: r.column_name ?? null,
    value: r.value ?? null,
    sqlstate: String(r.sqlstate),
    message: String(r.message),
    createdAt: String(r.created_at),
  }));
}
