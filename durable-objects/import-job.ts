import { DurableObject } from 'cloudflare:workers';
import { JobLog } from './job-log.ts';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import { allowedHosts } from '../workers/migrate/src/context.ts';
import { type Sql, openDestination } from '../workers/migrate/src/engine/db.ts';
import type { EngineEnv, LogEntry } from '../workers/migrate/src/engine/types.ts';
import { analyseSheet } from '../workers/migrate/src/imports/analyse.ts';
import { areaDef } from '../workers/migrate/src/imports/areas.ts';
import { recordAutoSyncOutcome } from '../workers/migrate/src/imports/auto-sync.ts';
import { SheetFilterError } from '../workers/migrate/src/imports/filter.ts';
import {
  type ImportJobRpc,
  type ImportPlan,
  type ImportProblem,
  type ImportProgress,
  type ImportState,
  TERMINAL_IMPORT_STATES,
  updateImportJob,
} from '../workers/migrate/src/imports/jobs.ts';
import { fetchSheet, SheetUnavailableError } from '../workers/migrate/src/imports/storage.ts';
import type { ProblemKind } from '../workers/migrate/src/imports/records.ts';
import { SheetError } from '../workers/migrate/src/imports/sheet.ts';

/** Valid rows written per statement (and per transaction). */
export const IMPORT_CHUNK_ROWS = 2_000;
/** Consecutive failed attempts (database or address unreachable) before the job fails. */
const MAX_ATTEMPTS = 4;
const LOG_KEEP = 1_000;
const LOG_SHOWN = 200;
/** Problems kept and listed (the first, in sheet order); the counts cover all. */
const PROBLEMS_KEPT = 1_000;

type ImportEnv = EngineEnv & { DB: D1Database; SHEETS: R2Bucket; MIGRATE_SHEET_HOSTS?: string };

