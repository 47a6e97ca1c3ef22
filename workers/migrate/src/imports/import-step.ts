import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import { allowedHosts } from '../context.ts';
import { type Sql, openDestination } from '../engine/db.ts';
import type { EngineEnv } from '../engine/types.ts';
import { type JobLogEntry, type JobRecord, type StepContext, type StepFailure, type StepResult, stepFailure } from '../jobs/step.ts';
import { analyseSheet } from './analyse.ts';
import { areaDef } from './areas.ts';
import { recordAutoSyncOutcome } from './auto-sync.ts';
import { SheetFilterError } from './filter.ts';
import { type ImportPlan, type ImportProblem, type ImportProgress, type ImportState, updateImportJob } from './jobs.ts';
import type { ProblemKind } from './records.ts';
import { SheetError } from './sheet/index.ts';
import { fetchSheet, SheetUnavailableError } from './storage.ts';

// An import's work (the ImportJob object's step): read the sheet (R2 or an HTTPS address), check
// and resolve every row as the preview did, record the skipped rows' problems, then write the valid
// rows in chunks, each one statement in its own transaction under the table's advisory lock, the
// cursor saved after each. Every write is an upsert on the row's natural key, so a chunk that runs
// again (a retry, an evicted object) changes nothing twice.

/** Valid rows written per statement (and per transaction). */
export const IMPORT_CHUNK_ROWS = 2_000;
/** Problems kept and listed (the first, in sheet order); the counts cover all. */
export const PROBLEMS_KEPT = 1_000;

export type ImportEnv = EngineEnv & { SHEETS: R2Bucket; MIGRATE_SHEET_HOSTS?: string };

/** An import as its object stores it (key `job`). */
export type ImportRecord = JobRecord & {
  state: ImportState;
  /** null until the sheet has been read. */
  sheetRows: number | null;
  filteredOut: number;
  /** Valid rows to write. */
  total: number;
  /** Valid rows written so far: the next chunk starts here. */
  written: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  problemCounts: Partial<Record<ProblemKind, number>>;
};

export function newImportRecord(): ImportRecord {
  return {
    state: 'queued',
    sheetRows: null,
    filteredOut: 0,
    total: 0,
    written: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    problemCounts: {},
    attempts: 0,
    startedAt: null,
    finishedAt: null,
    errors: [],
  };
}

/** An address without what may carry a credential: its user, password, query and fragment. */
export function addressWithoutSecrets(address: string): string {
  try {
    const url = new URL(address);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return 'the saved address';
  }
}

export const importQueuedMessage = (plan: ImportPlan) =>
  `Import ${plan.jobId} queued by ${plan.startedBy} (${plan.trigger}): ${plan.source.kind === 'url' ? addressWithoutSecrets(plan.source.url) : plan.fileName}${plan.filter ? `, filter ${plan.filter}` : ''}`;

