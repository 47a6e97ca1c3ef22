import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import {
  type DisciplineDifference,
  destinationRaceCount,
  type RepairChange,
  type RepairPlan,
  type RepairProgress,
  type RepairState,
  repairRace,
  scanBatch,
  sourceExtent,
  updateRepairJob,
} from './discipline-repair.ts';
import { type Sql, assertHostAllowed, openDestination, openSource } from './engine/db.ts';
import { type EngineEnv, HostNotAllowedError } from './engine/types.ts';
import { type JobLogEntry, type JobRecord, type StepContext, type StepFailure, type StepResult, stepFailure } from './jobs/step.ts';
import type { MeetingsDb } from './meetings.ts';

// One batch of a discipline repair (the DisciplineRepairJob object's step): the first counts the
// source and the destination; each reads the source meetings of the next few racing days, sets
// each wrong destination race with one guarded UPDATE and moves the cursor past those days. A batch
// that runs again (a retry, an evicted object) finds the races it repaired right and changes
// nothing twice.

/** A repair as its object stores it (key `job`). */
export type RepairRecord = JobRecord & {
  state: RepairState;
  /** The last racing day (YYYY-MM-DD text) whose meetings were read; '' before the first batch. */
  cursor: string;
  /** null until the first batch has counted the source. */
  total: number | null;
  totalDays: number;
  destinationRaces: number;
  checked: number;
  changed: number;
  meetingsScanned: number;
  daysScanned: number;
  paired: number;
  sourceWithoutCounterpart: number;
  unknownCodes: number;
  alreadyRepaired: number;
};

/** Where a repair keeps what it changed: what its progress lists. */
export interface RepairChanges {
  record(difference: DisciplineDifference): void;
  first(count: number): RepairChange[];
}

/** Changes the progress summary lists (the first); `changed` counts them all. */
export const CHANGES_SHOWN = 1_000;

export function newRepairRecord(): RepairRecord {
  return {
    state: 'queued',
    cursor: '',
    total: null,
    totalDays: 0,
    destinationRaces: 0,
    checked: 0,
    changed: 0,
    meetingsScanned: 0,
    daysScanned: 0,
    paired: 0,
    sourceWithoutCounterpart: 0,
    unknownCodes: 0,
    alreadyRepaired: 0,
    attempts: 0,
    startedAt: null,
    finishedAt: null,
    errors: [],
  };
}

/** Refuses a source off MIGRATE_ALLOWED_HOSTS before any connection. */
export function admitRepair(env: EngineEnv, plan: RepairPlan): void {
  assertHostAllowed(env, plan.source);
}

export const repairQueuedMessage = (plan: RepairPlan) =>
  `Discipline repair ${plan.jobId} queued by ${plan.startedBy}: source "${plan.configName}"`;

export async function repairStep(
  env: EngineEnv,
  plan: RepairPlan,
  start: RepairRecord,
  job: StepContext<RepairRecord>,
  changes: RepairChanges,
): Promise<StepResult<RepairRecord>> {
  let record = start;
  let source: Sql | undefined;
  let dest: Sql | undefined;
  try {
    source = openSource(env, plan.source);
    dest = openDestination(env);
    const db: MeetingsDb = { source: (t, v) => source!.query(t, v), dest: (t, v) => dest!.query(t, v), configId: plan.configId };
    if (record.total === null) {
      const [extent, destinationRaces] = await Promise.all([sourceExtent(db), destinationRaceCount(db)]);
      record = { ...record, total: extent.races, totalDays: extent.days, destinationRaces };
      job.save(record);
      job.log(
        'Information',
        `Checking ${extent.races} source races of ${extent.meetings} meetings on ${extent.days} racing days against ${destinationRaces} destination races`,
      );
    }
    const batch = await scanBatch(db, record.cursor);
    if (batch.next === null) return { record, done: true };
    let changed = 0;
    let already = 0;
    for (const difference of batch.differences) {
      // A cancel that arrives mid-batch still lets the batch finish: its cursor then moves past it.
      if (await repairRace(db.dest, difference)) {
        changed++;
        changes.record(difference);
        job.log(
          'Information',
          `Race ${difference.raceId} (${difference.meeting}, race ${difference.raceNumber}): ${difference.from} → ${difference.to}`,
        );
      } else {
        already++;
      }
    }
    record = {
      ...record,
      cursor: batch.next,
      checked: record.checked + batch.sourceRaces,
      changed: record.changed + changed,
      meetingsScanned: record.meetingsScanned + batch.meetings,
      daysScanned: record.daysScanned + batch.days,
      paired: record.paired + batch.paired,
      sourceWithoutCounterpart: record.sourceWithoutCounterpart + batch.sourceWithoutCounterpart,
      unknownCodes: record.unknownCodes + batch.unknownCodes,
      alreadyRepaired: record.alreadyRepaired + already,
    };
    job.save(record);
    job.log(
      'Information',
      `Racing days to ${batch.next}: ${batch.meetings} meetings, ${batch.sourceRaces} source races, ${batch.paired} paired, ${batch.differences.length} with another discipline, ${changed} changed`,
    );
    return { record, done: false };
  } finally {
    await Promise.all([source?.end(), dest?.end()]);
  }
}

/** A refused login, an unknown database, missing legacy tables or a host off the list fail the job at once. */
export function repairFailure(error: unknown): StepFailure {
  return stepFailure(error, error instanceof HostNotAllowedError);
}

/** The source password is no longer needed once the job has ended. */
export const repairPlanWithoutSecrets = (plan: RepairPlan): RepairPlan => ({ ...plan, source: { ...plan.source, password: '' } });

export const repairEndMessage = (record: RepairRecord) =>
  `Repair ${record.state}: ${record.checked} source races checked, ${record.changed} destination races changed`;

/** The jobs list follows; the page brings it up to date too, should this write be lost. */
export async function recordRepairEnd(d1: D1Database, plan: RepairPlan, record: RepairRecord): Promise<void> {
  await updateRepairJob(drizzle(d1, { schema }), plan.jobId, record.state, record.changed, Date.now()).catch(() => {});
}

export function repairProgress(plan: RepairPlan, record: RepairRecord, log: JobLogEntry[], changes: RepairChange[]): RepairProgress {
  return {
    jobId: plan.jobId,
    state: record.state,
    checked: record.checked,
    changed: record.changed,
    total: record.total ?? 0,
    log,
    summary: {
      changes,
      configuration: plan.configName,
      meetingsScanned: record.meetingsScanned,
      daysScanned: record.daysScanned,
      totalDays: record.totalDays,
      pairedRaces: record.paired,
      sourceRacesWithoutCounterpart: record.sourceWithoutCounterpart,
      destinationRacesWithoutCounterpart: Math.max(0, record.destinationRaces - record.paired),
      unknownCodes: record.unknownCodes,
      alreadyRepaired: record.alreadyRepaired,
      startedAt: record.startedAt,
      finishedAt: record.finishedAt,
      errors: record.errors,
    },
  };
}
