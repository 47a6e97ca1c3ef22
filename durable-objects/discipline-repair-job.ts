import {
  CHANGES_SHOWN,
  type DisciplineDifference,
  type DisciplineRepairJobRpc,
  type EngineEnv,
  type RepairChange,
  type RepairChanges,
  type RepairPlan,
  type RepairProgress,
  type RepairRecord,
  admitRepair,
  newRepairRecord,
  recordRepairEnd,
  repairEndMessage,
  repairFailure,
  repairPlanWithoutSecrets,
  repairProgress,
  repairQueuedMessage,
  repairStep,
} from '#migrate/jobs/discipline-repair.ts';
import type { StepContext } from '#migrate/jobs/step.ts';
import { type JobKind, JobObject } from './job-base.ts';

type RepairEnv = EngineEnv & { DB: D1Database };

const REPAIR: JobKind<RepairEnv, RepairPlan, RepairRecord> = {
  recordKey: 'job',
  noun: 'repair',
  unknown: 'No such repair job',
  boundary: 'before its next batch',
  logKeep: 1_000,
  newRecord: newRepairRecord,
  queuedMessage: repairQueuedMessage,
  admit: admitRepair,
  failure: repairFailure,
  withoutSecrets: repairPlanWithoutSecrets,
  endMessage: repairEndMessage,
  ended: (env, plan, record) => recordRepairEnd(env.DB, plan, record),
};

/**
 * One discipline repair job (one object per job id): each alarm runs one batch of a few racing days
 * (workers/migrate/src/discipline-repair-step.ts); the races it changed are kept in the object's
 * SQLite table `changes`, which its progress lists.
 */
export class DisciplineRepairJob extends JobObject<RepairEnv, RepairPlan, RepairRecord, RepairProgress> implements DisciplineRepairJobRpc {
  private readonly changes: RepairChanges;

  constructor(ctx: DurableObjectState, env: RepairEnv) {
    super(ctx, env, REPAIR);
    const sql = ctx.storage.sql;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS changes (race_id INTEGER PRIMARY KEY, source_race_id INTEGER NOT NULL, meeting TEXT NOT NULL, race_number INTEGER NOT NULL,
         from_type TEXT NOT NULL, to_type TEXT NOT NULL, paired_by TEXT NOT NULL, changed_at TEXT NOT NULL)`,
    );
    this.changes = {
      record: (d: DisciplineDifference) => {
        sql.exec(
          'INSERT OR IGNORE INTO changes (race_id, source_race_id, meeting, race_number, from_type, to_type, paired_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          d.raceId,
          d.sourceRaceId,
          d.meeting,
          d.raceNumber,
          d.from,
          d.to,
          d.pairedBy,
          new Date().toISOString(),
        );
      },
      first: (count: number): RepairChange[] =>
        sql
          .exec<{
            race_id: number;
            source_race_id: number;
            meeting: string;
            race_number: number;
            from_type: string;
            to_type: string;
            paired_by: string;
            changed_at: string;
          }>('SELECT * FROM changes ORDER BY changed_at, race_id LIMIT ?', count)
          .toArray()
          .map((r) => ({
            raceId: r.race_id,
            sourceRaceId: r.source_race_id,
            meeting: r.meeting,
            raceNumber: r.race_number,
            from: r.from_type,
            to: r.to_type,
            pairedBy: r.paired_by === 'id mapping' ? 'id mapping' : 'race number',
            changedAt: r.changed_at,
          })),
    };
  }

  protected step(plan: RepairPlan, record: RepairRecord, job: StepContext<RepairRecord>) {
    return repairStep(this.env, plan, record, job, this.changes);
  }

  protected progressOf(plan: RepairPlan, record: RepairRecord): RepairProgress {
    return repairProgress(plan, record, this.recentLog(), this.changes.first(CHANGES_SHOWN));
  }
}