type Stored = {
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
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  errors: string[];
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Retrying cannot help: the sheet or filter is unusable, the upload expired, the login is refused or a table is missing. */
function isPermanent(error: unknown): boolean {
  if (error instanceof SheetError || error instanceof SheetFilterError || error instanceof SheetUnavailableError) return true;
  const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000' || code === '42P01' || code === '42703');
}

/**
 * One barrier-trial or sectional import (one object per job id). Its alarm reads the sheet (from R2
 * or an HTTPS address), checks and resolves every row (workers/migrate/src/imports/analyse.ts),
 * records the problems of the rows it skips, then writes the valid rows in chunks, each one
 * statement in its own transaction under the table's advisory lock, saving its cursor after each.
 * Every write is an upsert on the row's natural key, so a chunk that runs again (a retry, an
 * evicted object) changes nothing twice. A cancel stops it before its next chunk; a failure that a
 * retry can cure is retried with backoff, from the saved cursor.
 */
export class ImportJob extends DurableObject<ImportEnv> implements ImportJobRpc {
  private readonly journal: JobLog;

  constructor(ctx: DurableObjectState, env: ImportEnv) {
    super(ctx, env);
    this.journal = new JobLog(ctx.storage.sql, LOG_KEEP);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS problems (id INTEGER PRIMARY KEY AUTOINCREMENT, line INTEGER NOT NULL, row TEXT NOT NULL, col TEXT, kind TEXT NOT NULL, message TEXT NOT NULL)`);
  }

  start(plan: ImportPlan): ImportProgress {
    const existing = this.stored();
    if (existing) return this.progressOf(existing);
    const stored: Stored = {
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
    this.ctx.storage.kv.put('plan', plan);
    this.save(stored);
    const from = plan.source.kind === 'url' ? plan.source.url : plan.fileName;
    this.log('Information', `Import ${plan.jobId} queued by ${plan.startedBy} (${plan.trigger}): ${from}${plan.filter ? `, filter ${plan.filter}` : ''}`);
    void this.ctx.storage.setAlarm(Date.now());
    return this.progressOf(stored);
  }

  progress(): ImportProgress | null {
    const stored = this.stored();
    return stored ? this.progressOf(stored) : null;
  }

  cancel(): { message: string } {
    const stored = this.stored();
    if (!stored) return { message: 'No such import job' };
    if (TERMINAL_IMPORT_STATES.includes(stored.state)) return { message: `The import has already ${stored.state === 'cancelled' ? 'been cancelled' : stored.state}` };
    this.ctx.storage.kv.put('cancel', true);
    this.save({ ...stored, state: 'cancelling' });
    this.log('Warning', 'Cancellation requested: stopping before the next chunk');
    return { message: 'Cancellation requested: the import stops before its next chunk' };
  }

  override async alarm(): Promise<void> {
    const plan = this.ctx.storage.kv.get<ImportPlan>('plan');
    let stored = this.stored();
    if (!plan || !stored || TERMINAL_IMPORT_STATES.includes(stored.state)) return;
    if (this.cancelRequested()) return this.finish(stored, 'cancelled');
    const def = areaDef(plan.area);
    let dest: Sql | undefined;
    try {
      // The list as it is now: an address saved before its host was taken off is not fetched.
      const bytes = await fetchSheet(this.env.SHEETS, plan.source, allowedHosts.parse(this.env.MIGRATE_SHEET_HOSTS));
      dest = openDestination(this.env);
      const analysis = await analyseSheet(dest, def, bytes, plan.fileName, plan.fk, plan.filter);
      if (stored.sheetRows === null) {
        stored = {
          ...stored,
          state: 'running',
          startedAt: stored.startedAt ?? new Date().toISOString(),
          sheetRows: analysis.rows,
          filteredOut: analysis.filteredOut,
          total: analysis.valid.length,
          skipped: analysis.invalid,
          problemCounts: analysis.problemCounts,
        };
        this.recordProblems(analysis.records.filter((r) => r.problems.length).slice(0, PROBLEMS_KEPT).flatMap((r) =>
          r.problems.map((p) => ({ line: r.line, row: def.label(r.values), column: p.column, kind: p.kind, message: p.message })),
        ));
        this.save(stored);
        const kinds = Object.entries(analysis.problemCounts).map(([k, n]) => `${n} ${k}`).join(', ');
        this.log(
          'Information',
          `Read ${analysis.rows} rows (${analysis.format}${analysis.sheetName ? `, sheet "${analysis.sheetName}"` : ''}): ${analysis.valid.length} to write, ${analysis.invalid} with problems${kinds ? ` (${kinds})` : ''}, ${analysis.filteredOut} left out by the filter`,
        );
        if (analysis.ignored.length) this.log('Warning', `Columns ignored: ${analysis.ignored.join(', ')}`);
        for (const r of analysis.records.filter((x) => x.problems.length).slice(0, 20)) {
          this.log('Warning', `Row ${r.line} skipped: ${r.problems.map((p) => p.message).join('; ')}`);
        }
      }
      const lock = `import:${def.table}`;
      while (stored.written < analysis.valid.length) {
        if (this.cancelRequested()) return this.finish(stored, 'cancelled');
        const chunk = analysis.valid.slice(stored.written, stored.written + IMPORT_CHUNK_ROWS);
        const counts = await dest.transaction(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock]);
          return def.write(tx, chunk, plan.fk);
        });
        stored = {
          ...stored,
          written: stored.written + chunk.length,
          inserted: stored.inserted + counts.inserted,
          updated: stored.updated + counts.updated,
          unchanged: stored.unchanged + counts.unchanged,
          attempts: 0,
        };
        this.save(stored);
        this.log('Information', `Rows ${chunk[0]!.line}–${chunk[chunk.length - 1]!.line}: ${counts.inserted} inserted, ${counts.updated} updated, ${counts.unchanged} unchanged`);
      }
      this.finish(stored, 'completed');
    } catch (error) {
      await this.failAttempt(stored, error);
    } finally {
      await dest?.end();
    }
  }

  private recordProblems(problems: ImportProblem[]): void {
    this.ctx.storage.sql.exec('DELETE FROM problems');
    for (const p of problems) {
      this.ctx.storage.sql.exec('INSERT INTO problems (line, row, col, kind, message) VALUES (?, ?, ?, ?, ?)', p.line, p.row, p.column, p.kind, p.message);
    }
  }

  private async failAttempt(stored: Stored, error: unknown): Promise<void> {
    const text = message(error);
    const attempts = stored.attempts + 1;
    const next = { ...stored, attempts, errors: [...stored.errors, text].slice(-20) };
    if (isPermanent(error) || attempts >= MAX_ATTEMPTS) {
      this.finish(next, 'failed', isPermanent(error) ? text : `${text} (after ${attempts} attempts)`);
      return;
    }
    this.log('Warning', `Attempt ${attempts} failed, retrying: ${text}`);
    this.save(next);
    await this.ctx.storage.setAlarm(Date.now() + 1_000 * 2 ** attempts);
  }

  private finish(stored: Stored, state: ImportState, reason?: string): void {
    const finished: Stored = { ...stored, state, finishedAt: new Date().toISOString() };
    this.ctx.storage.kv.put('job', finished);
    void this.ctx.storage.deleteAlarm();
    if (reason) this.log('Error', `Failed: ${reason}`);
    this.log(
      state === 'failed' ? 'Error' : state === 'cancelled' ? 'Warning' : 'Information',
      `Import ${state}: ${finished.inserted} inserted, ${finished.updated} updated, ${finished.unchanged} unchanged, ${finished.skipped} skipped with problems`,
    );
    const plan = this.ctx.storage.kv.get<ImportPlan>('plan');
    if (!plan) return;
    const db = drizzle(this.env.DB, { schema });
    const now = Date.now();
    // The lists follow; the pages bring them up to date too, should these writes be lost.
    this.ctx.waitUntil(
      Promise.all([
        updateImportJob(db, plan.jobId, state, finished, now),
        plan.trigger === 'upload' ? null : recordAutoSyncOutcome(db, plan.area, plan.jobId, state, state === 'failed' ? (reason ?? finished.errors.at(-1) ?? 'The import failed.') : null),
      ]).catch(() => {}),
    );
  }

  private cancelRequested(): boolean {
    return this.ctx.storage.kv.get<boolean>('cancel') === true;
  }

  private stored(): Stored | undefined {
    return this.ctx.storage.kv.get<Stored>('job');
  }

  private save(stored: Stored): void {
    const state = (stored.state === 'running' || stored.state === 'queued') && this.cancelRequested() ? 'cancelling' : stored.state;
    this.ctx.storage.kv.put('job', { ...stored, state });
  }

  private log(level: LogEntry['level'], text: string): void {
    this.journal.append(level, text);
  }

  private progressOf(stored: Stored): ImportProgress {
    const plan = this.ctx.storage.kv.get<ImportPlan>('plan')!;
    const log = this.journal.recent(LOG_SHOWN);
    const problems = this.ctx.storage.sql
      .exec<{ line: number; row: string; col: string | null; kind: ProblemKind; message: string }>('SELECT line, row, col, kind, message FROM problems ORDER BY id LIMIT ?', PROBLEMS_KEPT)
      .toArray()
      .map((p) => ({ line: p.line, row: p.row, column: p.col, kind: p.kind, message: p.message }));
    return {
      jobId: plan.jobId,
      area: plan.area,
      state: stored.state,
      processed: stored.written,
      total: stored.total,
      inserted: stored.inserted,
      updated: stored.updated,
      unchanged: stored.unchanged,
      skipped: stored.skipped,
      log,
      summary: {
        fileName: plan.fileName,
        trigger: plan.trigger,
        startedBy: plan.startedBy,
        filter: plan.filter,
        foreignKeys: plan.fk,
        sheetRows: stored.sheetRows,
        filteredOut: stored.filteredOut,
        problemCounts: stored.problemCounts,
        problems,
        startedAt: stored.startedAt,
        finishedAt: stored.finishedAt,
        errors: stored.errors,
      },
    };
  }
}
