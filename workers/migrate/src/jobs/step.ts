import { failureText } from '#shared/pg-errors.ts';
import type { LogEntry } from '../engine/types.ts';

export type { LogEntry };

// What a job's step (a migration run's slice, a discipline repair's batch, an import's write) is
// given by the Durable Object that hosts it, and what it gives back. The object owns the stored
// record, the alarm loop, retries, cancel and the log (durable-objects/job-base.ts); the step owns
// the work.

/** Every job's states: a migration run, a discipline repair, a spreadsheet import. */
export type JobState = 'queued' | 'running' | 'cancelling' | 'cancelled' | 'completed' | 'failed';
export const TERMINAL_JOB_STATES: readonly JobState[] = ['cancelled', 'completed', 'failed'];

/** What every job stores beside its own counters. */
export type JobRecord = {
  state: JobState;
  /** Consecutive failed steps since the last one that made progress. */
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  /** Failure texts, the newest 20. */
  errors: string[];
  /** Why the job was cancelled or failed (absent from jobs stored before it was kept). */
  endReason?: string | null;
};

export type JobLogLevel = LogEntry['level'];

/** A log entry as the discipline repair's and the imports' progress carry it. */
export type JobLogEntry = Pick<LogEntry, 'level' | 'message' | 'timestamp'>;

/** What a step may do with its object while it works. */
export interface StepContext<R extends JobRecord> {
  /** True once a cancel has been asked for: a step that loops stops at its next boundary. */
  cancelRequested(): boolean;
  /** Stores the record as it stands: progress was made, so the failed-attempt count starts again. */
  save(record: R): void;
  log(level: JobLogLevel, message: string, tableName?: string | null): void;
}

/** The step's end: `done` when the job is complete, else the next step follows at once. */
export type StepResult<R extends JobRecord> = { record: R; done: boolean };

/**
 * A failed step as its job reads it: the text kept in `errors` and shown (never a database's own
 * text), whether a retry can help, and the reason logged when the job fails at once.
 */
export type StepFailure = { text: string; permanent: boolean; reason?: string; tableName?: string | null };

/** The SQLSTATE of a database error (class 28: the login refused; 3D000: no such database). */
function codeOf(error: unknown): string | undefined {
  const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The server refused the login or has no such database: retrying cannot help. */
export function isRefusedLogin(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('28') || code === '3D000');
}

/** The login is refused, or a table or column the job reads is missing: retrying cannot help. */
function isMissingSchemaOrLogin(error: unknown): boolean {
  const code = codeOf(error);
  return isRefusedLogin(error) || code === '42P01' || code === '42703';
}

/** A step's failure as the log shows it; permanent when the job's own check says so (`refused`)
 * or when retrying cannot help (a refused login, a missing table or column). */
export function stepFailure(error: unknown, refused: boolean): StepFailure {
  return { text: failureText(error), permanent: refused || isMissingSchemaOrLogin(error) };
}
