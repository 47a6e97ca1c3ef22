import { explainDatabaseError, sqlStateOf } from '#shared/pg-errors.ts';
import { z } from 'zod';
import { type CopyCounts, STALE_MARKER, copyCountsSchema } from './cursors.ts';
import { NOT_FRESH_MARKER } from './direct.ts';
import type { PreparedTable } from './prepare.ts';
import { type Reader, type Sql, ident, rows as readRows } from './db.ts';
import { valueExpression } from './expressions.ts';

// Bad rows set aside. When a copy chunk's statement fails with a data error (SQLSTATE class 22, a
// value that does not convert; or 23, a constraint), the rows that fail are found by trying the
// statement on parts of the page, each try given a cursor that cannot be the run's (`TRIAL_CURSOR`),
// so it does all of its work — raising any row's error — and then fails as stale, undoing itself.
// The bad rows then go into migration_rejects in the same statement that copies the other rows and
// advances the cursor over the whole page (one more CTE in front of the chunk's statement): the
// good rows stay all or nothing, and the rejects commit with them and the cursor, so a retried chunk
// never records a row twice. No try holds a transaction open, so the chunks in flight beside it and
// the embedded development database (one session for every connection) are never held up.
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
async function failingConversion(
  sql: Sql,
  table: PreparedTable,
  fields: (string | null)[],
  inTransaction: boolean,
): Promise<string | null> {
  const columns = table.plan.columns
    .map((c, i) => ({ c, value: fields[i + 1] ?? null }))
    .filter(({ c, value }) => value !== null && !table.translated[c.dest] && !table.deferred.includes(c.dest));
  if (inTransaction) await sql.query('SAVEPOINT reject_probe');
  for (const { c, value } of columns) {
    try {
      await sql.query(`SELECT ${valueExpression('$1::text', table.destTypes[c.dest]!, c.transform)} AS v`, [value]);
    } catch (error) {
      if (!isRowError(error)) throw error;
      if (inTransaction) await sql.query('ROLLBACK TO SAVEPOINT reject_probe');
      return c.dest;
    }
  }
  return null;
}

/** The one column a CHECK constraint of the destination table reads (null when it reads several). */
async function checkedColumn(sql: Sql, table: PreparedTable, constraint: string | null): Promise<string | null> {
  if (!constraint) return null;
  const [row] = await readRows(
    sql,
    z.object({ col: z.string().nullable() }),
    `SELECT (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1]) AS col
     FROM pg_constraint c WHERE c.conname = $1 AND c.conrelid = to_regclass($2) AND cardinality(c.conkey) = 1`,
    [constraint, ident(table.plan.destTable)],
  );
  return row?.col ?? null;
}

async function describe(sql: Sql, table: PreparedTable, line: string, error: unknown, inTransaction: boolean): Promise<RejectRecord> {
  const fields = line.split('\t').map(decodeField);
  const sqlstate = sqlStateOf(error) ?? '';
  let column = namedColumn(error, table);
  if (!column && sqlstate.startsWith('22')) column = await failingConversion(sql, table, fields, inTransaction);
  if (!column && sqlstate === '23514') column = await checkedColumn(sql, table, errorField(error, 'constraint'));
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
  const [row] = await readRows(sql, z.object({ n: z.number() }), 'SELECT count(*)::int AS n FROM migration_rejects WHERE run_id = $1', [
    runId,
  ]);
  return Number(row?.n ?? 0);
}

type ChunkRun = { runId: string; rejectLimit?: number };

/** The old cursor ($10) of a try: never a run's (a cursor is null or a JSON array of one or more keys), so the try ends stale. */
const TRIAL_CURSOR = '[]';

const isStale = (error: unknown) => error instanceof Error && error.message.includes(STALE_MARKER);

/**
 * The chunk's statement with the rejects recorded in front of it (parameters from `first` on: the
 * source ids, columns, values, SQLSTATEs and reasons as arrays), so they commit or roll back with it.
 */
function withRejects(text: string, first: number): string {
  if (!/^WITH\s/.test(text)) throw new Error('a chunk statement does not start with WITH');
  const [ids, columns, values, states, reasons] = [0, 1, 2, 3, 4].map((i) => `$${first + i}::text[]`);
  return text.replace(
    /^WITH\s/,
    `WITH set_aside AS (
    INSERT INTO migration_rejects (run_id, dest_table, source_id, source_table, column_name, value, sqlstate, message)
    SELECT $4, $2, u.s, $3, u.c, u.v, u.st, u.m FROM unnest(${ids}, ${columns}, ${values}, ${states}, ${reasons}) AS u(s, c, v, st, m)
    ON CONFLICT DO NOTHING RETURNING 1
  ),
  `,
  );
}

