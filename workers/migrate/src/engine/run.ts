import {
  type ChunkResult,
  type CursorRow,
  type Phase,
  type PreparedTable,
  backfillChunk,
  chunkSizeOf,
  copyChunk,
  phasesOf,
  readCopyPage,
  type SourcePage,
} from './copy';
import type { Sql } from './db';
import type { RunPlan, TableProgress } from './types';

// One step of a run at a time: the first unfinished phase (every table's copy in FK order, then
// the deferred foreign keys' backfills) advances by one chunk. The caller (the MigrationJob
// Durable Object, or a test) keeps the cursor rows; the destination's copy of them is the truth.

/** The next copy chunk's source page, being read while the current chunk is written. */
export type Prefetch = { table: string; cursor: string | null; page: Promise<SourcePage> };

export type StepOutcome = { kind: 'chunk'; phase: Phase; result: ChunkResult; prefetch?: Prefetch } | { kind: 'copied' };

export function cursorOf(cursors: CursorRow[], phase: Phase): CursorRow | undefined {
  return cursors.find((c) => c.dest_table === phase.table && c.phase === phase.phase);
}

export function nextPhase(plan: RunPlan, cursors: CursorRow[]): Phase | null {
  return phasesOf(plan).find((phase) => !cursorOf(cursors, phase)?.finished) ?? null;
}

/**
 * Advances the first unfinished phase by one chunk. With `readAhead`, a copy chunk starts reading
 * its successor's source page before writing its own (returned as `prefetch`, to pass to the next
 * step); a page read for a cursor that is no longer the committed one is never used.
 */
export async function runStep(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  tables: PreparedTable[],
  cursors: CursorRow[],
  readAhead?: { prefetch?: Prefetch },
): Promise<StepOutcome> {
  const phase = nextPhase(plan, cursors);
  if (!phase) return { kind: 'copied' };
  const table = tables.find((t) => t.plan.destTable === phase.table);
  if (!table) throw new Error(`No prepared table for ${phase.table}`);
  const cursor = cursorOf(cursors, phase)?.cursor ?? null;
  const limit = chunkSizeOf(plan);
  if (phase.kind === 'backfill') {
    const fk = plan.deferred.find((d) => d.childTable === phase.table && d.childColumn === phase.column)!;
    return { kind: 'chunk', phase, result: await backfillChunk(source, dest, plan, table, fk, cursor, limit) };
  }
  const ready = readAhead?.prefetch;
  let next: Prefetch | undefined;
  const result = await copyChunk(source, dest, plan, table, cursor, limit, {
    page: ready && ready.table === phase.table && ready.cursor === cursor ? ready.page : undefined,
    onRead: (page) => {
      if (!readAhead || page.rows < limit || !page.last) return;
      const ahead = readCopyPage(source, table, page.last, limit);
      // Awaited by the next step, or dropped with the slice: never an unhandled rejection.
      ahead.catch(() => undefined);
      next = { table: phase.table, cursor: page.last, page: ahead };
    },
  });
  return { kind: 'chunk', phase, result, prefetch: result.status === 'advanced' ? next : undefined };
}

/** Replaces a phase's cursor row with the one a chunk committed. */
export function withCursor(cursors: CursorRow[], row: CursorRow): CursorRow[] {
  return [...cursors.filter((c) => !(c.dest_table === row.dest_table && c.phase === row.phase)), row];
}

/** Per-table progress from the cursor rows and the source totals. */
export function tableProgress(plan: RunPlan, cursors: CursorRow[], totals: Record<string, number>, failed?: string | null): TableProgress[] {
  return plan.tables.map((t) => {
    const copy = cursors.find((c) => c.dest_table === t.destTable && c.phase === 'copy');
    const backfills = cursors.filter((c) => c.dest_table === t.destTable && c.phase.startsWith('backfill:'));
    const state: TableProgress['state'] =
      failed === t.destTable
        ? 'failed'
        : !copy || (!copy.finished && copy.done === 0)
          ? 'pending'
          : !copy.finished
            ? 'copying'
            : backfills.some((b) => !b.finished)
              ? 'backfilling'
              : 'done';
    return {
      table: t.destTable,
      done: copy?.done ?? 0,
      total: totals[t.destTable] ?? 0,
      inserted: copy?.inserted ?? 0,
      updated: (copy?.updated ?? 0) + backfills.reduce((n, b) => n + b.updated, 0),
      skipped: copy?.skipped ?? 0,
      state,
    };
  });
}
