import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import { failureText } from '#shared/pg-errors.ts';
import { type CursorRow, openCursors, readCursors } from '../engine/cursors.ts';
import { sourceTotals } from '../engine/pages.ts';
import { PlanError, type PreparedTable, prepareTables } from '../engine/prepare.ts';
import { validateTable } from '../engine/validation.ts';
import { type Sql, assertHostAllowed, openDestination, openSource } from '../engine/db.ts';
import { parallelTablesOf } from '../engine/parallel.ts';
import { CopyPipeline, nextPhase, tableProgress, withCursor } from '../engine/run.ts';
import {
  type EngineEnv,
  HostNotAllowedError,
  type RunPlan,
  type RunProgress,
  type RunState,
  type TableValidation,
  directCopyAllowed,
} from '../engine/types.ts';
import { RejectLimitError } from '../engine/rejects.ts';
import { incrementalOf, prepareIncremental } from '../engine/incremental.ts';
import { recordRunEnd } from '../run-ends.ts';
import { advanceSyncMarks } from '../sync-marks.ts';
import { type JobRecord, type StepContext, type StepFailure, type StepResult, isRefusedLogin } from './step.ts';

// One slice of a migration run (the MigrationJob object's step): copy chunks for up to SLICE_MS,
// starting from the destination's committed cursors, so a slice that runs again (a retry, an
// evicted or reset object) resumes where the last committed chunk left off. What the MigrationJob
// object (durable-objects/migration-job.ts) calls.

export type { EngineEnv, LogEntry, MigrationJobRpc, RunPlan, RunProgress } from '../engine/types.ts';

/** How long one slice keeps copying before it hands over to the next (bounded work per alarm). */
export const SLICE_MS = 10_000;
/** Copy chunks of a table in flight at once, each on its own destination connection (see CopyPipeline). */
const PIPELINE_DEPTH = 2;

/** A run as its object stores it (key `run`). */
export type RunRecord = JobRecord & {
  state: RunState;
  /** null until the first slice has checked the plan against both schemas. */
  tables: PreparedTable[] | null;
  totals: Record<string, number>;
  cursors: CursorRow[];
  validation: TableValidation[] | null;
  /** The table a failed run stopped on (stored by runs that failed before it was worked out from the cursors). */
  failedTable: string | null;
};

