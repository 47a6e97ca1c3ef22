import { and, asc, eq, inArray, isNotNull, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import {
  configurations,
  customRelationships,
  migrationSessions,
  syncJobs,
  syncSchemaFiles,
  type SYNC_RUN_STATUSES,
} from '#d1/migrate/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv } from './configurations.ts';
import { servicesOf, type MigrateDb, type MigrateServices } from './context.ts';
import * as engine from './engine/index.ts';
import type { ForeignKey, MappingDocument, RunState, SchemaInfo } from './engine/types.ts';
import { runAutoSyncSchedule } from './imports/auto-sync.ts';
import type { IncrementalRunPlan } from './engine/incremental.ts';
import { buildPlans, launchRun, migrationJob, runPlanFor } from './runs.ts';
import { incrementalPlan } from './sync-marks.ts';
import { asForeignKey, latestSchemaFile } from './wizard-sessions.ts';

/**
 * Sync jobs: stored copies of source tables of a configuration into the destination, run on the
 * MigrationJob Durable Object like a wizard run, started by the Cron Trigger when due or by hand.
 */

export const INTERVAL_MINUTES = { min: 5, max: 10_080 } as const;
export const MAX_SYNC_TABLES = 50;

export type SyncRunStatus = (typeof SYNC_RUN_STATUSES)[number];

export type SyncJob = {
  id: number;
  name: string;
  configId: number;
  tables: string[];
  patchMode: boolean;
  intervalMinutes: number;
  enabled: boolean;
  nextRunAt: number | null;
  lastRunId: string | null;
  lastRunAt: number | null;
  lastStatus: SyncRunStatus | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
};

export type SyncJobInput = Pick<SyncJob, 'name' | 'configId' | 'tables' | 'patchMode' | 'intervalMinutes' | 'enabled'>;

type Row = typeof syncJobs.$inferSelect;

function parseTables(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

const parse = (row: Row): SyncJob => ({ ...row, tables: parseTables(row.tables) });

const ACTIVE: readonly RunState[] = ['queued', 'running', 'cancelling'];

/** True while a run of the job is queued, copying or stopping. */
export const runActive = (state: RunState | null | undefined): boolean => state != null && ACTIVE.includes(state);

export const nextRunAfter = (start: number, intervalMinutes: number): number => start + intervalMinutes * 60_000;

/** The run id's owner as the engine's `sessionId` (a sync job has no wizard session). */
export const syncSessionId = (jobId: number) => `sync-job:${jobId}`;

// ---- storage ----

export async function listSyncJobs(db: MigrateDb): Promise<(SyncJob & { configName: string })[]> {
  const rows = await db
    .select({ job: syncJobs, configName: configurations.name })
    .from(syncJobs)
    .innerJoin(configurations, eq(configurations.id, syncJobs.configId))
    .orderBy(asc(syncJobs.name), asc(syncJobs.id))
    .limit(1000)
    .all();
  return rows.map((r) => ({ ...parse(r.job), configName: r.configName }));
}

export async function findSyncJob(db: MigrateDb, id: number): Promise<SyncJob | undefined> {
  const row = await db.select().from(syncJobs).where(eq(syncJobs.id, id)).get();
  return row && parse(row);
}

/** The job of a request, or 404. */
export async function syncJobOr404(db: MigrateDb, id: number): Promise<SyncJob> {
  const job = await findSyncJob(db, id);
  if (!job) throw new HttpError(404, 'not_found', `There is no sync job ${id}.`);
  return job;
}

export async function createSyncJob(db: MigrateDb, input: SyncJobInput, now: number): Promise<number> {
  const row = await db
    .insert(syncJobs)
    .values({
      ...input,
      tables: JSON.stringify(input.tables),
      nextRunAt: input.enabled ? nextRunAfter(now, input.intervalMinutes) : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: syncJobs.id })
    .get();
  return row.id;
}

/**
 * Saves an edit. An enabled job keeps its next run unless it was disabled or its interval changed
 * (then now + interval); a disabled one has none. False when there is no such job.
 */
export async function updateSyncJob(db: MigrateDb, id: number, input: SyncJobInput, now: number): Promise<boolean> {
  const existing = await findSyncJob(db, id);
  if (!existing) return false;
  const keep = existing.enabled && existing.intervalMinutes === input.intervalMinutes && existing.nextRunAt !== null;
  const nextRunAt = !input.enabled ? null : keep ? existing.nextRunAt : nextRunAfter(now, input.intervalMinutes);
  await db
    .update(syncJobs)
    .set({ ...input, tables: JSON.stringify(input.tables), nextRunAt, updatedAt: now })
    .where(eq(syncJobs.id, id))
    .run();
  return true;
}

export async function deleteSyncJob(db: MigrateDb, id: number): Promise<boolean> {
  const row = await db.delete(syncJobs).where(eq(syncJobs.id, id)).returning({ id: syncJobs.id }).get();
  return row !== undefined;
}

/** Flips the enabled flag in one statement: enabling schedules the next run at now + interval. */
export async function toggleSyncJob(
  db: MigrateDb,
  id: number,
  now: number,
): Promise<{ enabled: boolean; nextRunAt: number | null } | undefined> {
  return db
    .update(syncJobs)
    .set({
      enabled: sql`not ${syncJobs.enabled}`,
      nextRunAt: sql`case when ${syncJobs.enabled} then null else ${now} + ${syncJobs.intervalMinutes} * 60000 end`,
      updatedAt: now,
    })
    .where(eq(syncJobs.id, id))
    .returning({ enabled: syncJobs.enabled, nextRunAt: syncJobs.nextRunAt })
    .get();
}

/** `{running, errored, enabled, total}`: jobs with a run in progress, whose last start or run failed, enabled, all. */
export async function syncStatus(db: MigrateDb): Promise<{ running: number; errored: number; enabled: number; total: number }> {
  const row = await db
    .select({
      running: sql<number>`coalesce(sum(${syncJobs.lastStatus} in ('queued', 'running', 'cancelling')), 0)`,
      errored: sql<number>`coalesce(sum(${syncJobs.lastError} is not null), 0)`,
      enabled: sql<number>`coalesce(sum(${syncJobs.enabled}), 0)`,
      total: sql<number>`count(*)`,
    })
    .from(syncJobs)
    .get();
  return {
    running: Number(row?.running ?? 0),
    errored: Number(row?.errored ?? 0),
    enabled: Number(row?.enabled ?? 0),
    total: Number(row?.total ?? 0),
  };
}

// ---- the configuration's mapping document and custom foreign keys ----

/** The mapping document uploaded for the configuration's sync jobs, else the one its wizard sessions saved last. */
export async function syncMappingDocument(db: MigrateDb, configId: number): Promise<MappingDocument | null> {
  const row = await db
    .select({ document: syncSchemaFiles.document })
    .from(syncSchemaFiles)
    .where(eq(syncSchemaFiles.configId, configId))
    .get();
  if (row) {
    try {
      return engine.parseMappingDocument(JSON.parse(row.document));
    } catch {
      // A stored document that no longer parses counts as none.
    }
  }
  return latestSchemaFile(db, configId);
}

export async function saveSyncMappingDocument(
  db: MigrateDb,
  configId: number,
  doc: MappingDocument,
  uploadedBy: string,
  now: number,
): Promise<void> {
  const document = JSON.stringify(doc);
  await db
    .insert(syncSchemaFiles)
    .values({ configId, document, uploadedBy, uploadedAt: now })
    .onConflictDoUpdate({ target: syncSchemaFiles.configId, set: { document, uploadedBy, uploadedAt: now } })
    .run();
}

/** The custom relationships the configuration's wizard sessions added, each once. */
export async function configurationCustomForeignKeys(db: MigrateDb, configId: number): Promise<ForeignKey[]> {
  const rows = await db
    .selectDistinct({
      parentTable: customRelationships.parentTable,
      parentColumn: customRelationships.parentColumn,
      childTable: customRelationships.childTable,
      childColumn: customRelationships.childColumn,
    })
    .from(customRelationships)
    .innerJoin(migrationSessions, eq(migrationSessions.id, customRelationships.sessionId))
    .where(eq(migrationSessions.configId, configId))
    .all();
  return rows.map(asForeignKey);
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
  await s.var.db
    .update(syncJobs)
    .set({ lastStatus: progress.state, lastError })
    .where(and(eq(syncJobs.id, job.id), eq(syncJobs.lastRunId, job.lastRunId)))
    .run();
  return { ...job, lastStatus: progress.state, lastError };
}

/** Refreshes every job whose run was last seen in progress. */
export async function refreshActiveSyncJobs(s: MigrateServices): Promise<void> {
  const rows = await s.var.db
    .select()
    .from(syncJobs)
    .where(and(isNotNull(syncJobs.lastRunId), inArray(syncJobs.lastStatus, ['queued', 'running', 'cancelling'])))
    .limit(200)
    .all();
  // One unreachable object must not stop the others (or the tick).
  await Promise.allSettled(rows.map((row) => refreshSyncJob(s, parse(row))));
}

/**
 * Claims the job for run `runId` in one conditional statement: false while another run of it is
 * queued, copying or stopping, so two concurrent starts never both launch.
 */
async function claimSyncRun(db: MigrateDb, jobId: number, runId: string, now: number): Promise<boolean> {
  const row = await db
    .update(syncJobs)
    .set({ lastRunId: runId, lastRunAt: now, lastStatus: 'queued', lastError: null, updatedAt: now })
    .where(and(eq(syncJobs.id, jobId), or(isNull(syncJobs.lastStatus), notInArray(syncJobs.lastStatus, [...ACTIVE]))))
    .returning({ id: syncJobs.id })
    .get();
  return row !== undefined;
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
    await s.var.db
      .update(syncJobs)
      .set({ lastRunId: before.lastRunId, lastRunAt: before.lastRunAt, lastStatus: before.lastStatus })
      .where(and(eq(syncJobs.id, job.id), eq(syncJobs.lastRunId, runId)))
      .run();
    throw error;
  }
  await s.var.db
    .update(syncJobs)
    .set({ nextRunAt: job.enabled ? nextRunAfter(now, job.intervalMinutes) : null, updatedAt: now })
    .where(and(eq(syncJobs.id, job.id), eq(syncJobs.lastRunId, runId)))
    .run();
  return runId;
}

async function launchSyncRun(s: MigrateServices, job: SyncJob, runId: string): Promise<void> {
  const env = engineEnv(s);
  const source = await connectionOf(s, job.configId);
  const [sourceSchema, dest, doc, custom] = await Promise.all([
    engine.introspect(env, source),
    engine.introspect(env, 'destination'),
    syncMappingDocument(s.var.db, job.configId),
    configurationCustomForeignKeys(s.var.db, job.configId),
  ]);
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

/** Records why a start failed; the job stays as scheduled. */
export async function recordSyncFailure(db: MigrateDb, jobId: number, error: unknown): Promise<string> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000) || 'The run could not be started.';
  await db.update(syncJobs).set({ lastError: message }).where(eq(syncJobs.id, jobId)).run();
  return message;
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
  const rows = await s.var.db
    .select()
    .from(syncJobs)
    .where(and(eq(syncJobs.enabled, true), lte(syncJobs.nextRunAt, now)))
    .orderBy(asc(syncJobs.nextRunAt))
    .limit(100)
    .all();
  const due = rows.map(parse).map((job) => ({ job, runState: runActive(job.lastStatus) ? job.lastStatus : null }));
  const report: ScheduleReport = { started: [], skipped: [], failed: [] };
  for (const { job, action } of scheduleDecisions(due, now)) {
    if (action === 'skip-running') report.skipped.push(job.id);
    if (action !== 'start') continue;
    const claimed = await s.var.db
      .update(syncJobs)
      .set({ nextRunAt: nextRunAfter(now, job.intervalMinutes) })
      .where(and(eq(syncJobs.id, job.id), eq(syncJobs.enabled, true), eq(syncJobs.nextRunAt, job.nextRunAt!)))
      .returning({ id: syncJobs.id })
      .get();
    if (!claimed) continue;
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
