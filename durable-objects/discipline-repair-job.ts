import { DurableObject } from 'cloudflare:workers';
import { failureText, sqlStateOf } from '#shared/pg-errors.ts';
import { JobLog } from './job-log.ts';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/migrate/schema.ts';
import {
  type DisciplineDifference,
  type DisciplineRepairJobRpc,
  destinationRaceCount,
  type RepairChange,
  type RepairPlan,
  type RepairProgress,
  type RepairState,
  repairRace,
  scanBatch,
  sourceExtent,
  TERMINAL_REPAIR_STATES,
  updateRepairJob,
} from '../workers/migrate/src/discipline-repair.ts';
import { type Sql, assertHostAllowed, openDestination, openSource } from '../workers/migrate/src/engine/db.ts';
import { type EngineEnv, HostNotAllowedError, type LogEntry } from '../workers/migrate/src/engine/types.ts';
import type { MeetingsDb } from '../workers/migrate/src/meetings.ts';

/** Consecutive failed batches (database unreachable, connection dropped) before the job fails. */
const MAX_ATTEMPTS = 4;
const LOG_KEEP = 1_000;
/** Log entries the progress answer carries (the newest). */
const LOG_SHOWN = 200;
/** Changes the progress summary lists (the first); `changed` counts them all. */
const CHANGES_SHOWN = 1_000;

type RepairEnv = EngineEnv & { DB: D1Database };

type Stored = {
  state: RepairState;
  /** The last racing day (YYYY-MM-DD text) whose meetings were read; '' before the first batch. */
  cursor: string;
  /** null until the first alarm has counted the source. */
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
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  errors: string[];
};

/** The server refused the login or has no such database or tables: retrying cannot help. */
function isPermanent(error: unknown): boolean {
  if (error instanceof HostNotAllowedError) return true;
  const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000' || code === '42P01' || code === '42703');
}

/**
 * One discipline repair job (one object per job id): it reads the source a few racing days per
 * alarm (workers/migrate/src/discipline-repair.ts), sets each wrong destination race with one
 * guarded UPDATE, records the change, advances its cursor and schedules the next alarm. A batch
 * that runs again (a failed alarm's retry, an evicted object) finds the races it already repaired
 * right and changes nothing twice. A cancel stops the job before its next batch; a batch that
 * fails is retried with backoff, and after MAX_ATTEMPTS the job fails with the reason in its log.
 */
export class DisciplineRepairJob extends DurableObject<RepairEnv> implements DisciplineRepairJobRpc {
  private readonly journal: JobLog;

