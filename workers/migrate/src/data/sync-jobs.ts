import { and, asc, eq, inArray, isNotNull, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import {
  configurations,
  customRelationships,
  migrationSessions,
  syncJobs,
  syncSchemaFiles,
  type SYNC_RUN_STATUSES,
} from '#d1/migrate/schema.ts';
import type { MigrateDb } from '../context.ts';
import { parseMappingDocument } from '../engine/index.ts';
import type { ForeignKey, MappingDocument, RunState } from '../engine/types.ts';
import { asForeignKey, latestSchemaFile } from '../wizard-sessions.ts';

// The sync jobs' storage (D1): the jobs, their run state and schedule, the configuration's mapping
// document and custom foreign keys. What a run or a tick does with them is in ../sync-jobs.ts.

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

// ---- the jobs ----

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
      return parseMappingDocument(JSON.parse(row.document));
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

// ---- runs and the schedule ----

/** Records the state a run of the job reached, unless the job has started another run since. */
export async function recordSyncRunState(
  db: MigrateDb,
  jobId: number,
  runId: string,
  lastStatus: RunState,
  lastError: string | null,
): Promise<void> {
  await db
    .update(syncJobs)
    .set({ lastStatus, lastError })
    .where(and(eq(syncJobs.id, jobId), eq(syncJobs.lastRunId, runId)))
    .run();
}

/** The jobs whose run was last seen queued, copying or stopping. */
export async function activeSyncJobs(db: MigrateDb): Promise<SyncJob[]> {
  const rows = await db
    .select()
    .from(syncJobs)
    .where(and(isNotNull(syncJobs.lastRunId), inArray(syncJobs.lastStatus, ['queued', 'running', 'cancelling'])))
    .limit(200)
    .all();
  return rows.map(parse);
}

/**
 * Claims the job for run `runId` in one conditional statement: false while another run of it is
 * queued, copying or stopping, so two concurrent starts never both launch.
 */
export async function claimSyncRun(db: MigrateDb, jobId: number, runId: string, now: number): Promise<boolean> {
  const row = await db
    .update(syncJobs)
    .set({ lastRunId: runId, lastRunAt: now, lastStatus: 'queued', lastError: null, updatedAt: now })
    .where(and(eq(syncJobs.id, jobId), or(isNull(syncJobs.lastStatus), notInArray(syncJobs.lastStatus, [...ACTIVE]))))
    .returning({ id: syncJobs.id })
    .get();
  return row !== undefined;
}

/** Gives back the claim of run `runId`: the job's last run as it was before (`before`). */
export async function releaseSyncRun(db: MigrateDb, jobId: number, runId: string, before: SyncJob): Promise<void> {
  await db
    .update(syncJobs)
    .set({ lastRunId: before.lastRunId, lastRunAt: before.lastRunAt, lastStatus: before.lastStatus })
    .where(and(eq(syncJobs.id, jobId), eq(syncJobs.lastRunId, runId)))
    .run();
}

/** After run `runId` started: the job's next run at `now` + interval (none when it is disabled). */
export async function scheduleAfterRun(db: MigrateDb, job: SyncJob, runId: string, now: number): Promise<void> {
  await db
    .update(syncJobs)
    .set({ nextRunAt: job.enabled ? nextRunAfter(now, job.intervalMinutes) : null, updatedAt: now })
    .where(and(eq(syncJobs.id, job.id), eq(syncJobs.lastRunId, runId)))
    .run();
}

/** Records why a start failed; the job stays as scheduled. */
export async function recordSyncFailure(db: MigrateDb, jobId: number, error: unknown): Promise<string> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000) || 'The run could not be started.';
  await db.update(syncJobs).set({ lastError: message }).where(eq(syncJobs.id, jobId)).run();
  return message;
}

/** The enabled jobs whose next run is due at `now`, the longest due first. */
export async function dueSyncJobs(db: MigrateDb, now: number): Promise<SyncJob[]> {
  const rows = await db
    .select()
    .from(syncJobs)
    .where(and(eq(syncJobs.enabled, true), lte(syncJobs.nextRunAt, now)))
    .orderBy(asc(syncJobs.nextRunAt))
    .limit(100)
    .all();
  return rows.map(parse);
}

/**
 * Claims a due job for this tick by moving its next run with a compare-and-set: false when another
 * tick moved it first (or the job was disabled meanwhile).
 */
export async function claimDueSyncJob(db: MigrateDb, job: SyncJob, now: number): Promise<boolean> {
  const claimed = await db
    .update(syncJobs)
    .set({ nextRunAt: nextRunAfter(now, job.intervalMinutes) })
    .where(and(eq(syncJobs.id, job.id), eq(syncJobs.enabled, true), eq(syncJobs.nextRunAt, job.nextRunAt!)))
    .returning({ id: syncJobs.id })
    .get();
  return claimed !== undefined;
}
