import { and, desc, eq, inArray } from 'drizzle-orm';
import { type IMPORT_JOB_STATES, importJobs, importUploads } from '#d1/migrate/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateDb, MigrateServices } from '../context.ts';
import type { LogEntry } from '../engine/types.ts';
import { importJobStub } from '../jobs/stubs.ts';
import type { ImportArea } from './areas.ts';
import type { ProblemKind } from './records.ts';

export type ImportState = (typeof IMPORT_JOB_STATES)[number];
export const TERMINAL_IMPORT_STATES: readonly ImportState[] = ['cancelled', 'completed', 'failed'];
export const importActive = (state: ImportState | null | undefined) => state != null && !TERMINAL_IMPORT_STATES.includes(state);

export type ImportTrigger = 'upload' | 'auto-sync' | 'run-now';

/** Where the job reads its sheet: the R2 object of an upload or of an auto-sync, or an HTTPS address. */
export type SheetSource = { kind: 'r2'; key: string } | { kind: 'url'; url: string };

/** What an ImportJob Durable Object is started with. */
export type ImportPlan = {
  jobId: string;
  area: ImportArea;
  fileName: string;
  source: SheetSource;
  fk: Record<string, string>;
  filter: string;
  startedBy: string;
  trigger: ImportTrigger;
};

export type ImportProblem = { line: number; row: string; column: string | null; kind: ProblemKind; message: string };

export type ImportCounts = { inserted: number; updated: number; unchanged: number; skipped: number };

export type ImportProgress = ImportCounts & {
  jobId: string;
  area: ImportArea;
  state: ImportState;
  /** Valid rows written so far (inserted + updated + unchanged). */
  processed: number;
  /** Valid rows to write (0 until the sheet has been read). */
  total: number;
  log: Pick<LogEntry, 'level' | 'message' | 'timestamp'>[];
  summary: {
    fileName: string;
    trigger: ImportTrigger;
    startedBy: string;
    filter: string;
    foreignKeys: Record<string, string>;
    /** Data rows of the sheet; null until read. */
    sheetRows: number | null;
    filteredOut: number;
    problemCounts: Partial<Record<ProblemKind, number>>;
    /** The skipped rows' problems, in sheet order (at most 1,000 listed). */
    problems: ImportProblem[];
    startedAt: string | null;
    finishedAt: string | null;
    errors: string[];
  };
};

export interface ImportJobRpc {
  start(plan: ImportPlan): ImportProgress;
  progress(): ImportProgress | null;
  /** Stops the import before its next chunk; `reason` is logged and kept (default: asked for by a user). */
  cancel(reason?: string): { message: string };
}

/** The ImportJob Durable Object of a job (one per job). */
export function importJob(s: Pick<MigrateServices, 'env'>, jobId: string) {
  return importJobStub(s.env, jobId);
}

// ---- the D1 list of jobs ---------------------------------------------------------------------

export type ImportJobRow = typeof importJobs.$inferSelect;
export const RECENT_IMPORT_JOBS = 15;

export async function recordImportJob(db: MigrateDb, plan: ImportPlan, now: number): Promise<void> {
  await db
    .insert(importJobs)
    .values({
      jobId: plan.jobId,
      area: plan.area,
      fileName: plan.fileName,
      trigger: plan.trigger,
      startedBy: plan.startedBy,
      state: 'queued',
      createdAt: now,
      updatedAt: now,
    })
    .run();
}

export async function updateImportJob(db: MigrateDb, jobId: string, state: ImportState, counts: ImportCounts, now: number): Promise<void> {
  await db
    .update(importJobs)
    .set({
      state,
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: counts.unchanged,
      skipped: counts.skipped,
      updatedAt: now,
    })
    .where(eq(importJobs.jobId, jobId))
    .run();
}

/** Starts an import in a new ImportJob: its id. */
export async function startImport(
  s: MigrateServices,
  plan: Omit<ImportPlan, 'jobId'>,
  jobId: string = crypto.randomUUID(),
): Promise<string> {
  const full = { ...plan, jobId };
  await recordImportJob(s.var.db, full, Date.now());
  await importJob(s, jobId).start(full);
  return jobId;
}

const changed = (row: ImportJobRow, p: ImportProgress) =>
  p.state !== row.state ||
  p.inserted !== row.inserted ||
  p.updated !== row.updated ||
  p.unchanged !== row.unchanged ||
  p.skipped !== row.skipped;

/** The job's progress from its Durable Object (its D1 row brought up to date); 404 when this area has no such job. */
export async function importProgress(s: MigrateServices, area: ImportArea, jobId: string): Promise<ImportProgress> {
  const row = await s.var.db
    .select()
    .from(importJobs)
    .where(and(eq(importJobs.jobId, jobId.toLowerCase()), eq(importJobs.area, area)))
    .get();
  const progress = row ? await importJob(s, row.jobId).progress() : null;
  if (!row || !progress)
    throw new HttpError(404, 'not_found', `There is no ${area === 'Sectional' ? 'sectional' : 'barrier-trial'} import job ${jobId}.`);
  if (changed(row, progress)) await updateImportJob(s.var.db, row.jobId, progress.state, progress, Date.now());
  return progress;
}

/** The area's newest jobs, those still running brought up to date from their Durable Objects first. */
export async function recentImportJobs(s: MigrateServices, area: ImportArea): Promise<ImportJobRow[]> {
  const db = s.var.db;
  const list = () =>
    db.select().from(importJobs).where(eq(importJobs.area, area)).orderBy(desc(importJobs.createdAt)).limit(RECENT_IMPORT_JOBS).all();
  const rows = await list();
  const open = rows.filter((r) => importActive(r.state));
  if (open.length === 0) return rows;
  await Promise.allSettled(
    open.map(async (row) => {
      const p = await importJob(s, row.jobId).progress();
      if (p && changed(row, p)) await updateImportJob(db, row.jobId, p.state, p, Date.now());
    }),
  );
  return list();
}

/** True while an import of the area is queued, running or stopping. */
export async function areaBusy(s: MigrateServices, area: ImportArea): Promise<boolean> {
  // The recent jobs' states first come up to date from their objects; then any open job counts.
  await recentImportJobs(s, area);
  const open = await s.var.db
    .select({ jobId: importJobs.jobId })
    .from(importJobs)
    .where(and(eq(importJobs.area, area), inArray(importJobs.state, ['queued', 'running', 'cancelling'])))
    .limit(1)
    .all();
  return open.length > 0;
}

// ---- uploads ---------------------------------------------------------------------------------

export type UploadRow = typeof importUploads.$inferSelect;

export async function recordUpload(db: MigrateDb, row: Omit<UploadRow, 'uploadedAt'>, now: number): Promise<void> {
  await db
    .insert(importUploads)
    .values({ ...row, uploadedAt: now })
    .onConflictDoUpdate({ target: importUploads.tempPath, set: { ...row, uploadedAt: now } })
    .run();
}

export async function findUpload(db: MigrateDb, area: ImportArea, tempPath: string): Promise<UploadRow | undefined> {
  return db
    .select()
    .from(importUploads)
    .where(and(eq(importUploads.tempPath, tempPath), eq(importUploads.area, area)))
    .get();
}

/** The area's most recent sheet (an upload for preview, or the sheet an auto-sync saved). */
export async function latestUpload(db: MigrateDb, area: ImportArea): Promise<UploadRow | undefined> {
  return db.select().from(importUploads).where(eq(importUploads.area, area)).orderBy(desc(importUploads.uploadedAt)).limit(1).get();
}
