import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv } from './configurations.ts';
import { servicesOf, type MigrateDb, type MigrateServices } from './context.ts';
import {
  activeSyncJobs,
  claimDueSyncJob,
  claimSyncRun,
  configurationCustomForeignKeys,
  dueSyncJobs,
  findSyncJob,
  recordSyncFailure,
  recordSyncRunState,
  releaseSyncRun,
  runActive,
  scheduleAfterRun,
  syncMappingDocument,
  type SyncJob,
} from './data/sync-jobs.ts';
import * as engine from './engine/index.ts';
import type { ForeignKey, RunState, SchemaInfo } from './engine/types.ts';
import { runAutoSyncSchedule } from './imports/auto-sync.ts';
import type { IncrementalRunPlan } from './engine/incremental.ts';
import { buildPlans, launchRun, migrationJob, runPlanFor } from './runs.ts';
import { incrementalPlan } from './sync-marks.ts';

/**
 * Sync jobs: stored copies of source tables of a configuration into the destination, run on the
 * MigrationJob Durable Object like a wizard run, started by the Cron Trigger when due or by hand.
 * Their storage is data/sync-jobs.ts.
 */

export const INTERVAL_MINUTES = { min: 5, max: 10_080 } as const;
export const MAX_SYNC_TABLES = 50;

/** The run id's owner as the engine's `sessionId` (a sync job has no wizard session). */
export const syncSessionId = (jobId: number) => `sync-job:${jobId}`;

/** The job of a request, or 404. */
export async function syncJobOr404(db: MigrateDb, id: number): Promise<SyncJob> {
  const job = await findSyncJob(db, id);
  if (!job) throw new HttpError(404, 'not_found', `There is no sync job ${id}.`);
  return job;
}

/** The destination foreign keys of a destination table, detected and custom, child side. */
export function tableForeignKeys(destTable: string, dest: SchemaInfo, custom: ForeignKey[]): ForeignKey[] {
  const detected = dest.foreignKeys.filter((fk) => fk.childTable === destTable).map((fk) => ({ ...fk, custom: false }));
  const extra = custom.filter(
    (fk) =>
      fk.childTable === destTable &&
      !detected.some((d) => d.childColumn === fk.childColumn && d.parentTable === fk.parentTable && d.parentColumn === fk.parentColumn),
  );
  return [...detected, ...extra];
}

// ---- runs ----

/**
 * Reads the state of the job's current run from its Durable Object and records a change (a failed
 * run's error; a completed run clears the error). The job as it now stands.
 */
export async function refreshSyncJob(s: MigrateServices, job: SyncJob): Promise<SyncJob> {
  if (!job.lastRunId || (job.lastStatus !== null && !runActive(job.lastStatus))) return job;
  const progress = await migrationJob(s, job.lastRunId).progress();
  if (!progress || progress.state === job.lastStatus) return job;
  const lastError =
    progress.state === 'failed'
      ? (progress.errors.at(-1) ?? 'The run failed.').slice(0, 2000)
      : progress.state === 'completed'
        ? null
        : job.lastError;
  await recordSyncRunState(s.var.db, job.id, job.lastRunId, progress.state, lastError);
  return { ...job, lastStatus: progress.state, lastError };
}

/** Refreshes every job whose run was last seen in progress. */
export async function refreshActiveSyncJobs(s: MigrateServices): Promise<void> {
  const jobs = await activeSyncJobs(s.var.db);
  // One unreachable object must not stop the others (or the tick).
  await Promise.allSettled(jobs.map((job) => refreshSyncJob(s, job)));
}

/**
 * Builds the job's run plan as the wizard would (the configuration's mapping document, else
 * names suggested from both schemas) and starts it in a new MigrationJob; records the run on the
 * job and schedules the next one at `now` + interval. The job is claimed first (409 naming the
 * run in progress; a stale status is settled from its job before that). Throws (400) when the
 * plan no longer fits, the claim given back.
 */
export async function startSyncRun(s: MigrateServices, job: SyncJob, now: number): Promise<string> {
  const runId = crypto.randomUUID();
  let before = job;
  if (!(await claimSyncRun(s.var.db, job.id, runId, now))) {
    const holder = await refreshSyncJob(s, (await findSyncJob(s.var.db, job.id)) ?? job);
    before = holder;
    if (!(await claimSyncRun(s.var.db, job.id, runId, now))) {
      throw new HttpError(409, 'already_running', `The sync job ${job.name} has a run in progress (run ${holder.lastRunId}).`, {
        runId: holder.lastRunId,
      });
    }
  }
  try {
    await launchSyncRun(s, job, runId);
  } catch (error) {
    // The job as it was before the claim; recordSyncFailure then says why.
    await releaseSyncRun(s.var.db, job.id, runId, before);
    throw error;
  }
  await scheduleAfterRun(s.var.db, job, runId, now);
  return runId;
}

