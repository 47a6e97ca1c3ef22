import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../workers/migrate/src/engine/db';
import type { RunPlan, RunProgress } from '../../workers/migrate/src/engine/types';
import {
  type TestDestination,
  count,
  createDestination,
  legacyConnection,
  legacyPlans,
  openLegacy,
  openRacing,
  runPlan,
  one,
} from './engine-support';
import { countMappings } from '../../workers/migrate/src/engine/mappings';
import { migrationJobStub } from '../../workers/migrate/src/jobs/stubs';
import { rowsAs } from './rows-as';

// The MigrationJob Durable Object: a run driven by its alarms to the end, cancelled, and resumed
// after the object lost its own view of the progress.

let source: Sql;
let dest: Sql;
let target: TestDestination;
const stubFor = (runId: string) => migrationJobStub(env, runId);

beforeAll(async () => {
  source = openLegacy();
  dest = openRacing();
  target = await createDestination(dest, 'job', { tables: ['courses', 'meetings', 'races', 'horses'] });
}, 60_000);
afterAll(async () => {
  await target.drop();
  await Promise.all([source.end(), dest.end()]);
});

async function sourceCount(table: string): Promise<number> {
  const { n } = await one(rowsAs<{ n: number }>(source, `SELECT count(*)::int AS n FROM ${table}`));
  return n;
}

