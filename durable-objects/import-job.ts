import {
  type ImportEnv,
  type ImportJobRpc,
  type ImportPlan,
  type ImportProblem,
  type ImportProgress,
  type ImportRecord,
  PROBLEMS_KEPT,
  type ProblemKind,
  importEndMessage,
  importFailure,
  importJobProgress,
  importPlanWithoutSecrets,
  importQueuedMessage,
  importStep,
  newImportRecord,
  recordImportEnd,
} from '#migrate/jobs/imports.ts';
import type { StepContext } from '#migrate/jobs/step.ts';
import { type JobKind, JobObject } from './job-base.ts';

type ImportJobEnv = ImportEnv & { DB: D1Database };

const IMPORT: JobKind<ImportJobEnv, ImportPlan, ImportRecord> = {
  recordKey: 'job',
  noun: 'import',
  unknown: 'No such import job',
  boundary: 'before its next chunk',
  logKeep: 1_000,
  newRecord: newImportRecord,
  queuedMessage: importQueuedMessage,
  failure: importFailure,
  withoutSecrets: importPlanWithoutSecrets,
  endMessage: importEndMessage,
  ended: (env, plan, record) => recordImportEnd(env.DB, plan, record),
};

/**
 * One barrier-trial or sectional import (one object per job id): its alarm reads, checks and
 * writes the sheet in chunks (workers/migrate/src/imports/import-step.ts); the skipped rows'
 * problems are kept in the object's SQLite table `problems`, which its progress lists.
 */
export class ImportJob extends JobObject<ImportJobEnv, ImportPlan, ImportRecord, ImportProgress> implements ImportJobRpc {
  constructor(ctx: DurableObjectState, env: ImportJobEnv) {
    super(ctx, env, IMPORT);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS problems (id INTEGER PRIMARY KEY AUTOINCREMENT, line INTEGER NOT NULL, row TEXT NOT NULL, col TEXT, kind TEXT NOT NULL, message TEXT NOT NULL)`,
    );
  }

  protected step(plan: ImportPlan, record: ImportRecord, job: StepContext<ImportRecord>) {
    return importStep(this.env, plan, record, job, (problems) => this.recordProblems(problems));
  }

  protected progressOf(plan: ImportPlan, record: ImportRecord): ImportProgress {
    const problems = this.ctx.storage.sql
      .exec<{ line: number; row: string; col: string | null; kind: ProblemKind; message: string }>(
        'SELECT line, row, col, kind, message FROM problems ORDER BY id LIMIT ?',
        PROBLEMS_KEPT,
      )
      .toArray()
      .map((p) => ({ line: p.line, row: p.row, column: p.col, kind: p.kind, message: p.message }));
    return importJobProgress(plan, record, this.recentLog(), problems);
  }

  private recordProblems(problems: ImportProblem[]): void {
    this.ctx.storage.sql.exec('DELETE FROM problems');
    for (const p of problems) {
      this.ctx.storage.sql.exec(
        'INSERT INTO problems (line, row, col, kind, message) VALUES (?, ?, ?, ?, ?)',
        p.line,
        p.row,
        p.column,
        p.kind,
        p.message,
      );
    }
  }
}