  constructor(ctx: DurableObjectState, env: RepairEnv) {
    super(ctx, env);
    this.journal = new JobLog(ctx.storage.sql, LOG_KEEP);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS changes (race_id INTEGER PRIMARY KEY, source_race_id INTEGER NOT NULL, meeting TEXT NOT NULL, race_number INTEGER NOT NULL,
         from_type TEXT NOT NULL, to_type TEXT NOT NULL, paired_by TEXT NOT NULL, changed_at TEXT NOT NULL)`,
    );
  }

  start(plan: RepairPlan): RepairProgress {
    const existing = this.stored();
    if (existing) return this.progressOf(existing);
    const stored: Stored = {
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
    this.ctx.storage.kv.put('plan', plan);
    this.save(stored);
    this.log('Information', `Discipline repair ${plan.jobId} queued by ${plan.startedBy}: source "${plan.configName}"`);
    try {
      assertHostAllowed(this.env, plan.source);
    } catch (error) {
      this.finish({ ...stored, errors: [error instanceof Error ? error.message : String(error)] }, 'failed', error instanceof Error ? error.message : String(error));
      return this.progressOf(this.stored()!);
    }
    void this.ctx.storage.setAlarm(Date.now());
    return this.progressOf(stored);
  }

  progress(): RepairProgress | null {
    const stored = this.stored();
    return stored ? this.progressOf(stored) : null;
  }

  cancel(): { message: string } {
    const stored = this.stored();
    if (!stored) return { message: 'No such repair job' };
    if (TERMINAL_REPAIR_STATES.includes(stored.state)) return { message: `The repair has already ${stored.state === 'cancelled' ? 'been cancelled' : stored.state}` };
    this.ctx.storage.kv.put('cancel', true);
    this.save({ ...stored, state: 'cancelling' });
    this.log('Warning', 'Cancellation requested: stopping before the next batch');
    return { message: 'Cancellation requested: the repair stops before its next batch' };
  }

  override async alarm(): Promise<void> {
    const plan = this.ctx.storage.kv.get<RepairPlan>('plan');
    let stored = this.stored();
    if (!plan || !stored || TERMINAL_REPAIR_STATES.includes(stored.state)) return;
    if (this.cancelRequested()) {
      this.finish(stored, 'cancelled');
      return;
    }
    let source: Sql | undefined;
    let dest: Sql | undefined;
    try {
      source = openSource(this.env, plan.source);
      dest = openDestination(this.env);
      const db: MeetingsDb = { source: (t, v) => source!.query(t, v), dest: (t, v) => dest!.query(t, v), configId: plan.configId };
      if (stored.total === null) {
        const [extent, destinationRaces] = await Promise.all([sourceExtent(db), destinationRaceCount(db)]);
        stored = { ...stored, total: extent.races, totalDays: extent.days, destinationRaces, state: 'running', startedAt: stored.startedAt ?? new Date().toISOString() };
        this.save(stored);
        this.log('Information', `Checking ${extent.races} source races of ${extent.meetings} meetings on ${extent.days} racing days against ${destinationRaces} destination races`);
      }
      const batch = await scanBatch(db, stored.cursor);
      if (batch.next === null) {
        this.finish(stored, 'completed');
        return;
      }
      let changed = 0;
      let already = 0;
      for (const difference of batch.differences) {
        // A cancel that arrives mid-batch still lets the batch finish: its cursor then moves past it.
        if (await repairRace(db.dest, difference)) {
          changed++;
          this.recordChange(difference);
        } else {
          already++;
        }
      }
      stored = {
        ...stored,
        cursor: batch.next,
        checked: stored.checked + batch.sourceRaces,
        changed: stored.changed + changed,
        meetingsScanned: stored.meetingsScanned + batch.meetings,
        daysScanned: stored.daysScanned + batch.days,
        paired: stored.paired + batch.paired,
        sourceWithoutCounterpart: stored.sourceWithoutCounterpart + batch.sourceWithoutCounterpart,
        unknownCodes: stored.unknownCodes + batch.unknownCodes,
        alreadyRepaired: stored.alreadyRepaired + already,
        attempts: 0,
      };
      this.save(stored);
      this.log(
        'Information',
        `Racing days to ${batch.next}: ${batch.meetings} meetings, ${batch.sourceRaces} source races, ${batch.paired} paired, ${batch.differences.length} with another discipline, ${changed} changed`,
      );
      if (this.cancelRequested()) {
        this.finish(stored, 'cancelled');
        return;
      }
      await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      await this.failBatch(stored, error);
    } finally {
      await Promise.all([source?.end(), dest?.end()]);
    }
  }

  private recordChange(d: DisciplineDifference): void {
    const at = new Date().toISOString();
    this.ctx.storage.sql.exec(
      'INSERT OR IGNORE INTO changes (race_id, source_race_id, meeting, race_number, from_type, to_type, paired_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      d.raceId,
      d.sourceRaceId,
      d.meeting,
      d.raceNumber,
      d.from,
      d.to,
      d.pairedBy,
      at,
    );
    this.log('Information', `Race ${d.raceId} (${d.meeting}, race ${d.raceNumber}): ${d.from} → ${d.to}`);
  }

  private async failBatch(stored: Stored, error: unknown): Promise<void> {
    if (sqlStateOf(error)) console.error(JSON.stringify({ level: 'error', service: 'migrate', event: 'job_step_failed', error: error instanceof Error ? error.message : String(error) }));
    const message = failureText(error);
    const attempts = stored.attempts + 1;
    const fatal = isPermanent(error) || attempts >= MAX_ATTEMPTS;
    const next = { ...stored, attempts, errors: [...stored.errors, message].slice(-20) };
    if (fatal) {
      this.finish(next, 'failed', attempts >= MAX_ATTEMPTS && !isPermanent(error) ? `${message} (after ${attempts} attempts)` : message);
      return;
    }
    this.log('Warning', `Attempt ${attempts} failed, retrying: ${message}`);
    this.save(next);
    await this.ctx.storage.setAlarm(Date.now() + 1_000 * 2 ** attempts);
  }

  private finish(stored: Stored, state: RepairState, reason?: string): void {
    const finished = { ...stored, state, finishedAt: new Date().toISOString() };
    this.ctx.storage.kv.put('job', finished);
    // The source password is no longer needed once the job is over.
    const plan = this.ctx.storage.kv.get<RepairPlan>('plan');
    if (plan) this.ctx.storage.kv.put('plan', { ...plan, source: { ...plan.source, password: '' } });
    void this.ctx.storage.deleteAlarm();
    if (reason) this.log('Error', `Failed: ${reason}`);
    this.log(
      state === 'failed' ? 'Error' : state === 'cancelled' ? 'Warning' : 'Information',
      `Repair ${state}: ${finished.checked} source races checked, ${finished.changed} destination races changed`,
    );
    if (plan) {
      // The jobs list follows; the page brings it up to date too, should this write be lost.
      this.ctx.waitUntil(updateRepairJob(drizzle(this.env.DB, { schema }), plan.jobId, state, finished.changed, Date.now()).catch(() => {}));
    }
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

  private log(level: LogEntry['level'], message: string): void {
    this.journal.append(level, message);
  }

  private progressOf(stored: Stored): RepairProgress {
    const plan = this.ctx.storage.kv.get<RepairPlan>('plan')!;
    const log = this.journal.recent(LOG_SHOWN);
    const changes: RepairChange[] = this.ctx.storage.sql
      .exec<{ race_id: number; source_race_id: number; meeting: string; race_number: number; from_type: string; to_type: string; paired_by: string; changed_at: string }>(
        'SELECT * FROM changes ORDER BY changed_at, race_id LIMIT ?',
        CHANGES_SHOWN,
      )
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
      }));
    return {
      jobId: plan.jobId,
      state: stored.state,
      checked: stored.checked,
      changed: stored.changed,
      total: stored.total ?? 0,
      log,
      summary: {
        changes,
        configuration: plan.configName,
        meetingsScanned: stored.meetingsScanned,
        daysScanned: stored.daysScanned,
        totalDays: stored.totalDays,
        pairedRaces: stored.paired,
        sourceRacesWithoutCounterpart: stored.sourceWithoutCounterpart,
        destinationRacesWithoutCounterpart: Math.max(0, stored.destinationRaces - stored.paired),
        unknownCodes: stored.unknownCodes,
        alreadyRepaired: stored.alreadyRepaired,
        startedAt: stored.startedAt,
        finishedAt: stored.finishedAt,
        errors: stored.errors,
      },
    };
  }
}
