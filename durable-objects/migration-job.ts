import { DurableObject } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import { failureText, sqlStateOf } from '#shared/pg-errors.ts';
import { type CursorRow, PlanError, type PreparedTable, openCursors, prepareTables, readCursors, sourceTotals, validateTable } from '../workers/migrate/src/engine/copy.ts';
import { type Sql, assertHostAllowed, openDestination, openSource } from '../workers/migrate/src/engine/db.ts';
import { CopyPipeline, nextPhase, tableProgress, withCursor } from '../workers/migrate/src/engine/run.ts';
import { recordRunEnd } from '../workers/migrate/src/run-ends.ts';
import {
  type EngineEnv,
  directCopyAllowed,
  HostNotAllowedError,
  type LogEntry,
  type MigrationJobRpc,
  type RunPlan,
  type RunProgress,
  type RunState,
  type TableValidation,
} from '../workers/migrate/src/engine/types.ts';

/** How long one alarm keeps copying before it hands over to the next (bounded work per invocation). */
const SLICE_MS = 10_000;
/** Copy chunks of a table in flight at once, each on its own destination connection (see CopyPipeline). */
const PIPELINE_DEPTH = 2;
/** Consecutive failed slices (database unreachable, connection dropped) before the run fails. */
const MAX_ATTEMPTS = 6;
const LOG_KEEP = 2_000;
const TERMINAL: readonly RunState[] = ['completed', 'failed', 'cancelled'];

/** The benches host this class without the app's D1; there a run's end is learnt from its progress only. */
type JobEnv = EngineEnv & { DB?: D1Database };

type Stored = {
  state: RunState;
  tables: PreparedTable[] | null;
  totals: Record<string, number>;
  cursors: CursorRow[];
  startedAt: string | null;
  finishedAt: string | null;
  errors: string[];
  validation: TableValidation[] | null;
  attempts: number;
  failedTable: string | null;
};

/**
 * The server refused the login (wrong password, unknown role or database): retrying cannot help,
 * so the run fails at once. SQLSTATE classes 28 (invalid authorization) and 3D000 (no such database).
 */
function isRefusedLogin(error: unknown): boolean {
  const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000');
}

/**
 * One migration run (one object per run id): its plan, state, the cursor and counters of every
 * table, a log tail and a cancel flag. The copy runs in alarm-driven slices of bounded chunks; the
 * destination commits each chunk with its cursor (see the engine's copy.ts), and every slice
 * starts from the destination's cursors, so an evicted or reset object, or a dropped connection,
 * resumes where the last committed chunk left off, with nothing lost or copied twice.
 */
