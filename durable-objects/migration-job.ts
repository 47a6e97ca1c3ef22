import {
  type EngineEnv,
  type LogEntry,
  type MigrationJobRpc,
  type RunPlan,
  type RunProgress,
  type RunRecord,
  admitRun,
  migrationFailure,
  migrationProgress,
  migrationStep,
  newRunRecord,
  recordMigrationEnd,
  runEndMessage,
  runPlanWithoutSecrets,
  runQueuedMessage,
} from '#migrate/jobs/migration.ts';
import type { StepContext } from '#migrate/jobs/step.ts';
import { type JobKind, JobObject } from './job-base.ts';

/** The benches host this class without the app's D1; there a run's end is learnt from its progress only. */
type MigrationEnv = EngineEnv & { DB?: D1Database };

const MIGRATION: JobKind<MigrationEnv, RunPlan, RunRecord> = {
  recordKey: 'run',
  noun: 'migration',
  unknown: 'No such migration run',
  boundary: 'after the current chunk',
  logKeep: 2_000,
  logTables: true,
  newRecord: newRunRecord,
  queuedMessage: runQueuedMessage,
  admit: admitRun,
  failure: migrationFailure,
  withoutSecrets: runPlanWithoutSecrets,
  endMessage: (record) => runEndMessage(record.state),
  ended: async (env, plan, record) => {
    if (env.DB) await recordMigrationEnd(env.DB, plan, record);
  },
};

/**
 * One migration run (one object per run id): its plan, record, log tail and cancel flag. Each
 * alarm runs one slice of the copy (workers/migrate/src/jobs/migration-step.ts); the destination
 * commits each chunk with its cursor and every slice starts from the destination's cursors, so an
 * evicted or reset object, or a dropped connection, resumes where the last committed chunk left
 * off, with nothing lost or copied twice.
 */
export class MigrationJob extends JobObject<MigrationEnv, RunPlan, RunRecord, RunProgress> implements MigrationJobRpc {
  constructor(ctx: DurableObjectState, env: MigrationEnv) {
    super(ctx, env, MIGRATION);
  }

  /** The newest `count` entries, oldest first (default 50, at most 500). */
  logs(count = 50): LogEntry[] {
    return this.journal.recentWithTables(Math.min(500, Math.max(1, Math.floor(count))));
  }

  protected step(plan: RunPlan, record: RunRecord, job: StepContext<RunRecord>) {
    return migrationStep(this.env, plan, record, job);
  }

  protected progressOf(plan: RunPlan, record: RunRecord): RunProgress {
    return migrationProgress(plan, record);
  }
}
