import { DurableObject } from 'cloudflare:workers';
import {
  type JobLogEntry,
  type JobRecord,
  type JobState,
  type StepContext,
  type StepFailure,
  type StepResult,
  TERMINAL_JOB_STATES,
} from '#migrate/jobs/step.ts';
import { JobLog } from './job-log.ts';

/**
 * The one retry policy of every job: a step that fails in a way a retry can cure (a database
 * unreachable, a connection dropped) runs again after about 2, 4, 8 and 16 s (each ±25 %, so jobs
 * that failed together do not retry together); the fifth consecutive failure fails the job. A step
 * that makes progress starts the count again.
 */
export const RETRY_POLICY = { maxAttempts: 5, firstDelayMs: 2_000, maxDelayMs: 30_000, jitter: 0.25 } as const;

/** The wait before the next try after `attempt` consecutive failures (1 for the first). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const { firstDelayMs, maxDelayMs, jitter } = RETRY_POLICY;
  const base = Math.min(maxDelayMs, firstDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - jitter + 2 * jitter * random()));
}

/**
 * The alarm every step sets before it works: should the object die mid-step (evicted, redeployed),
 * the step runs again then, from what was stored. A step that ends sets the real next alarm. One
 * minute: far longer than a step takes (one chunk, one batch: seconds), and short enough that a
 * job whose process was killed resumes within a minute of its restart (it was five minutes, which
 * the load bench's kill-and-restart run spent waiting).
 */
export const STEP_LEASE_MS = 60_000;

/** Why a job was cancelled when the caller gave no reason. */
export const DEFAULT_CANCEL_REASON = 'asked for by a user';

/** Log entries a progress answer carries (the newest). */
const PROGRESS_LOG_SHOWN = 200;

const PLAN_KEY = 'plan';
/** `true` (jobs stored before a reason was kept) or the reason. */
const CANCEL_KEY = 'cancel';
const ERRORS_KEPT = 20;

/** What tells one job apart in the base's words and storage. */
export type JobShape = {
  /** The storage key of the job's record: `run` for migration runs, `job` for the others (as stored before). */
  recordKey: 'run' | 'job';
  /** What the job is called in messages: `migration`, `repair`, `import`. */
  noun: string;
  /** The answer to a cancel of a job that was never started. */
  unknown: string;
  /** Where a cancel takes effect, e.g. `after the current chunk`. */
  boundary: string;
  logKeep: number;
  /** Log entries name a table (the migration run's log). */
  logTables?: boolean;
};

/** A kind of job: its words and storage, and the service's functions the base calls at each point of a job's life. */
export type JobKind<E, P, R extends JobRecord> = JobShape & {
  newRecord(plan: P): R;
  queuedMessage(plan: P): string;
  /** Throws to refuse a plan at start (the job then exists, failed, with the reason). */
  admit?(env: E, plan: P): void;
  failure(error: unknown, plan: P, record: R): StepFailure;
  withoutSecrets(plan: P): P;
  endMessage(record: R): string;
  /** Tells the service that the job has ended (its lists in D1); failures here are the hook's own. */
  ended(env: E, plan: P, record: R): Promise<void>;
};

/**
 * A job hosted by a Durable Object (one object per job id): the stored plan (`plan`) and record,
 * the alarm loop (one step per alarm), retries with RETRY_POLICY, cancel at the next step
 * boundary with its reason, the log, and the plan's secrets cleared however the job ends. A job
 * class supplies its kind (JobKind), its step and its progress answer; the work itself is the
 * service's (workers/migrate/src/jobs).
 */
export abstract class JobObject<E, P, R extends JobRecord, G> extends DurableObject<E> {
  protected readonly journal: JobLog;
  /** True while this instance runs a step: a cancel then waits for the step's end. */
  private stepping = false;

  protected constructor(
    ctx: DurableObjectState,
    env: E,
    private readonly kind: JobKind<E, P, R>,
  ) {
    super(ctx, env);
    this.journal = new JobLog(ctx.storage.sql, kind.logKeep, kind.logTables ?? false);
  }

  protected abstract step(plan: P, record: R, job: StepContext<R>): Promise<StepResult<R>>;
  protected abstract progressOf(plan: P, record: R): G;

  /** Stores the plan and schedules the first step; a second start of the same job changes nothing. */
  start(plan: P): G {
    const existing = this.record();
    if (existing) return this.progressOf(this.plan() ?? plan, existing);
    const record = this.kind.newRecord(plan);
    this.ctx.storage.kv.put(PLAN_KEY, plan);
    this.ctx.storage.kv.put(this.kind.recordKey, record);
    this.journal.append('Information', this.kind.queuedMessage(plan));
    try {
      this.kind.admit?.(this.env, plan);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.finish({ ...record, errors: [text] }, 'failed', text);
      return this.progressOf(this.plan()!, this.record()!);
    }
    void this.ctx.storage.setAlarm(Date.now());
    return this.progressOf(plan, record);
  }

  /** The newest log entries, for a progress answer. */
  protected recentLog(): JobLogEntry[] {
    return this.journal.recent(PROGRESS_LOG_SHOWN);
  }

  /** Null when the object never received a plan (an unknown job). */
  progress(): G | null {
    const record = this.record();
    const plan = this.plan();
    return record && plan ? this.progressOf(plan, record) : null;
  }

