import {
  type ChunkResult,
  type CursorRow,
  type Phase,
  type PreparedTable,
  backfillChunk,
  chunkSizeOf,
  copyChunk,
  phasesOf,
} from './copy';
import type { Sql } from './db';
import type { RunPlan, TableProgress } from './types';

// One step of a run at a time: the first unfinished phase (every table's copy in FK order, then
// the deferred foreign keys' backfills) advances by one chunk. The caller (the MigrationJob
// Durable Object, or a test) keeps the cursor rows; the destination's copy of them is the truth.

export type StepOutcome = { kind: 'chunk'; phase: Phase; result: ChunkResult } | { kind: 'copied' };

export function cursorOf(cursors: CursorRow[], phase: Phase): CursorRow | undefined {
  return cursors.find((c) => c.dest_table === phase.table && c.phase === phase.phase);
}

export function nextPhase(plan: RunPlan, cursors: CursorRow[]): Phase | null {
  return phasesOf(plan).find((phase) => !cursorOf(cursors, phase)?.finished) ?? null;
}

export async function runStep(source: Sql, dest: Sql, plan: RunPlan, tables: PreparedTable[], cursors: CursorRow[]): Promise<StepOutcome> {
  const phase = nextPhase(plan, cursors);
  if (!phase) return { kind: 'copied' };
  const table = tables.find((t) => t.plan.destTable === phase.table);
  if (!table) throw new Error(`No prepared table for ${phase.table}`);
  const cursor = cursorOf(cursors, phase)?.cursor ?? null;
  const limit = chunkSizeOf(plan);
  const result =
    phase.kind === 'copy'
      ? await copyChunk(source, dest, plan, table, cursor, limit)
      : await backfillChunk(source, dest, plan, table, plan.deferred.find((fk) => fk.childTable === phase.table && fk.childColumn === phase.column)!, cursor, limit);
  return { kind: 'chunk', phase, result };
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
