import {
  type ChunkResult,
  type CursorRow,
  type Phase,
  type PreparedTable,
  backfillChunk,
  chunkSizeOf,
  copyChunk,
  phasesOf,
  type SourcePage,
  readCopyPage,
} from './copy.ts';
import type { Sql } from './db.ts';
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
 * Copy chunks of one table with up to `depth` destination statements in flight, each on a
 * connection of its own (the pool's), while the next source page is read. A chunk is launched with
 * the cursor its predecessor will leave, so its statement does all of its work at once and then
 * waits on the cursor row for the predecessor's commit (row lock): if the predecessor committed,
 * the guard matches and it commits; if the predecessor failed or was stale, the guard finds the
 * cursor elsewhere and it rolls back as stale. Outcomes come back in cursor order. Chunks of the
 * next table start only once this table's last chunk is committed (its foreign keys need the
 * parents' mappings); tables matched by natural key and backfill phases go one chunk at a time.
 * The source is read one page ahead at all times: the next page's read starts as soon as the page
 * before it arrives, whatever the destination is doing, so reading and writing overlap fully.
 */
export class CopyPipeline {
  private readonly queue: { phase: Phase; result: Promise<ChunkResult> }[] = [];
  /** Where the next launch starts (the last launched page's last key), and whether pages remain. */
  private ahead: { table: string; cursor: string | null; more: boolean } | null = null;
  /** The page being read ahead: the one starting after `from` of `table`. */
  private readAhead: { table: string; from: string | null; page: Promise<SourcePage> } | null = null;

  constructor(
    private readonly source: Sql,
    private readonly dest: Sql,
    private readonly plan: RunPlan,
    private readonly tables: PreparedTable[],
    private readonly depth: number,
  ) {}

  /** The next chunk's outcome, launching more chunks of the current copy phase first. */
  async step(cursors: CursorRow[]): Promise<StepOutcome> {
    const phase = nextPhase(this.plan, cursors);
    if (this.queue.length === 0 && (!phase || phase.kind !== 'copy')) {
      this.ahead = null;
      return runStep(this.source, this.dest, this.plan, this.tables, cursors);
    }
    if (phase && phase.kind === 'copy') await this.fill(phase, cursors);
    const head = this.queue.shift()!;
    const result = await head.result;
    // After a stale chunk the ones behind it are stale or unknown: the caller re-reads the cursors.
    if (result.status === 'stale') await this.drain();
    return { kind: 'chunk', phase: head.phase, result };
  }

  /** Waits for every chunk in flight (committed or not: the destination's cursors say which). */
  async drain(): Promise<void> {
    const pending = this.queue.splice(0);
    const reading = this.readAhead?.page;
    this.ahead = null;
    this.readAhead = null;
    await Promise.allSettled([...pending.map((p) => p.result), ...(reading ? [reading] : [])]);
  }

  /** The page after `from`: the one read ahead when it is that page, else read now. */
  private page(table: PreparedTable, from: string | null, limit: number): Promise<SourcePage> {
    const ahead = this.readAhead;
    this.readAhead = null;
    if (ahead && ahead.table === table.plan.destTable && ahead.from === from) return ahead.page;
    return readCopyPage(this.source, table, from, limit);
  }

  private readNext(table: PreparedTable, from: string | null, limit: number): void {
    const page = readCopyPage(this.source, table, from, limit);
    // Awaited by the next launch or drain(); never an unhandled rejection meanwhile.
    page.catch(() => undefined);
    this.readAhead = { table: table.plan.destTable, from, page };
  }

  private async fill(phase: Phase, cursors: CursorRow[]): Promise<void> {
    const table = this.tables.find((t) => t.plan.destTable === phase.table);
    if (!table) throw new Error(`No prepared table for ${phase.table}`);
    const limit = chunkSizeOf(this.plan);
    if (this.queue.length === 0 || !this.ahead || this.ahead.table !== phase.table) {
      this.ahead = { table: phase.table, cursor: cursorOf(cursors, phase)?.cursor ?? null, more: true };
    }
    // With a natural key, a chunk must see the rows its predecessor inserted (a later source row with
    // the same key is matched to them, not inserted again): one at a time.
    const depth = table.plan.naturalKey?.length ? 1 : this.depth;
    while (this.queue.length < depth && this.ahead.more) {
      const from: string | null = this.ahead.cursor;
      const page = await this.page(table, from, limit);
      const result = copyChunk(this.source, this.dest, this.plan, table, from, limit, { page });
      // Awaited by step() or drain(); never an unhandled rejection meanwhile.
      result.catch(() => undefined);
      this.queue.push({ phase, result });
      this.ahead = { table: phase.table, cursor: page.last ?? from, more: page.rows === limit };
      if (this.ahead.more) this.readNext(table, this.ahead.cursor, limit);
    }
  }
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
