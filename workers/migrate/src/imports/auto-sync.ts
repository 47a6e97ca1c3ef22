import { and, desc, eq, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import { IMPORT_AREAS, importAutoSyncs, importEvents } from '#d1/migrate/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateDb, MigrateServices } from '../context.ts';
import { areaDef, fkConfig, type ImportArea } from './areas.ts';
import { importActive, importJob, type ImportState, startImport, TERMINAL_IMPORT_STATES } from './jobs.ts';
import { urlFileName } from './storage.ts';

// Each area's auto-sync (README, "Auto-sync"): the area's saved sheet, or the sheet at an HTTPS
// address, imported again every `interval` minutes while enabled. The Cron Trigger's tick starts
// the due ones (like the sync jobs): a run never overlaps the area's previous auto-sync run, and
// a failed start or run is recorded as the auto-sync's error without stopping the schedule.

export const AUTO_SYNC_INTERVAL = { min: 5, max: 10_080 } as const;

export type AutoSyncRow = typeof importAutoSyncs.$inferSelect;

export type AutoSync = Omit<AutoSyncRow, 'fkConfig'> & { fk: Record<string, string> };

const parseFk = (area: ImportArea, text: string) => {
  try {
    return fkConfig(areaDef(area), JSON.parse(text));
  } catch {
    return { ...areaDef(area).defaultFk };
  }
};

export async function findAutoSync(db: MigrateDb, area: ImportArea): Promise<AutoSync | undefined> {
  const row = await db.select().from(importAutoSyncs).where(eq(importAutoSyncs.area, area)).get();
  return row && { ...row, fk: parseFk(area, row.fkConfig) };
}

export type AutoSyncInput = {
  enabled: boolean;
  intervalMinutes: number;
  sourceUrl: string | null;
  fk: Record<string, string>;
  filter: string;
  /** A new saved sheet (R2 key and file name), or undefined to keep the one saved. */
  sheet?: { path: string; name: string };
};

/**
 * Saves the area's settings. An enabled auto-sync keeps its next run unless it was disabled or its
 * interval changed (then now + interval); a disabled one has none.
 */
export async function saveAutoSync(db: MigrateDb, area: ImportArea, input: AutoSyncInput, user: string, now: number): Promise<void> {
  const existing = await findAutoSync(db, area);
  const keep = existing?.enabled && existing.intervalMinutes === input.intervalMinutes && existing.nextRunAt !== null;
  const nextRunAt = !input.enabled ? null : keep ? existing!.nextRunAt : now + input.intervalMinutes * 60_000;
  const values = {
    enabled: input.enabled,
    intervalMinutes: input.intervalMinutes,
    sourceUrl: input.sourceUrl,
    fkConfig: JSON.stringify(input.fk),
    filter: input.filter,
    nextRunAt,
    updatedBy: user,
    updatedAt: now,
    ...(input.sheet ? { sheetPath: input.sheet.path, sheetName: input.sheet.name } : {}),
  };
  await db
    .insert(importAutoSyncs)
    .values({ area, ...values })
    .onConflictDoUpdate({ target: importAutoSyncs.area, set: values })
    .run();
  await recordEvent(
    db,
    area,
    'auto-sync saved',
    `${input.enabled ? `enabled, every ${input.intervalMinutes} min` : 'disabled'}; source ${input.sourceUrl ?? input.sheet?.name ?? existing?.sheetName ?? 'none'}`,
    user,
    now,
  );
}

/** True when the auto-sync has something to import. */
export const hasSheet = (a: Pick<AutoSync, 'sourceUrl' | 'sheetPath'>) => Boolean(a.sourceUrl || a.sheetPath);

/** Flips the enabled flag; enabling schedules the next run at now + interval. 400 when there is nothing to import. */
export async function toggleAutoSync(
  db: MigrateDb,
  area: ImportArea,
  user: string,
  now: number,
): Promise<{ enabled: boolean; nextRunAt: number | null }> {
  const existing = await findAutoSync(db, area);
  if (!existing || !hasSheet(existing)) {
    throw new HttpError(
      400,
      'no_sheet',
      `The ${areaDef(area).title.toLowerCase()} auto-sync has no saved sheet or address yet: save its settings with one first.`,
    );
  }
  const row = await db
    .update(importAutoSyncs)
    .set({
      enabled: sql`not ${importAutoSyncs.enabled}`,
      nextRunAt: sql`case when ${importAutoSyncs.enabled} then null else ${now} + ${importAutoSyncs.intervalMinutes} * 60000 end`,
      updatedBy: user,
      updatedAt: now,
    })
    .where(eq(importAutoSyncs.area, area))
    .returning({ enabled: importAutoSyncs.enabled, nextRunAt: importAutoSyncs.nextRunAt })
    .get();
  await recordEvent(
    db,
    area,
    row!.enabled ? 'auto-sync enabled' : 'auto-sync disabled',
    row!.enabled ? `next run ${new Date(row!.nextRunAt!).toISOString()}` : '',
    user,
    now,
  );
  return row!;
}

export async function recordEvent(
  db: MigrateDb,
  area: ImportArea,
  action: string,
  detail: string,
  user: string,
  now: number,
): Promise<void> {
  await db
    .insert(importEvents)
    .values({ area, action, detail: detail.slice(0, 1000), user, at: now })
    .run();
}

export type ImportEvent = typeof importEvents.$inferSelect;

/** The area's latest events (ClearData, auto-sync changes), newest first. */
export function recentEvents(db: MigrateDb, area: ImportArea, limit = 20): Promise<ImportEvent[]> {
  return db
    .select()
    .from(importEvents)
    .where(eq(importEvents.area, area))
    .orderBy(desc(importEvents.at), desc(importEvents.id))
    .limit(limit)
    .all();
}

/** Called by the ImportJob when an auto-sync or run-now job ends. */
export async function recordAutoSyncOutcome(
  db: MigrateDb,
  area: ImportArea,
  jobId: string,
  state: ImportState,
  error: string | null,
): Promise<void> {
  await db
    .update(importAutoSyncs)
    .set({ lastStatus: state, lastError: state === 'failed' ? (error ?? 'The import failed.').slice(0, 2000) : null })
    .where(and(eq(importAutoSyncs.area, area), eq(importAutoSyncs.lastJobId, jobId)))
    .run();
}

/** Brings the last run's state up to date from its Durable Object. */
export async function refreshAutoSync(s: MigrateServices, a: AutoSync): Promise<AutoSync> {
  if (!a.lastJobId || (a.lastStatus !== null && !importActive(a.lastStatus))) return a;
  const p = await importJob(s, a.lastJobId).progress();
  if (!p || p.state === a.lastStatus) return a;
  const lastError =
    p.state === 'failed' ? (p.summary.errors.at(-1) ?? 'The import failed.').slice(0, 2000) : p.state === 'completed' ? null : a.lastError;
  await recordAutoSyncOutcome(s.var.db, a.area, a.lastJobId, p.state, lastError);
  return { ...a, lastStatus: p.state, lastError };
}

/**
 * Claims the area's auto-sync for job `jobId` in one conditional statement: false while its last
 * run is in progress, so two concurrent starts never both launch.
 */
async function claimAutoSyncRun(db: MigrateDb, area: ImportArea, jobId: string, now: number): Promise<boolean> {
  const row = await db
    .update(importAutoSyncs)
    .set({ lastJobId: jobId, lastRunAt: now, lastStatus: 'queued', lastError: null })
    .where(
      and(
        eq(importAutoSyncs.area, area),
        or(isNull(importAutoSyncs.lastStatus), inArray(importAutoSyncs.lastStatus, [...TERMINAL_IMPORT_STATES])),
      ),
    )
    .returning({ area: importAutoSyncs.area })
    .get();
  return row !== undefined;
}

/**
 * Starts a run of the area's auto-sync now (`trigger` says who asked): the job id. The auto-sync
 * is claimed first: 409 naming the job while its last run is in progress (a stale status is
 * settled from its job before that). The next scheduled run stays as it is (the schedule moves it
 * when it claims a run).
 */
export async function startAutoSyncRun(
  s: MigrateServices,
  a: AutoSync,
  trigger: 'auto-sync' | 'run-now',
  user: string,
  now: number,
): Promise<string> {
  const title = areaDef(a.area).title.toLowerCase();
  if (!hasSheet(a))
    throw new HttpError(400, 'no_sheet', `The ${title} auto-sync has no saved sheet or address yet: save its settings with one first.`);
  const jobId = crypto.randomUUID();
  let before = a;
  if (!(await claimAutoSyncRun(s.var.db, a.area, jobId, now))) {
    const current = await findAutoSync(s.var.db, a.area);
    before = current ? await refreshAutoSync(s, current) : a;
    if (!(await claimAutoSyncRun(s.var.db, a.area, jobId, now))) {
      throw new HttpError(409, 'already_running', `The ${title} auto-sync has a run in progress (job ${before.lastJobId}).`, {
        jobId: before.lastJobId,
      });
    }
  }
  const source = a.sourceUrl ? ({ kind: 'url', url: a.sourceUrl } as const) : ({ kind: 'r2', key: a.sheetPath! } as const);
  const fileName = a.sourceUrl ? urlFileName(a.sourceUrl) : (a.sheetName ?? 'sheet');
  try {
    await startImport(s, { area: a.area, fileName, source, fk: a.fk, filter: a.filter, startedBy: user, trigger }, jobId);
  } catch (error) {
    // Nothing started: the auto-sync as it was before the claim.
    await s.var.db
      .update(importAutoSyncs)
      .set({ lastJobId: before.lastJobId, lastRunAt: before.lastRunAt, lastStatus: before.lastStatus, lastError: before.lastError })
      .where(and(eq(importAutoSyncs.area, a.area), eq(importAutoSyncs.lastJobId, jobId)))
      .run();
    throw error;
  }
  return jobId;
}

export type AutoSyncReport = { started: ImportArea[]; skipped: ImportArea[]; failed: { area: ImportArea; error: string }[] };

/**
 * One tick at `now`: every enabled, due auto-sync whose last run has ended starts, claimed by
 * moving its next run with a compare-and-set (two overlapping ticks never start it twice). A
 * failed start is recorded on the auto-sync; its schedule stands.
 */
export async function runAutoSyncSchedule(s: MigrateServices, now: number): Promise<AutoSyncReport> {
  const rows = await s.var.db
    .select()
    .from(importAutoSyncs)
    .where(and(eq(importAutoSyncs.enabled, true), isNotNull(importAutoSyncs.nextRunAt), lte(importAutoSyncs.nextRunAt, now)))
    .all();
  const report: AutoSyncReport = { started: [], skipped: [], failed: [] };
  for (const row of rows) {
    if (!IMPORT_AREAS.includes(row.area)) continue;
    const a = await refreshAutoSync(s, { ...row, fk: parseFk(row.area, row.fkConfig) });
    if (importActive(a.lastStatus)) {
      report.skipped.push(a.area);
      continue;
    }
    const claimed = await s.var.db
      .update(importAutoSyncs)
      .set({ nextRunAt: now + a.intervalMinutes * 60_000 })
      .where(and(eq(importAutoSyncs.area, a.area), eq(importAutoSyncs.enabled, true), eq(importAutoSyncs.nextRunAt, a.nextRunAt!)))
      .returning({ area: importAutoSyncs.area })
      .get();
    if (!claimed) continue;
    try {
      await startAutoSyncRun(s, a, 'auto-sync', 'schedule', now);
      report.started.push(a.area);
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) {
        report.skipped.push(a.area);
        continue;
      }
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
      await s.var.db
        .update(importAutoSyncs)
        .set({ lastError: message, lastStatus: 'failed' })
        .where(eq(importAutoSyncs.area, a.area))
        .run();
      report.failed.push({ area: a.area, error: message });
      console.error(JSON.stringify({ level: 'error', service: 'migrate', event: 'auto_sync_failed', area: a.area, error: message }));
    }
  }
  return report;
}