/**
 * After a chunk's statement (`text` with `params`, as copyChunk runs it) failed with a row error:
 * finds the rows that fail, and runs the statement on the others with the failing ones recorded —
 * the page parameter ($9) without their lines, every other parameter as it was, so the cursor still
 * moves over the whole page. `inTransaction`: the caller holds a transaction (the dry run), so each
 * try and probe goes in a savepoint. `row` is null when the chunk was stale (nothing written).
 * Throws RejectLimitError past the run's limit (checked against the rejects already committed).
 */
export async function setAside(
  sql: Sql,
  run: ChunkRun,
  table: PreparedTable,
  text: string,
  params: unknown[],
  inTransaction = false,
): Promise<{ row: CopyCounts | null; rejects: RejectRecord[] }> {
  const lines = params[8] === null || params[8] === undefined ? [] : String(params[8]).split('\n');
  const withLines = (subset: number[]) =>
    params.map((v, i) => (i === 8 ? (subset.length ? subset.map((n) => lines[n]).join('\n') : null) : v));
  const attempt = async (subset: number[]): Promise<unknown> => {
    const trial = withLines(subset);
    trial[9] = TRIAL_CURSOR;
    if (inTransaction) await sql.query('SAVEPOINT chunk_try');
    let failure: unknown = null;
    try {
      await sql.query(text, trial);
      throw new Error('a try of a chunk statement did not end stale');
    } catch (error) {
      if (isRowError(error)) failure = error;
      else if (!isStale(error)) throw error;
    }
    if (inTransaction) await sql.query('ROLLBACK TO SAVEPOINT chunk_try');
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
    allowance ??= limit - (await rejectedSoFar(sql, run.runId));
    bad.push({ index: part[0]!, error: failure });
    if (bad.length > allowance) throw new RejectLimitError(limit, table.plan.destTable);
  };
  await visit(lines.map((_, i) => i));
  const rejects: RejectRecord[] = [];
  for (const { index, error } of bad) rejects.push(await describe(sql, table, lines[index]!, error, inTransaction));
  const finalText = rejects.length ? withRejects(text, params.length + 1) : text;
  const finalParams = withLines(kept);
  if (rejects.length) {
    finalParams.push(
      rejects.map((r) => r.sourceId),
      rejects.map((r) => r.column),
      rejects.map((r) => r.value),
      rejects.map((r) => r.sqlstate),
      rejects.map((r) => r.message),
    );
  }
  try {
    const [row] = await readRows(sql, copyCountsSchema, finalText, finalParams);
    if (!row?.cursor_row) throw new Error('a chunk statement returned no cursor row');
    return { row, rejects };
  } catch (error) {
    if (!inTransaction && isStale(error)) return { row: null, rejects: [] };
    throw error;
  }
}

/** copyChunk's way in: the chunk's outcome after its rows that fail were set aside (`result` null: stale). */
export async function commitSettingAside(
  dest: Sql,
  run: ChunkRun,
  table: PreparedTable,
  text: string,
  params: unknown[],
): Promise<{ result: CopyCounts | null; rejected: number }> {
  const { row, rejects } = await setAside(dest, run, table, text, params);
  return { result: row, rejected: row ? rejects.length : 0 };
}

export type RejectRow = RejectRecord & { table: string; sourceTable: string; createdAt: string };

/** A run's rejected rows per destination table, by table name. */
export async function rejectCounts(sql: Reader, runId: string): Promise<{ table: string; rejected: number }[]> {
  const rows = await readRows(
    sql,
    z.object({ dest: z.string(), n: z.number() }),
    'SELECT dest_table AS dest, count(*)::int AS n FROM migration_rejects WHERE run_id = $1 GROUP BY dest_table ORDER BY dest_table',
    [runId],
  );
  return rows.map((r) => ({ table: r.dest, rejected: Number(r.n) }));
}

const rejectRowSchema = z.object({
  dest_table: z.string(),
  source_table: z.string(),
  source_id: z.string(),
  column_name: z.string().nullable(),
  value: z.string().nullable(),
  sqlstate: z.string(),
  message: z.string(),
  created_at: z.string(),
});

/** A run's rejected rows (of one table, or all), by table and source key, at most `limit`. */
export async function rejectRows(sql: Reader, runId: string, options: { table?: string; limit: number }): Promise<RejectRow[]> {
  const rows = await readRows(
    sql,
    rejectRowSchema,
    `SELECT dest_table, source_table, source_id, column_name, value, sqlstate, message, created_at::text AS created_at
     FROM migration_rejects WHERE run_id = $1 AND ($2::text IS NULL OR dest_table = $2)
     ORDER BY dest_table, source_id LIMIT $3`,
    [runId, options.table ?? null, options.limit],
  );
  return rows.map((r) => ({
    table: r.dest_table,
    sourceTable: r.source_table,
    sourceId: r.source_id,
    column: r.column_name,
    value: r.value,
    sqlstate: r.sqlstate,
    message: r.message,
    createdAt: r.created_at,
  }));
}