export function newRunRecord(): RunRecord {
  return {
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
}

/** Refuses a source off MIGRATE_ALLOWED_HOSTS before any connection. */
export function admitRun(env: EngineEnv, plan: RunPlan): void {
  assertHostAllowed(env, plan.source);
}

export const runQueuedMessage = (plan: RunPlan) =>
  `Run ${plan.runId} queued: ${plan.tables.length} tables${plan.patchMode ? ', patch mode' : ''}`;

export async function migrationStep(
  env: EngineEnv,
  plan: RunPlan,
  start: RunRecord,
  job: StepContext<RunRecord>,
): Promise<StepResult<RunRecord>> {
  const sliceStarted = Date.now();
  let record = start;
  let source: Sql | undefined;
  let dest: Sql | undefined;
  let pipeline: CopyPipeline | undefined;
  try {
    source = openSource(env, plan.source);
    dest = openDestination(env);
    if (!record.tables) {
      // The source's row counts are read once the plan is checked: they read through its filters,
      // which are parsed against the source's schema while the tables are prepared.
      // A sync job's incremental tables: deletes applied, each read narrowed to what changed (incremental.ts).
      const tables = await prepareIncremental(
        source,
        dest,
        plan,
        await prepareTables(source, dest, plan, { directCopy: directCopyAllowed(env) }),
      );
      const totals = await sourceTotals(source, tables);
      const cursors = await openCursors(dest, plan);
      record = { ...record, tables, cursors, totals };
      job.save(record);
      job.log('Information', `Copying ${plan.tables.map((t) => `${t.sourceTable} → ${t.destTable}`).join(', ')}`, null);
      for (const t of tables) if (incrementalOf(t)) job.log('Information', `Incremental sync: ${incrementalOf(t)!.note}`, t.plan.destTable);
    } else {
      // The destination's cursors are the committed truth (a reset object may hold older ones).
      record = { ...record, cursors: await readCursors(dest, plan.runId) };
    }
    const tables = record.tables!;
    const maxChunks = plan.chunksPerSlice ?? Number.POSITIVE_INFINITY;
    let chunks = 0;
    // Tables side by side (parallelTablesOf), each with up to PIPELINE_DEPTH chunks in flight; a
    // slice limited to n chunks launches no more than n at once.
    pipeline = new CopyPipeline(
      source,
      dest,
      plan,
      tables,
      Math.min(PIPELINE_DEPTH, maxChunks),
      Math.min(parallelTablesOf(plan), maxChunks),
    );
    while (Date.now() - sliceStarted < SLICE_MS && chunks < maxChunks && !job.cancelRequested()) {
      const phase = nextPhase(plan, record.cursors);
      if (!phase) {
        const validation = await validateRun(source, dest, plan, tables, job);
        return { record: { ...record, validation, failedTable: null }, done: true };
      }
      const step = await pipeline.step(record.cursors);
      chunks++;
      if (step.kind === 'copied') continue;
      if (step.result.status === 'stale') {
        job.log('Warning', 'A chunk was already committed by an earlier attempt: continuing from the committed cursor', step.phase.table);
        record = { ...record, cursors: await readCursors(dest, plan.runId) };
        continue;
      }
      const { result } = step;
      if (result.rejected)
        job.log('Warning', `${result.rejected} rows set aside: their cast or a constraint failed (Results lists them)`, step.phase.table);
      if (result.unresolved > 0)
        job.log('Warning', `${result.unresolved} rows skipped: a foreign key value has no id mapping`, step.phase.table);
      record = { ...record, cursors: withCursor(record.cursors, result.cursor) };
      if (result.finished) {
        const c = result.cursor;
        job.log(
          'Information',
          step.phase.kind === 'copy'
            ? `Copied: ${c.done} rows read, ${c.inserted} inserted, ${c.updated} updated, ${c.skipped} skipped`
            : `Backfilled ${step.phase.column}: ${c.updated} rows set`,
          step.phase.table,
        );
      }
      job.save(record);
    }
    // Chunks still in flight when the slice stops commit or not; the destination's cursors say which.
    await pipeline.drain();
    return { record: { ...record, cursors: await readCursors(dest, plan.runId) }, done: false };
  } catch (error) {
    await pipeline?.drain().catch(() => {});
    throw error;
  } finally {
    await Promise.all([source?.end(), dest?.end()]);
  }
}

async function validateRun(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  tables: PreparedTable[],
  job: StepContext<RunRecord>,
): Promise<TableValidation[]> {
  const validation: TableValidation[] = [];
  for (const table of tables) {
    // An incremental pass costs what changed: validating the whole table would cost the table.
    if (incrementalOf(table)?.whole === false) {
      job.log('Information', 'Incremental pass: the whole table is not validated (a full pass validates it)', table.plan.destTable);
      continue;
    }
    const result = await validateTable(source, dest, plan.configId, table);
    validation.push(result);
    job.log(
      result.ok ? 'Information' : 'Warning',
      result.ok
        ? `Validated: ${result.sourceCount} rows, checksums match`
        : `Validation difference: source ${result.sourceCount} rows (checksum ${result.sourceChecksum}), destination ${result.destCount} rows (checksum ${result.destChecksum})`,
      table.plan.destTable,
    );
  }
  return validation;
}

/** The table a run was working on: the first unfinished phase's (none before the plan was checked). */
function currentTable(plan: RunPlan, record: RunRecord): string | null {
  return record.tables ? (nextPhase(plan, record.cursors)?.table ?? null) : null;
}

/** A plan that does not fit the schemas, a host off the list or a refused login fail the run at once. */
export function migrationFailure(error: unknown, plan: RunPlan, record: RunRecord): StepFailure {
  const text = failureText(error);
  const refused = isRefusedLogin(error);
  return {
    text,
    permanent: error instanceof PlanError || error instanceof HostNotAllowedError || error instanceof RejectLimitError || refused,
    reason: refused ? `the source or destination refused the login: ${text}` : text,
    tableName: currentTable(plan, record),
  };
}

/** The run's source password is no longer needed once it has ended. */
export const runPlanWithoutSecrets = (plan: RunPlan): RunPlan => ({ ...plan, source: { ...plan.source, password: '' } });

export const runEndMessage = (state: RunState) => `Run ${state}`;

/** The session or sync job learns of the end at once, so its next run is not held by a stale status. */
export async function recordMigrationEnd(d1: D1Database, plan: RunPlan, record: RunRecord): Promise<void> {
  try {
    const finishedAt = record.finishedAt ? Date.parse(record.finishedAt) : Date.now();
    const db = drizzle(d1, { schema });
    await recordRunEnd(db, plan.sessionId, plan.runId, record.state, finishedAt, record.errors.at(-1) ?? null);
    // A sync job's marks move for the tables whose copy committed to its end.
    const finished = (table: string) => record.cursors.some((c) => c.dest_table === table && c.phase === 'copy' && c.finished);
    await advanceSyncMarks(db, plan.sessionId, plan.runId, record.tables, finished, Date.now());
  } catch (err) {
    console.error(
      JSON.stringify({
        level: 'error',
        service: 'migrate',
        event: 'run_end_not_recorded',
        runId: plan.runId,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }
}

export function migrationProgress(plan: RunPlan, record: RunRecord): RunProgress {
  const failedTable = record.state === 'failed' ? (record.failedTable ?? currentTable(plan, record)) : null;
  const tables = tableProgress(plan, record.cursors, record.totals, failedTable);
  const done = tables.reduce((n, t) => n + t.done, 0);
  const total = tables.reduce((n, t) => n + t.total, 0);
  const elapsedMs = record.startedAt ? (record.finishedAt ? Date.parse(record.finishedAt) : Date.now()) - Date.parse(record.startedAt) : 0;
  const rowsPerSecond = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
  const running = record.state === 'running' || record.state === 'cancelling';
  return {
    state: record.state,
    tables:
      running && !nextPhase(plan, record.cursors) && record.tables
        ? tables.map((t) => ({ ...t, state: 'validating' }))
        : record.state === 'cancelled'
          ? tables.map((t) => (t.state === 'done' ? t : { ...t, state: 'cancelled' }))
          : tables,
    rowsPerSecond,
    etaSeconds: running && rowsPerSecond > 0 ? Math.ceil(Math.max(0, total - done) / rowsPerSecond) : null,
    errors: record.errors,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    validation: record.validation,
  };
}