/** What a sync job's plan is built from: both schemas, the configuration's mapping document and custom foreign keys. */
export async function syncPlanInputs(s: MigrateServices, configId: number) {
  const env = engineEnv(s);
  const source = await connectionOf(s, configId);
  const [sourceSchema, dest, doc, custom] = await Promise.all([
    engine.introspect(env, source),
    engine.introspect(env, 'destination'),
    syncMappingDocument(s.var.db, configId),
    configurationCustomForeignKeys(s.var.db, configId),
  ]);
  return { sourceSchema, dest, doc, custom };
}

async function launchSyncRun(s: MigrateServices, job: SyncJob, runId: string): Promise<void> {
  const { sourceSchema, dest, doc, custom } = await syncPlanInputs(s, job.configId);
  const missing = job.tables.filter((t) => !sourceSchema.tables.some((info) => info.name === t));
  if (missing.length) throw new HttpError(400, 'invalid_plan', `The source no longer has the table(s) ${missing.join(', ')}.`);
  const plans = buildPlans(job.tables, doc, sourceSchema, dest);
  const unmapped = plans.filter((p) => !p.destTable).map((p) => p.sourceTable);
  if (unmapped.length)
    throw new HttpError(400, 'invalid_plan', `No destination table for ${unmapped.join(', ')}: upload a mapping document that names it.`);
  const destTables = new Set(plans.map((p) => p.destTable));
  const spec = {
    sessionId: syncSessionId(job.id),
    configId: job.configId,
    plans,
    filters: {},
    tableOrder: [],
    patchMode: job.patchMode,
    custom: custom.filter((fk) => destTables.has(fk.childTable)),
  };
  const { plan } = await runPlanFor(s, spec, runId, dest);
  // Each table read by its change-detection method from its mark (sync-marks.ts, engine/incremental.ts);
  // a changed row updates the row it was copied to, so those runs go in patch mode.
  const incremental = await incrementalPlan(s.var.db, job.id, job.tables, sourceSchema);
  const patchMode = job.patchMode || incremental.some((t) => t.method !== 'full');
  const syncPlan: IncrementalRunPlan = { ...plan, patchMode, incremental };
  await launchRun(s, syncPlan, dest, sourceSchema);
}

// ---- the schedule ----

export type ScheduleDecision = { job: SyncJob; action: 'start' | 'skip-running' | 'not-due' };

/**
 * What the scheduler does with each job at `now`, given the state of its current run: an enabled
 * job whose next run is due starts, unless its current run is still in progress (then it waits,
 * its next run left as it is, and starts on the first tick after that run ends).
 */
export function scheduleDecisions(jobs: { job: SyncJob; runState: RunState | null }[], now: number): ScheduleDecision[] {
  return jobs.map(({ job, runState }) => {
    if (!job.enabled || job.nextRunAt === null || job.nextRunAt > now) return { job, action: 'not-due' };
    return { job, action: runActive(runState) ? 'skip-running' : 'start' };
  });
}

export type ScheduleReport = { started: number[]; skipped: number[]; failed: { id: number; error: string }[] };

/**
 * One tick of the schedule at `now` (the Cron Trigger's scheduled time): refreshes the runs in
 * progress, then starts every due enabled job whose last run has ended. A job is claimed by moving
 * its next run with a compare-and-set, so two overlapping ticks never start it twice. A failed
 * start is recorded on the job (and logged); the job keeps its schedule.
 */
export async function runSchedule(s: MigrateServices, now: number): Promise<ScheduleReport> {
  await refreshActiveSyncJobs(s);
  const due = (await dueSyncJobs(s.var.db, now)).map((job) => ({ job, runState: runActive(job.lastStatus) ? job.lastStatus : null }));
  const report: ScheduleReport = { started: [], skipped: [], failed: [] };
  for (const { job, action } of scheduleDecisions(due, now)) {
    if (action === 'skip-running') report.skipped.push(job.id);
    if (action !== 'start') continue;
    if (!(await claimDueSyncJob(s.var.db, job, now))) continue;
    try {
      await startSyncRun(s, job, now);
      report.started.push(job.id);
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) {
        report.skipped.push(job.id);
        continue;
      }
      const message = await recordSyncFailure(s.var.db, job.id, error);
      report.failed.push({ id: job.id, error: message });
      console.error(JSON.stringify({ level: 'error', service: 'migrate', event: 'sync_job_failed', job: job.id, error: message }));
    }
  }
  return report;
}

/** The Cron Trigger's handler (wrangler.toml `[triggers]`): one schedule tick at the trigger's time. */
export async function scheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const s = servicesOf(env);
  // One failing schedule does not stop the other.
  const [jobs, imports] = await Promise.allSettled([
    runSchedule(s, controller.scheduledTime),
    runAutoSyncSchedule(s, controller.scheduledTime),
  ]);
  if (jobs.status === 'fulfilled')
    console.log(JSON.stringify({ level: 'info', service: 'migrate', event: 'sync_schedule', cron: controller.cron, ...jobs.value }));
  if (imports.status === 'fulfilled')
    console.log(
      JSON.stringify({ level: 'info', service: 'migrate', event: 'auto_sync_schedule', cron: controller.cron, ...imports.value }),
    );
  const failed = [jobs, imports].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length) throw failed[0]!.reason;
}