export async function importStep(
  env: ImportEnv,
  plan: ImportPlan,
  start: ImportRecord,
  job: StepContext<ImportRecord>,
  problems: (list: ImportProblem[]) => void,
): Promise<StepResult<ImportRecord>> {
  let record = start;
  const def = areaDef(plan.area);
  let dest: Sql | undefined;
  try {
    // The list as it is now: an address saved before its host was taken off is not fetched.
    const bytes = await fetchSheet(env.SHEETS, plan.source, allowedHosts.parse(env.MIGRATE_SHEET_HOSTS));
    dest = openDestination(env);
    const analysis = await analyseSheet(dest, def, bytes, plan.fileName, plan.fk, plan.filter);
    if (record.sheetRows === null) {
      record = {
        ...record,
        sheetRows: analysis.rows,
        filteredOut: analysis.filteredOut,
        total: analysis.valid.length,
        skipped: analysis.invalid,
        problemCounts: analysis.problemCounts,
      };
      problems(
        analysis.records
          .filter((r) => r.problems.length)
          .slice(0, PROBLEMS_KEPT)
          .flatMap((r) =>
            r.problems.map((p) => ({ line: r.line, row: def.label(r.values), column: p.column, kind: p.kind, message: p.message })),
          ),
      );
      job.save(record);
      const kinds = Object.entries(analysis.problemCounts)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      job.log(
        'Information',
        `Read ${analysis.rows} rows (${analysis.format}${analysis.sheetName ? `, sheet "${analysis.sheetName}"` : ''}): ${analysis.valid.length} to write, ${analysis.invalid} with problems${kinds ? ` (${kinds})` : ''}, ${analysis.filteredOut} left out by the filter`,
      );
      if (analysis.ignored.length) job.log('Warning', `Columns ignored: ${analysis.ignored.join(', ')}`);
      for (const r of analysis.records.filter((x) => x.problems.length).slice(0, 20)) {
        job.log('Warning', `Row ${r.line} skipped: ${r.problems.map((p) => p.message).join('; ')}`);
      }
    }
    const lock = `import:${def.table}`;
    while (record.written < analysis.valid.length) {
      if (job.cancelRequested()) return { record, done: false };
      const chunk = analysis.valid.slice(record.written, record.written + IMPORT_CHUNK_ROWS);
      const counts = await dest.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock]);
        return def.write(tx, chunk, plan.fk);
      });
      record = {
        ...record,
        written: record.written + chunk.length,
        inserted: record.inserted + counts.inserted,
        updated: record.updated + counts.updated,
        unchanged: record.unchanged + counts.unchanged,
      };
      job.save(record);
      job.log(
        'Information',
        `Rows ${chunk[0]!.line}–${chunk[chunk.length - 1]!.line}: ${counts.inserted} inserted, ${counts.updated} updated, ${counts.unchanged} unchanged`,
      );
    }
    return { record, done: true };
  } finally {
    await dest?.end();
  }
}

/** An unusable sheet or filter, an expired upload, a failed fetch, a refused login or a missing table fail the job at once. */
export function importFailure(error: unknown): StepFailure {
  return stepFailure(error, error instanceof SheetError || error instanceof SheetFilterError || error instanceof SheetUnavailableError);
}

/** An address's credentials are no longer needed once the job has ended. */
export const importPlanWithoutSecrets = (plan: ImportPlan): ImportPlan =>
  plan.source.kind === 'url' ? { ...plan, source: { kind: 'url', url: addressWithoutSecrets(plan.source.url) } } : plan;

export const importEndMessage = (record: ImportRecord) =>
  `Import ${record.state}: ${record.inserted} inserted, ${record.updated} updated, ${record.unchanged} unchanged, ${record.skipped} skipped with problems`;

/** The lists follow; the pages bring them up to date too, should these writes be lost. */
export async function recordImportEnd(d1: D1Database, plan: ImportPlan, record: ImportRecord): Promise<void> {
  const db = drizzle(d1, { schema });
  const failure = record.state === 'failed' ? (record.endReason ?? record.errors.at(-1) ?? 'The import failed.') : null;
  await Promise.all([
    updateImportJob(db, plan.jobId, record.state, record, Date.now()),
    plan.trigger === 'upload' ? null : recordAutoSyncOutcome(db, plan.area, plan.jobId, record.state, failure),
  ]).catch(() => {});
}

export function importJobProgress(plan: ImportPlan, record: ImportRecord, log: JobLogEntry[], problems: ImportProblem[]): ImportProgress {
  return {
    jobId: plan.jobId,
    area: plan.area,
    state: record.state,
    processed: record.written,
    total: record.total,
    inserted: record.inserted,
    updated: record.updated,
    unchanged: record.unchanged,
    skipped: record.skipped,
    log,
    summary: {
      fileName: plan.fileName,
      trigger: plan.trigger,
      startedBy: plan.startedBy,
      filter: plan.filter,
      foreignKeys: plan.fk,
      sheetRows: record.sheetRows,
      filteredOut: record.filteredOut,
      problemCounts: record.problemCounts,
      problems,
      startedAt: record.startedAt,
      finishedAt: record.finishedAt,
      errors: record.errors,
    },
  };
}
