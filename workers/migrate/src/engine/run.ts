import { backfillChunk, copyChunk } from './copy.ts';
import { type ChunkResult, type CursorRow, type Phase, chunkSizeOf, phasesOf } from './cursors.ts';
import { type SourcePage, readCopyPage } from './pages.ts';
import type { PreparedTable } from './prepare.ts';
import type { Sql } from './db.ts';
import { parallelTablesOf } from './parallel.ts';
import type { RunPlan, TableProgress } from './types.ts';

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

/** Advances the first unfinished phase by one chunk. */
export async function runStep(source: Sql, dest: Sql, plan: RunPlan, tables: PreparedTable[], cursors: CursorRow[]): Promise<StepOutcome> {
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
  return { kind: 'chunk', phase, result: await copyChunk(source, dest, plan, table, cursor, limit) };
}

/**
 * Copy chunks of up to `parallel` tables at the same time (lanes), and of each table up to `depth`
 * destination statements in flight, each on a connection of its own (the pool's), while the next
 * source page of each table is read. A table's lane opens once every parent it translates foreign
 * keys through has finished its copy (committed: its mappings are there to look up), so tables
 * with no foreign key path between them copy side by side and the rest still go parents first.
 * Within a lane a chunk is launched with the cursor its predecessor will leave, so its statement
 * does all of its work at once and then waits on the cursor row for the predecessor's commit (row
 * lock): if the predecessor committed, the guard matches and it commits; if the predecessor failed
 * or was stale, the guard finds the cursor elsewhere and it rolls back as stale. A lane's outcomes
 * come back in cursor order; lanes interleave as their chunks finish. Tables matched by natural key
 * go one chunk at a time in their lane, and backfill phases (after every copy) one at a time.
 * Each lane's source is read one page ahead at all times: the next page's read starts as soon as
 * the page before it arrives, whatever the destination is doing, so reading and writing overlap.
 */
export class CopyPipeline {
  private lanes: Lane[] = [];

  constructor(
    private readonly source: Sql,
    private readonly dest: Sql,
    private readonly plan: RunPlan,
    private readonly tables: PreparedTable[],
    private readonly depth: number,
    private readonly parallel = parallelTablesOf(plan),
  ) {}

  /** The next chunk's outcome (whichever lane's comes first), opening lanes and launching chunks first. */
  async step(cursors: CursorRow[]): Promise<StepOutcome> {
    this.open(cursors);
    await Promise.all(this.lanes.map((lane) => this.fill(lane)));
    const busy = this.lanes.filter((lane) => lane.queue.length > 0);
    if (busy.length === 0) {
      this.lanes = [];
      return runStep(this.source, this.dest, this.plan, this.tables, cursors);
    }
    const lane = await Promise.race(
      busy.map((l) =>
        l.queue[0]!.then(
          () => l,
          () => l,
        ),
      ),
    );
    const result = await lane.queue.shift()!;
    if (lane.queue.length === 0 && !lane.more) this.lanes = this.lanes.filter((l) => l !== lane);
    // After a stale chunk the ones behind it are stale or unknown: the caller re-reads the cursors.
    if (result.status === 'stale') await this.drain();
    return { kind: 'chunk', phase: lane.phase, result };
  }

  /** Waits for every chunk in flight (committed or not: the destination's cursors say which). */
  async drain(): Promise<void> {
    const lanes = this.lanes;
    this.lanes = [];
    await Promise.allSettled(lanes.flatMap((lane) => [...lane.queue, ...(lane.readAhead ? [lane.readAhead.page] : [])]));
  }

  /** Opens a lane for each copy phase that may start now (parents copied), up to the limit, in plan order. */
  private open(cursors: CursorRow[]): void {
    for (const phase of phasesOf(this.plan)) {
      if (this.lanes.length >= this.parallel) return;
      if (phase.kind !== 'copy' || cursorOf(cursors, phase)?.finished) continue;
      if (this.lanes.some((lane) => lane.phase.table === phase.table)) continue;
      const table = this.tables.find((t) => t.plan.destTable === phase.table);
      if (!table) throw new Error(`No prepared table for ${phase.table}`);
      if (!parentsOf(this.plan, table).every((parent) => cursors.some((c) => c.dest_table === parent && c.phase === 'copy' && c.finished)))
        continue;
      this.lanes.push({ phase, table, queue: [], cursor: cursorOf(cursors, phase)?.cursor ?? null, more: true, readAhead: null });
    }
  }

  /** The page after `from`: the one read ahead when it is that page, else read now. */
  private page(lane: Lane, from: string | null, limit: number): Promise<SourcePage> {
    const ahead = lane.readAhead;
    lane.readAhead = null;
    if (ahead && ahead.from === from) return ahead.page;
    return readCopyPage(this.source, lane.table, from, limit);
  }

  private readNext(lane: Lane, from: string | null, limit: number): void {
    const page = readCopyPage(this.source, lane.table, from, limit);
    // Awaited by the next launch or drain(); never an unhandled rejection meanwhile.
    page.catch(() => undefined);
    lane.readAhead = { from, page };
  }

  private async fill(lane: Lane): Promise<void> {
    const limit = chunkSizeOf(this.plan);
    // With a natural key, a chunk must see the rows its predecessor inserted (a later source row with
    // the same key is matched to them, not inserted again): one at a time.
    const depth = lane.table.plan.naturalKey?.length ? 1 : this.depth;
    while (lane.queue.length < depth && lane.more) {
      const from = lane.cursor;
      const page = await this.page(lane, from, limit);
      const result = copyChunk(this.source, this.dest, this.plan, lane.table, from, limit, { page });
      // Awaited by step() or drain(); never an unhandled rejection meanwhile.
      result.catch(() => undefined);
      lane.queue.push(result);
      lane.cursor = page.last ?? from;
      lane.more = page.rows === limit;
      if (lane.more) this.readNext(lane, lane.cursor, limit);
    }
  }
}

/** One table's copy in the pipeline: its chunks in flight (in cursor order), where the next starts, its page read ahead. */
type Lane = {
  phase: Phase;
  table: PreparedTable;
  queue: Promise<ChunkResult>[];
  /** Where the next launch starts (the last launched page's last key), and whether pages remain. */
  cursor: string | null;
  more: boolean;
  /** The page being read ahead: the one starting after `from`. */
  readAhead: { from: string | null; page: Promise<SourcePage> } | null;
};

/** The plan tables a table translates foreign keys through (their copies must be committed first). */
function parentsOf(plan: RunPlan, table: PreparedTable): string[] {
  return [...new Set(Object.values(table.translated))].filter(
    (parent) => parent !== table.plan.destTable && plan.tables.some((t) => t.destTable === parent),
  );
}

/** Replaces a phase's cursor row with the one a chunk committed. */
export function withCursor(cursors: CursorRow[], row: CursorRow): CursorRow[] {
  return [...cursors.filter((c) => !(c.dest_table === row.dest_table && c.phase === row.phase)), row];
}

/** Per-table progress from the cursor rows and the source totals. */
export function tableProgress(
  plan: RunPlan,
  cursors: CursorRow[],
  totals: Record<string, number>,
  failed?: string | null,
): TableProgress[] {
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
