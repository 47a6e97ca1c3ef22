import { pgCount } from '#shared/pg.ts';
import { z } from 'zod';
import { type Sql, literal, rows } from './db.ts';
import type { RunPlan } from './types.ts';

// The run's cursor rows in the destination (one per table and phase) and the guard every chunk
// statement ends with: the cursor advanced only from the cursor the chunk started from, else the
// whole statement fails as stale (see copy.ts).

export const DEFAULT_CHUNK_SIZE = 2_000;
export const MAX_CHUNK_SIZE = 20_000;
const COPY_PHASE = 'copy';

export type Phase = { table: string; phase: string; kind: 'copy' | 'backfill'; column?: string };

/** A migration_run_cursors row, as a column list or inside a chunk's JSON (`row_to_json`). */
const cursorRowSchema = z.object({
  dest_table: z.string(),
  phase: z.string(),
  cursor: z.string().nullable(),
  done: pgCount,
  inserted: pgCount,
  updated: pgCount,
  skipped: pgCount,
  finished: z.boolean(),
});
export type CursorRow = z.output<typeof cursorRowSchema>;

export type ChunkResult =
  | {
      status: 'advanced';
      rows: number;
      finished: boolean;
      cursor: CursorRow;
      unresolved: number;
      /** Rows set aside in migration_rejects (their cast or a constraint failed; see rejects.ts). */
      rejected?: number;
    }
  | { status: 'stale' };

export function chunkSizeOf(plan: RunPlan): number {
  return Math.min(MAX_CHUNK_SIZE, Math.max(1, Math.floor(plan.chunkSize ?? DEFAULT_CHUNK_SIZE)));
}

export function phasesOf(plan: RunPlan): Phase[] {
  return [
    ...plan.tables.map((t): Phase => ({ table: t.destTable, phase: COPY_PHASE, kind: 'copy' })),
    ...plan.deferred.map(
      (fk): Phase => ({ table: fk.childTable, phase: `backfill:${fk.childColumn}`, kind: 'backfill', column: fk.childColumn }),
    ),
  ];
}

/** Creates the run's cursor rows (idempotent) and returns every one of them. */
export async function openCursors(dest: Sql, plan: RunPlan): Promise<CursorRow[]> {
  const phases = phasesOf(plan);
  await dest.query(
    `INSERT INTO migration_run_cursors (run_id, dest_table, phase) SELECT $1, t, p FROM unnest($2::text[], $3::text[]) AS u(t, p)
     ON CONFLICT DO NOTHING`,
    [plan.runId, phases.map((p) => p.table), phases.map((p) => p.phase)],
  );
  return readCursors(dest, plan.runId);
}

export async function readCursors(dest: Sql, runId: string): Promise<CursorRow[]> {
  return rows(
    dest,
    cursorRowSchema,
    `SELECT dest_table, phase, cursor, done, inserted, updated, skipped, finished FROM migration_run_cursors WHERE run_id = $1`,
    [runId],
  );
}

/**
 * The transaction-scoped advisory lock a chunk holds while it produces cursor `cursor` (an SQL
 * text expression) of run $4, table $2: its successor, which starts from that cursor, waits on it.
 */
export const producing = (cursor: string) => `hashtextextended($4 || ':' || $2 || ':' || coalesce(${cursor}, ''), 0)`;

/** The same lock's key with literal values, for a transaction that takes it before its first statement. */
export function producingKey(runId: string, table: string, cursor: string | null): string {
  return `hashtextextended(${literal(`${runId}:${table}:${cursor ?? ''}`)}, 0)`;
}

/**
 * The end of a copy chunk's statement, after a `counts` CTE (inserted, updated): the cursor row
 * advanced from $10 (the cursor the chunk started from) to $7 by $8 rows, $6 finished, for run $4 and
 * table $2 — only if it still holds $10.
 * A chunk launched while its predecessor is still in flight first waits for the predecessor's
 * transaction to end (the lock the predecessor took when it began, see `producing`), then locks
 * the cursor row and reads the cursor committed (READ COMMITTED re-reads a locked row's newest
 * version; a condition on the cursor in the UPDATE itself would see only the statement's snapshot).
 * Without the first wait a successor that got here before its predecessor locked the row would read
 * the old cursor and go stale. Both waits come after `counts`, so a chunk does all of its work first.
 */