/** Fires the object's alarms (they also fire on their own) until the run ends. */
async function untilFinished(runId: string, timeoutMs = 90_000): Promise<RunProgress> {
  const stub = stubFor(runId);
  const started = Date.now();
  for (;;) {
    const progress = (await stub.progress())!;
    if (['completed', 'failed', 'cancelled'].includes(progress.state)) return progress;
    if (Date.now() - started > timeoutMs) throw new Error(`run still ${progress.state}`);
    if (!(await runDurableObjectAlarm(stub))) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function plan(sourceTables: string[], options: Partial<RunPlan> = {}): Promise<RunPlan> {
  return runPlan(await legacyPlans(dest, target, sourceTables), options);
}

describe('MigrationJob', () => {
  it('runs a plan to the end in alarm slices, with progress, logs and validation', async () => {
    const run = await plan(['venue', 'race_meeting', 'race_event'], { chunkSize: 100, chunksPerSlice: 2 });
    const stub = stubFor(run.runId);
    const queued = await stub.start(run);
    expect(queued).toMatchObject({ state: 'queued', startedAt: null, validation: null });
    // A second start of the same run changes nothing.
    expect((await stub.start({ ...run, patchMode: true })).state).toBeDefined();
    const done = await untilFinished(run.runId);
    expect(done.state).toBe('completed');
    expect(done.errors).toEqual([]);
    expect(done.tables).toEqual([
      expect.objectContaining({
        table: target.name('courses'),
        done: await sourceCount('venue'),
        total: await sourceCount('venue'),
        state: 'done',
      }),
      expect.objectContaining({ table: target.name('meetings'), done: await sourceCount('race_meeting'), state: 'done' }),
      expect.objectContaining({
        table: target.name('races'),
        done: await sourceCount('race_event'),
        inserted: await sourceCount('race_event'),
        state: 'done',
      }),
    ]);
    expect(done.validation).toHaveLength(3);
    expect(done.validation!.every((v) => v.ok)).toBe(true);
    expect(done.finishedAt).not.toBeNull();
    expect(await count(dest, target.name('races'))).toBe(await sourceCount('race_event'));
    const logs = await stub.logs(5);
    expect(logs.length).toBeLessThanOrEqual(5);
    expect(logs.at(-1)).toMatchObject({ level: 'Information', message: 'Run completed', tableName: null });
    expect((await stub.logs(500)).some((l) => l.message.startsWith('Validated') && l.tableName === target.name('races'))).toBe(true);
    // The source password is dropped once the run is over.
    const stored = await runInDurableObject(stub, (_job, state) => state.storage.kv.get<RunPlan>('plan'));
    expect(stored?.source.password).toBe('');
  }, 120_000);

  it('stops within one chunk when cancelled, leaving counters that match the destination', async () => {
    const run = await plan(['horse'], { chunkSize: 20, chunksPerSlice: 1 });
    const stub = stubFor(run.runId);
    await stub.start(run);
    // Cancel once the copy is under way.
    while (((await stub.progress())!.tables[0]?.done ?? 0) === 0) {
      if (!(await runDurableObjectAlarm(stub))) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await stub.cancel()).toEqual({ message: expect.stringMatching(/cancel/i) });
    expect(['cancelling', 'cancelled']).toContain((await stub.progress())!.state);
    const cancelled = await untilFinished(run.runId);
    expect(cancelled.state).toBe('cancelled');
    const horses = cancelled.tables[0]!;
    expect(horses.done).toBeLessThan(horses.total);
    expect(horses.state).toBe('cancelled');
    const { n } = await one(
      rowsAs<{ n: number }>(dest, `SELECT ${countMappings('$t.config_id = $1 AND $t.dest_table = $2')} AS n`, [
        run.configId,
        target.name('horses'),
      ]),
    );
    expect(n).toBe(horses.inserted);
    expect(await stub.cancel()).toEqual({ message: expect.stringMatching(/already/) });
  }, 60_000);

  it('resumes from the destination after the object lost its own progress, copying each row once', async () => {
    const run = await plan(['venue', 'race_meeting'], { chunkSize: 20, chunksPerSlice: 1 });
    const stub = stubFor(run.runId);
    await stub.start(run);
    for (let i = 0; i < 4; i++) await runDurableObjectAlarm(stub);
    // As if the object were reset to an older state: its cursors forgotten.
    await runInDurableObject(stub, (_job, state) => {
      const stored = state.storage.kv.get<Record<string, unknown>>('run')!;
      state.storage.kv.put('run', { ...stored, cursors: [] });
    });
    const done = await untilFinished(run.runId);
    expect(done.state).toBe('completed');
    expect(await count(dest, target.name('meetings'))).toBe(await sourceCount('race_meeting'));
    expect(done.validation!.every((v) => v.ok)).toBe(true);
  }, 120_000);

  it('fails a run whose plan does not fit the schemas, with the reason', async () => {
    const [venue] = await legacyPlans(dest, target, ['venue']);
    const run = runPlan([{ ...venue!, sourceTable: 'no_such_table' }]);
    const stub = stubFor(run.runId);
    await stub.start(run);
    const failed = await untilFinished(run.runId);
    expect(failed.state).toBe('failed');
    expect(failed.errors.join(' ')).toMatch(/no_such_table does not exist/);
  }, 60_000);

  it('fails a run whose source password is wrong at once, with the reason in its log and no secret', async () => {
    const wrong = 'not-the-legacy-password-4b1d';
    const run = await plan(['venue']);
    const stub = stubFor(run.runId);
    await stub.start({ ...run, source: { ...run.source, password: wrong } });
    const failed = await untilFinished(run.runId, 30_000);
    expect(failed.state).toBe('failed');
    expect(failed.errors).toEqual([expect.stringMatching(/^the server refused the password \(SQLSTATE 28P01/)]);
    const logs = await stub.logs(20);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'Error',
        message: expect.stringMatching(
          /^Failed: the source or destination refused the login: the server refused the password \(SQLSTATE 28P01/,
        ),
      }),
    );
    // Not retried: one failed attempt, and nothing copied.
    expect(logs.filter((l) => l.level === 'Error' && /Attempt \d+ failed/.test(l.message))).toEqual([]);
    for (const text of [JSON.stringify(failed), JSON.stringify(logs)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(legacyConnection().password);
    }
    const { n } = await one(rowsAs<{ n: number }>(dest, `SELECT ${countMappings('$t.config_id = $1')} AS n`, [run.configId]));
    expect(n).toBe(0);
  }, 60_000);

  it('refuses a source outside the allowed hosts and knows no unknown run', async () => {
    const run = await plan(['venue']);
    const stub = stubFor(run.runId);
    const refused = await stub.start({ ...run, source: { ...legacyConnection(), host: '169.254.169.254' } });
    expect(refused).toMatchObject({ state: 'failed', errors: [expect.stringMatching(/not in the allowed hosts/)] });
    expect(await runDurableObjectAlarm(stub)).toBe(false);
    const { n } = await one(rowsAs<{ n: number }>(dest, `SELECT ${countMappings('$t.config_id = $1')} AS n`, [run.configId]));
    expect(n).toBe(0);
    expect(await stubFor(crypto.randomUUID()).progress()).toBeNull();
    expect(await stubFor(crypto.randomUUID()).cancel()).toEqual({ message: 'No such migration run' });
  }, 30_000);
});