  /** Asks the job to stop at its next step boundary; the reason is logged and kept as the job's end reason. */
  cancel(reason?: string): { message: string } {
    const record = this.record();
    if (!record) return { message: this.kind.unknown };
    if (TERMINAL_JOB_STATES.includes(record.state)) {
      return { message: `The ${this.kind.noun} has already ${record.state === 'cancelled' ? 'been cancelled' : record.state}` };
    }
    const why = (typeof reason === 'string' ? reason.trim().slice(0, 200) : '') || DEFAULT_CANCEL_REASON;
    this.ctx.storage.kv.put(CANCEL_KEY, why);
    this.save({ ...record, state: 'cancelling' });
    this.journal.append('Warning', `Cancellation requested (${why}): stopping ${this.kind.boundary}`);
    // Between steps (queued, or waiting to retry) the next boundary is now.
    if (!this.stepping) void this.ctx.storage.setAlarm(Date.now());
    return { message: `Cancellation requested: the ${this.kind.noun} stops ${this.kind.boundary}` };
  }

  override async alarm(): Promise<void> {
    const plan = this.plan();
    const stored = this.record();
    if (!plan || !stored || TERMINAL_JOB_STATES.includes(stored.state)) return;
    // An alarm delivered while a step is still in flight (a re-delivery, or one run by hand) only
    // renews the lease: two steps of one job never run side by side.
    if (this.stepping) return this.ctx.storage.setAlarm(Date.now() + STEP_LEASE_MS);
    if (this.cancelRequested()) return this.finish(stored, 'cancelled', this.cancelReason());
    await this.ctx.storage.setAlarm(Date.now() + STEP_LEASE_MS);
    let latest: R =
      stored.state === 'queued' ? { ...stored, state: 'running', startedAt: stored.startedAt ?? new Date().toISOString() } : stored;
    const job: StepContext<R> = {
      cancelRequested: () => this.cancelRequested(),
      save: (record) => {
        latest = { ...record, attempts: 0 };
        this.save(latest);
      },
      log: (level, message, tableName) => this.journal.append(level, message, tableName ?? null),
    };
    let result: StepResult<R>;
    this.stepping = true;
    try {
      result = await this.step(plan, latest, job);
    } catch (error) {
      this.stepping = false;
      return this.failStep(plan, latest, error);
    }
    this.stepping = false;
    const record: R = { ...result.record, attempts: 0 };
    if (result.done) return this.finish(record, 'completed');
    if (this.cancelRequested()) return this.finish(record, 'cancelled', this.cancelReason());
    // The next alarm and the step's record are written together (nothing awaited between them).
    const next = this.ctx.storage.setAlarm(Date.now());
    this.save(record);
    await next;
  }

  private async failStep(plan: P, record: R, error: unknown): Promise<void> {
    const failure = this.kind.failure(error, plan, record);
    // The full text stays in the Worker's log; the job's own log and errors carry the failure's words.
    console.error(
      JSON.stringify({
        level: 'error',
        service: 'migrate',
        event: 'job_step_failed',
        job: this.kind.noun,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    const attempts = record.attempts + 1;
    const failed: R = { ...record, attempts, errors: [...record.errors, failure.text].slice(-ERRORS_KEPT) };
    if (this.cancelRequested()) return this.finish(failed, 'cancelled', this.cancelReason());
    if (failure.permanent) return this.finish(failed, 'failed', failure.reason ?? failure.text, failure.tableName);
    if (attempts >= RETRY_POLICY.maxAttempts)
      return this.finish(failed, 'failed', `${failure.text} (after ${attempts} attempts)`, failure.tableName);
    const delay = retryDelayMs(attempts);
    const next = this.ctx.storage.setAlarm(Date.now() + delay);
    this.save(failed);
    this.journal.append(
      'Warning',
      `Attempt ${attempts} failed, retrying in ${(delay / 1000).toFixed(1)} s: ${failure.text}`,
      failure.tableName ?? null,
    );
    await next;
  }

  /** Ends the job: its record, its reason in the log, no further alarm, and no secret left in its plan. */
  private finish(record: R, state: JobState, reason?: string, tableName?: string | null): void {
    const finished: R = { ...record, state, finishedAt: new Date().toISOString(), endReason: reason ?? null };
    this.ctx.storage.kv.put(this.kind.recordKey, finished);
    const plan = this.plan();
    if (plan) this.ctx.storage.kv.put(PLAN_KEY, this.kind.withoutSecrets(plan));
    void this.ctx.storage.deleteAlarm();
    if (state === 'failed' && reason) this.journal.append('Error', `Failed: ${reason}`, tableName ?? null);
    if (state === 'cancelled') this.journal.append('Warning', `Cancelled (${reason ?? DEFAULT_CANCEL_REASON})`);
    this.journal.append(state === 'failed' ? 'Error' : state === 'cancelled' ? 'Warning' : 'Information', this.kind.endMessage(finished));
    if (plan) this.ctx.waitUntil(this.kind.ended(this.env, this.kind.withoutSecrets(plan), finished));
  }

  private plan(): P | undefined {
    return this.ctx.storage.kv.get<P>(PLAN_KEY);
  }

  private record(): R | undefined {
    return this.ctx.storage.kv.get<R>(this.kind.recordKey);
  }

  private cancelRequested(): boolean {
    const value = this.ctx.storage.kv.get<boolean | string>(CANCEL_KEY);
    return value === true || typeof value === 'string';
  }

  private cancelReason(): string {
    const value = this.ctx.storage.kv.get<boolean | string>(CANCEL_KEY);
    return typeof value === 'string' ? value : DEFAULT_CANCEL_REASON;
  }

  private save(record: R): void {
    // A cancel that arrived while a step was waiting on the database is not overwritten.
    const state = (record.state === 'running' || record.state === 'queued') && this.cancelRequested() ? 'cancelling' : record.state;
    this.ctx.storage.kv.put(this.kind.recordKey, { ...record, state });
  }
}