export const COPY_CURSOR_GUARD = `waited AS (
    SELECT pg_advisory_xact_lock_shared(${producing('$10')}) FROM counts
  ),
  claimed AS (
    SELECT r.cursor FROM migration_run_cursors r
    WHERE r.run_id = $4 AND r.dest_table = $2 AND r.phase = 'copy' AND (SELECT true FROM counts) AND EXISTS (SELECT 1 FROM waited)
    FOR UPDATE
  ),
  guard AS (
    UPDATE migration_run_cursors r
    SET cursor = $7, done = r.done + $8, inserted = r.inserted + counts.inserted, updated = r.updated + counts.updated,
        skipped = r.skipped + $8 - counts.inserted - counts.updated, finished = $6::boolean, updated_at = now()
    FROM counts, claimed
    WHERE r.run_id = $4 AND r.dest_table = $2 AND r.phase = 'copy' AND claimed.cursor IS NOT DISTINCT FROM $10
    RETURNING r.dest_table, r.phase, r.cursor, r.done, r.inserted, r.updated, r.skipped, r.finished
  )`;

/**
 * The last column of a chunk's statement: fails the statement — and so undoes all of its writes —
 * when the guarded cursor update found the cursor moved on. One statement is one transaction, so
 * a chunk costs one round trip and never leaves half its work behind.
 */
export const STALE_MARKER = 'migration chunk is stale';
export const STALE_CHECK = `CASE WHEN NOT EXISTS (SELECT 1 FROM guard) THEN ('${STALE_MARKER} ' || random()::text)::int END AS stale_check`;

/** A chunk's guarded statement on its own: its text, parameters and the schema of its one row. */
type GuardedStatement<T> = { text: string; params: unknown[]; row: z.ZodType<T> };
/** A transaction begun with `begin` whose last statement is the guarded one: `work` returns its parsed row. */
type GuardedWork<T> = { begin: string; sessionLocks?: boolean; work: (tx: Sql) => Promise<T | undefined> };

/**
 * A chunk's guarded statement run on its own (one statement, one transaction), or work in a
 * transaction whose last statement is the guarded one; null when it was stale (nothing written).
 */
export async function runGuarded<T extends { cursor_row: CursorRow | null }>(
  dest: Sql,
  guarded: GuardedStatement<T> | GuardedWork<T>,
): Promise<T | null> {
  try {
    const row =
      'text' in guarded
        ? (await rows(dest, guarded.row, guarded.text, guarded.params))[0]
        : await dest.transaction(guarded.work, { begin: guarded.begin, sessionLocks: guarded.sessionLocks });
    if (!row?.cursor_row) throw new Error('a chunk statement returned no cursor row');
    return row;
  } catch (error) {
    if (error instanceof Error && error.message.includes(STALE_MARKER)) return null;
    throw error;
  }
}

/** The row a copy chunk's statement returns (its `stale_check` column is dropped). */
export const copyCountsSchema = z.object({
  inserted: pgCount,
  updated: pgCount,
  unresolved: pgCount,
  mapped: pgCount,
  cursor_row: cursorRowSchema.nullable(),
});
export type CopyCounts = z.output<typeof copyCountsSchema>;
/** The row a backfill chunk's statement returns. */
export const backfillCountsSchema = copyCountsSchema.pick({ updated: true, cursor_row: true });

export function normaliseCursor(row: CursorRow): CursorRow {
  return {
    dest_table: row.dest_table,
    phase: row.phase,
    cursor: row.cursor,
    done: Number(row.done),
    inserted: Number(row.inserted),
    updated: Number(row.updated),
    skipped: Number(row.skipped),
    finished: Boolean(row.finished),
  };
}
