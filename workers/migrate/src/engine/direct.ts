import { type Sql, ident, literal, parsedRows } from './db.ts';
import { rangesOverlap, recordMappings, rowsExist } from './mappings.ts';
import type { SourcePage } from './pages.ts';
import type { PreparedTable } from './prepare.ts';
import {
  COPY_CURSOR_GUARD,
  type ChunkResult,
  type CopyCounts,
  STALE_CHECK,
  copyCountsSchema,
  normaliseCursor,
  producingKey,
  runGuarded,
} from './cursors.ts';

// The direct path of a chunk: rows converted on the source go into the destination table by COPY,
// then one guarded statement pairs them with their source ids and advances the cursor.

/**
 * A chunk's commit does not wait for its WAL to reach disk. A server crash may then lose the last
 * commits — each one whole, the rows with the cursor that counted them — and the run, which always
 * resumes from the destination's cursors, copies those chunks again: nothing lost, nothing doubled.
 */
const RELAXED_COMMIT = 'SET LOCAL synchronous_commit = off';

/** The text whose hash is the advisory lock by which the COPYs of one table in one run take turns. */
export const copyTurnName = (runId: string, table: string) => `copy:${runId}:${table}`;

/** A direct chunk's page overlaps mappings already recorded: it goes by the statement path. */
export class NotFresh extends Error {}
export const NOT_FRESH_MARKER = 'migration chunk is not fresh';

/**
 * The statement that ends a direct chunk, after its COPY in the same transaction (see directChunk).
 * Parameters: $1 config, $2 destination table, $3 source table, $4 run, $5 the source ids when they
 * are not $9…$11 without a gap, $6 finished, $7 the new cursor, $8 rows, $10 the old cursor.
 */
export function directStatement(table: PreparedTable): string {
  const plan = table.plan;
  const destKey = ident(plan.destKey);
  return `WITH fresh AS (
    SELECT NOT (${rowsExist('$1::integer', '$2::text')} OR ${rangesOverlap('$1::integer', '$2::text', '$9::bigint', '$11::bigint')}) AS yes
  ),
  -- The rows this transaction inserted: its xmin, the highest ids up to the sequence's current value.
  mine AS NOT MATERIALIZED (
    SELECT t.${destKey}::bigint AS dest_num FROM ${ident(plan.destTable)} t
    WHERE t.${destKey} <= (SELECT currval(${literal(table.sequence!)})) AND t.xmin = pg_current_xact_id()::xid
    ORDER BY t.${destKey} DESC LIMIT $8
  ),
  span AS (SELECT count(*)::int AS n, min(dest_num) AS lo, max(dest_num) AS hi FROM mine),
  -- The usual chunk: source ids $9…$11 without a gap became as many consecutive ids: one range.
  whole AS (
    SELECT coalesce($5::bigint[] IS NULL AND n = $8 AND hi - lo + 1 = n AND $11::bigint - $9::bigint + 1 = n, false) AS yes, lo FROM span
  ),
  whole_range AS (
    INSERT INTO migration_id_ranges (config_id, dest_table, source_lo, source_hi, dest_lo, source_table, run_id)
    SELECT $1::integer, $2::text, $9::bigint, $11::bigint, w.lo, $3::text, $4::text FROM whole w WHERE w.yes
    ON CONFLICT DO NOTHING RETURNING source_hi - source_lo + 1 AS n
  ),
  -- Otherwise source ids and new ids paired in order, recorded as runs.
  ours AS (SELECT dest_num, row_number() OVER (ORDER BY dest_num) AS ord FROM mine WHERE NOT (SELECT yes FROM whole)),
  src AS (
    SELECT u.k AS src_num, u.o AS ord
    FROM unnest(coalesce($5::bigint[], ARRAY(SELECT generate_series($9::bigint, $11::bigint)))) WITH ORDINALITY AS u(k, o)
    WHERE NOT (SELECT yes FROM whole)
  ),
  chunk_maps AS (
    SELECT s.src_num::text AS src_id, s.src_num, o.dest_num::text AS dest_id, o.dest_num FROM src s JOIN ours o ON o.ord = s.ord
  )${recordMappings('chunk_maps', '$1::integer', '$2::text', '$3::text', '$4::text')},
  counts AS (
    SELECT (SELECT n FROM span) AS inserted, 0 AS updated, 0 AS unresolved,
      ((SELECT n FROM mapped) + (SELECT coalesce(sum(n), 0) FROM whole_range))::int AS mapped
  ),
  ${COPY_CURSOR_GUARD}
  SELECT counts.*, (SELECT row_to_json(guard) FROM guard) AS cursor_row,
    CASE WHEN NOT (SELECT yes FROM fresh) THEN ('${NOT_FRESH_MARKER} ' || random()::text)::int END AS fresh_check,
    ${STALE_CHECK},
    CASE WHEN counts.inserted <> $8 OR counts.mapped <> $8 THEN ('direct copy inserted ' || counts.inserted || ' rows, mapped ' || counts.mapped || ' of ' || $8)::int END AS count_check
  FROM counts`;
}