export class MigrationJob extends DurableObject<JobEnv> implements MigrationJobRpc {
  constructor(ctx: DurableObjectState, env: JobEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, level TEXT NOT NULL, message TEXT NOT NULL, table_name TEXT, timestamp TEXT NOT NULL)`,
    );
  }

  start(plan: RunPlan): RunProgress {
    const existing = this.stored();
    if (existing) return this.progressOf(existing);
    const stored: Stored = {
      state: 'queued',
      tables: null,
      totals: {},
      cursors: [],
      startedAt: null,
      finishedAt: null,
      errors: [],
      validation: null,
      attempts: 0,
      failedTable: null,
    };
    this.ctx.storage.kv.put('plan', plan);
    this.ctx.storage.kv.put('run', stored);
    try {
      assertHostAllowed(this.env, plan.source);
    } catch (error) {
      // Refused before any connection: the run exists, failed, with the reason.
      this.finish({ ...stored, errors: [error instanceof Error ? error.message : String(error)] }, 'failed');
      return this.progressOf(this.stored()!);
    }
    this.log('Information', `Run ${plan.runId} queued: ${plan.tables.length} tables${plan.patchMode ? ', patch mode' : ''}`, null);
    void this.ctx.storage.setAlarm(Date.now());
    return this.progressOf(stored);
  }

  progress(): RunProgress | null {
    const stored = this.stored();
    return stored ? this.progressOf(stored) : null;
  }

  logs(count = 50): LogEntry[] {
    const n = Math.min(500, Math.max(1, Math.floor(count)));
    const rows = this.ctx.storage.sql
      .exec<{ level: LogEntry['level']; message: string; table_name: string | null; timestamp: string }>(
        'SELECT level, message, table_name, timestamp FROM log ORDER BY id DESC LIMIT ?',
        n,
      )
      .toArray();
    return rows.reverse().map((r) => ({ level: r.level, message: r.message, tableName: r.table_name, timestamp: r.timestamp }));
  }

  cancel(): { message: string } {
    const stored = this.stored();
    if (!stored) return { message: 'No such migration run' };
    if (TERMINAL.includes(stored.state)) return { message: `The migration has already ${stored.state === 'completed' ? 'completed' : stored.state === 'failed' ? 'failed' : 'been cancelled'}` };
    // The run's alarm (always scheduled while it is queued or running) sees the flag and ends it.
    this.ctx.storage.kv.put('cancel', true);
    this.save({ ...stored, state: 'cancelling' });
    this.log('Warning', 'Cancellation requested: stopping after the current chunk', null);
    return { message: 'Cancellation requested: the migration stops after the current chunk' };
  }

  override async alarm(): Promise<void> {
    const plan = this.ctx.storage.kv.get<RunPlan>('plan');
    let stored = this.stored();
    if (!plan || !stored || TERMINAL.includes(stored.state)) return;
    if (this.cancelRequested()) {
      this.finish(stored, 'cancelled');
      return;
    }
    const sliceStarted = Date.now();
    let source: Sql | undefined;
    let dest: Sql | undefined;
    let pipeline: CopyPipeline | undefined;
    try {
      source = openSource(this.env, plan.source);
      dest = openDestination(this.env);
      if (!stored.tables) {
        // The source's row counts are read once the plan is checked: they read through its filters,
        // which are parsed against the source's schema while the tables are prepared.
        const tables = await prepareTables(source, dest, plan, { directCopy: directCopyAllowed(this.env) });
        const totals = await sourceTotals(source, tables);
        const cursors = await openCursors(dest, plan);
        const state = this.cancelRequested() ? 'cancelling' : 'running';
        stored = { ...stored, tables, cursors, totals, state, startedAt: stored.startedAt ?? new Date().toISOString() };
        this.save(stored);
        this.log('Information', `Copying ${plan.tables.map((t) => `${t.sourceTable} → ${t.destTable}`).join(', ')}`, null);
      } else {
        // The destination's cursors are the committed truth (a reset object may hold older ones).
        stored = { ...stored, cursors: await readCursors(dest, plan.runId) };
      }
      const tables = stored.tables!;
      const maxChunks = plan.chunksPerSlice ?? Number.POSITIVE_INFINITY;
      let chunks = 0;
      pipeline = new CopyPipeline(source, dest, plan, tables, Math.min(PIPELINE_DEPTH, maxChunks));
      // Chunks still in flight when the slice stops commit or not; the destination's cursors say which.
      const settle = async () => {
        await pipeline!.drain();
        stored = { ...stored!, cursors: await readCursors(dest!, plan.runId) };
      };
      while (Date.now() - sliceStarted < SLICE_MS && chunks < maxChunks) {
        if (this.cancelRequested()) {
          await settle();
          this.finish(stored, 'cancelled');
          return;
        }
        const phase = nextPhase(plan, stored.cursors);
        if (!phase) {
          await this.validate(source, dest, plan, stored);
          return;
        }
        stored = { ...stored, failedTable: phase.table };
        const step = await pipeline.step(stored.cursors);
        chunks++;
        if (step.kind === 'copied') continue;
        if (step.result.status === 'stale') {
          this.log('Warning', 'A chunk was already committed by an earlier attempt: continuing from the committed cursor', step.phase.table);
          stored = { ...stored, cursors: await readCursors(dest, plan.runId) };
          continue;
        }
        const { result } = step;
        if (result.unresolved > 0) {
          this.log('Warning', `${result.unresolved} rows skipped: a foreign key value has no id mapping`, step.phase.table);
        }
        stored = { ...stored, cursors: withCursor(stored.cursors, result.cursor), attempts: 0, failedTable: null };
        if (result.finished) {
          const c = result.cursor;
          this.log(
            'Information',
            step.phase.kind === 'copy'
              ? `Copied: ${c.done} rows read, ${c.inserted} inserted, ${c.updated} updated, ${c.skipped} skipped`
              : `Backfilled ${step.phase.column}: ${c.updated} rows set`,
            step.phase.table,
          );
        }
        this.save(stored);
      }
      await settle();
      this.save(stored);
      await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      await pipeline?.drain();
      await this.failSlice(stored, error);
    } finally {
      await Promise.all([source?.end(), dest?.end()]);
    }
  }

  private async validate(source: Sql, dest: Sql, plan: RunPlan, stored: Stored): Promise<void> {
    const validation: TableValidation[] = [];
    for (const table of stored.tables!) {
      const result = await validateTable(source, dest, plan.configId, table);
      validation.push(result);
      this.log(
        result.ok ? 'Information' : 'Warning',
        result.ok
          ? `Validated: ${result.sourceCount} rows, checksums match`
          : `Validation difference: source ${result.sourceCount} rows (checksum ${result.sourceChecksum}), destination ${result.destCount} rows (checksum ${result.destChecksum})`,
        table.plan.destTable,
      );
    }
    this.finish({ ...stored, validation, failedTable: null }, 'completed');
  }

  private async failSlice(stored: Stored, error: unknown): Promise<void> {
    if (sqlStateOf(error)) console.error(JSON.stringify({ level: 'error', service: 'migrate', event: 'job_step_failed', error: error instanceof Error ? error.message : String(error) }));
    const message = failureText(error);
    const attempts = stored.attempts + 1;
    const fatal = error instanceof PlanError || error instanceof HostNotAllowedError || isRefusedLogin(error) || attempts >= MAX_ATTEMPTS;
    const reason = isRefusedLogin(error) ? `the source or destination refused the login: ${message}` : message;
    this.log('Error', fatal ? `Failed: ${reason}` : `Attempt ${attempts} failed, retrying: ${message}`, stored.failedTable);
    const next = { ...stored, attempts, errors: [...stored.errors, message].slice(-20) };
    if (fatal) {
      this.finish(next, 'failed');
      return;
    }
    this.save(next);
    await this.ctx.storage.setAlarm(Date.now() + 500 * 2 ** attempts);
  }

  private finish(stored: Stored, state: RunState): void {
    const finishedAt = new Date();
    this.save({ ...stored, state, finishedAt: finishedAt.toISOString() });
    // The source password is no longer needed once the run is over.
    const plan = this.ctx.storage.kv.get<RunPlan>('plan');
    if (plan) this.ctx.storage.kv.put('plan', { ...plan, source: { ...plan.source, password: '' } });
    void this.ctx.storage.deleteAlarm();
    this.log(state === 'failed' ? 'Error' : state === 'cancelled' ? 'Warning' : 'Information', `Run ${state}`, null);
    if (plan && this.env.DB) this.ctx.waitUntil(this.recordEnd(this.env.DB, plan, state, finishedAt.getTime(), stored.errors.at(-1) ?? null));
  }

  /** The session or sync job learns of the end at once, so its next run is not held by a stale status. */
  private async recordEnd(d1: D1Database, plan: RunPlan, state: RunState, finishedAt: number, error: string | null): Promise<void> {
    try {
      await recordRunEnd(drizzle(d1, { schema }), plan.sessionId, plan.runId, state, finishedAt, error);
    } catch (err) {
      console.error(JSON.stringify({ level: 'error', service: 'migrate', event: 'run_end_not_recorded', runId: plan.runId, error: err instanceof Error ? err.message : String(err) }));
    }
  }

  private cancelRequested(): boolean {
    return this.ctx.storage.kv.get<boolean>('cancel') === true;
  }

  private stored(): Stored | undefined {
    return this.ctx.storage.kv.get<Stored>('run');
  }

  private save(stored: Stored): void {
    // A cancel that arrived while a slice was waiting on the database is not overwritten.
    const state = stored.state === 'running' && this.cancelRequested() ? 'cancelling' : stored.state;
    this.ctx.storage.kv.put('run', { ...stored, state });
  }

  private log(level: LogEntry['level'], message: string, tableName: string | null): void {
    this.ctx.storage.sql.exec('INSERT INTO log (level, message, table_name, timestamp) VALUES (?, ?, ?, ?)', level, message, tableName, new Date().toISOString());
    this.ctx.storage.sql.exec('DELETE FROM log WHERE id <= (SELECT max(id) FROM log) - ?', LOG_KEEP);
  }

  private progressOf(stored: Stored): RunProgress {
    const plan = this.ctx.storage.kv.get<RunPlan>('plan')!;
    const tables = tableProgress(plan, stored.cursors, stored.totals, stored.state === 'failed' ? stored.failedTable : null);
    const done = tables.reduce((n, t) => n + t.done, 0);
    const total = tables.reduce((n, t) => n + t.total, 0);
    const elapsedMs = stored.startedAt ? (stored.finishedAt ? Date.parse(stored.finishedAt) : Date.now()) - Date.parse(stored.startedAt) : 0;
    const rowsPerSecond = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
    const running = stored.state === 'running' || stored.state === 'cancelling';
    return {
      state: stored.state,
      tables:
        running && !nextPhase(plan, stored.cursors) && stored.tables
          ? tables.map((t) => ({ ...t, state: 'validating' }))
          : stored.state === 'cancelled'
            ? tables.map((t) => (t.state === 'done' ? t : { ...t, state: 'cancelled' }))
            : tables,
      rowsPerSecond,
      etaSeconds: running && rowsPerSecond > 0 ? Math.ceil(Math.max(0, total - done) / rowsPerSecond) : null,
      errors: stored.errors,
      startedAt: stored.startedAt,
      finishedAt: stored.finishedAt,
      validation: stored.validation,
    };
  }
}