/**
 * `text` with its parameters $1…$n written in as literals, for a statement sent with its COMMIT as
 * one simple query: only values the engine produced (numbers, booleans, its own texts), each quoted.
 */
function inlineParameters(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = values[Number(n) - 1];
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'boolean') return String(value);
    return literal(String(value));
  });
}

/**
 * A direct chunk (see `directShape`), one destination transaction: COPY the converted rows into the
 * table, their ids from its default (the sequence); then one statement that fails — undoing the
 * COPY — when a mapping already covers any of the page's source ids (NotFresh: the statement path
 * takes the chunk), finds the rows this transaction inserted (this transaction's xmin, the highest
 * ids up to the sequence's current value, in id order = COPY order), pairs them with the source ids
 * in order, records the mappings as ranges and advances the cursor under the statement path's
 * guard (stale: all of it rolls back).
 */
export async function directChunk(
  dest: Sql,
  run: { runId: string; configId: number },
  table: PreparedTable,
  cursor: string | null,
  limit: number,
  page: SourcePage,
): Promise<ChunkResult> {
  const plan = table.plan;
  const guarded = directStatement(table);
  const next = page.last ?? cursor;
  let result: CopyCounts | null;
  try {
    // The COPYs of one table take turns (a session lock, released before the statement): the ids a
    // chunk draws from the sequence are then consecutive, and its mappings one range (`whole`).
    const copying = `hashtextextended(${literal(copyTurnName(run.runId, plan.destTable))}, 0)`;
    const begin = [
      RELAXED_COMMIT,
      `SELECT pg_advisory_xact_lock(${producingKey(run.runId, plan.destTable, next)})`,
      `SELECT pg_advisory_lock(${copying})`,
    ].join('; ');
    result = await runGuarded(dest, {
      begin,
      sessionLocks: true,
      work: async (tx) => {
        const columns = plan.columns.map((c) => ident(c.dest)).join(', ');
        const copied = await tx.copyIn(`COPY ${ident(plan.destTable)} (${columns}) FROM STDIN`, page.copy!);
        if (copied !== page.rows) throw new Error(`direct copy took ${copied} of ${page.rows} rows`);
        const text = inlineParameters(guarded, [
          run.configId, // $1
          plan.destTable, // $2
          plan.sourceTable, // $3
          run.runId, // $4
          page.keys ?? null, // $5 source ids when not lo…hi
          page.rows < limit, // $6 finished
          next, // $7 new cursor
          page.rows, // $8
          page.lo, // $9
          cursor, // $10 old cursor
          page.hi, // $11
        ]);
        const unlocked = `SELECT pg_advisory_unlock(${copying}); ${text}`;
        return parsedRows(copyCountsSchema, text, await tx.queryAndCommit(unlocked))[0];
      },
    });
  } catch (error) {
    if (error instanceof Error && error.message.includes(NOT_FRESH_MARKER)) throw new NotFresh();
    throw error;
  }
  if (!result) return { status: 'stale' };
  return { status: 'advanced', rows: page.rows, finished: page.rows < limit, cursor: normaliseCursor(result.cursor_row!), unresolved: 0 };
}
