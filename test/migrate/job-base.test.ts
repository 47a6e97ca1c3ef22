import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CANCEL_REASON, RETRY_POLICY, STEP_LEASE_MS, retryDelayMs } from '#durable-objects/job-base.ts';
import type { RepairPlan } from '../../workers/migrate/src/discipline-repair';
import type { RunPlan } from '../../workers/migrate/src/engine/types';
import type { ImportPlan } from '../../workers/migrate/src/imports/jobs';
import type { JobRecord, StepContext, StepResult } from '../../workers/migrate/src/jobs/step';
import { disciplineRepairJobStub, importJobStub, migrationJobStub } from '../../workers/migrate/src/jobs/stubs';
import { legacyConnection, runPlan } from './engine-support';

// The job base shared by the three job objects (MigrationJob, DisciplineRepairJob, ImportJob): one
// retry policy, cancel at the step boundary with its reason, and no secret left in a plan however
// the job ends. Each job's step is replaced inside its object, so the base is what is tested, in
// each of the three hosts.

const TOKEN = 'sheet-token-5f1c9e';

type Step = (plan: unknown, record: JobRecord, job: StepContext<JobRecord>) => Promise<StepResult<JobRecord>>;

/** One job object, reached through its typed stub. */
type Handle = {
  /** Replaces the object's step with `step`, then starts the job; its alarms are then fired by the test alone. */
  begin(step: (instance: object) => Step): Promise<void>;
  cancel(reason?: string): Promise<{ message: string }>;
  progress(): Promise<unknown>;
  alarm(): Promise<boolean>;
  run<R>(callback: (instance: object, state: DurableObjectState) => R | Promise<R>): Promise<R>;
  /** What must not stay in the object once the job has ended. */
  secret: string;
};

/** One of the three jobs: how to start one, where it keeps its record, and whether a plan holds its secret. */
type JobCase = { name: string; recordKey: 'run' | 'job'; create(): Handle; secretIn(plan: unknown): boolean };

/** Puts the test's step in the object, for as long as it lives (the test's length). */
function useStep(instance: object, step: (instance: object) => Step): void {
  Reflect.set(instance, 'step', step(instance));
}

/** Starts the job from inside its object, so that nothing runs between the start and holdAlarm. */
function startInside(instance: object, plan: unknown): void {
  Reflect.apply(Reflect.get(instance, 'start'), instance, [plan]);
}

/** Far ahead, in the same turn as the start: only the test fires the job's alarms. */
const holdAlarm = (state: DurableObjectState) => state.storage.setAlarm(Date.now() + 3_600_000);

type JobStub = ReturnType<typeof migrationJobStub> | ReturnType<typeof disciplineRepairJobStub> | ReturnType<typeof importJobStub>;

/** The handle on a job object started with `plan`, whose `secret` must be gone once the job ends. */
function handleOf(stub: JobStub, plan: unknown, secret: string): Handle {
  return {
    begin: (step) =>
      runInDurableObject(stub, async (instance, state) => {
        useStep(instance, step);
        startInside(instance, plan);
        await holdAlarm(state);
      }),
    cancel: (reason) => stub.cancel(reason),
    progress: () => stub.progress(),
    alarm: () => runDurableObjectAlarm(stub),
    run: (callback) => runInDurableObject(stub, callback),
    secret,
  };
}

const CASES: JobCase[] = [
  {
    name: 'MigrationJob',
    recordKey: 'run',
    create() {
      const plan = runPlan([]);
      const stub = migrationJobStub(env, plan.runId);
      return handleOf(stub, plan, plan.source.password);
    },
    secretIn: (plan) => (plan as RunPlan).source.password !== '',
  },
  {
    name: 'DisciplineRepairJob',
    recordKey: 'job',
    create() {
      const plan: RepairPlan = {
        jobId: crypto.randomUUID(),
        configId: 1,
        configName: 'Legacy',
        source: legacyConnection(),
        startedBy: 'job-base@example.com',
      };
      const stub = disciplineRepairJobStub(env, plan.jobId);
      return handleOf(stub, plan, plan.source.password);
    },
    secretIn: (plan) => (plan as RepairPlan).source.password !== '',
  },
  {
    name: 'ImportJob',
    recordKey: 'job',
    create() {
      const plan: ImportPlan = {
        jobId: crypto.randomUUID(),
        area: 'Sectional',
        fileName: 'sectionals.csv',
        source: { kind: 'url', url: `https://reader:pass-${TOKEN}@sheets.invalid/sectionals.csv?token=${TOKEN}#${TOKEN}` },
        fk: { runner: 'horse' },
        filter: '',
        startedBy: 'job-base@example.com',
        trigger: 'run-now',
      };
      const stub = importJobStub(env, plan.jobId);
      return handleOf(stub, plan, TOKEN);
    },
    secretIn: (plan) => JSON.stringify(plan).includes(TOKEN),
  },
];

/** A cancel arriving while the step works, as an RPC would between the step's awaits. */
function cancelInside(instance: object, reason: string): void {
  Reflect.apply(Reflect.get(instance, 'cancel'), instance, [reason]);
}

async function inside(job: Handle, key: string) {
  return job.run(async (_instance, state) => ({
    record: state.storage.kv.get<JobRecord>(key)!,
    plan: state.storage.kv.get<unknown>('plan'),
    alarm: await state.storage.getAlarm(),
    log: state.storage.sql.exec<{ level: string; message: string }>('SELECT level, message FROM log ORDER BY id').toArray(),
  }));
}

/** A failure a retry can cure: a dropped connection. */
const dropped = () => Object.assign(new Error('Connection terminated unexpectedly (injected)'), { name: 'Error' });
/** A failure a retry cannot cure: the login refused (SQLSTATE 28P01). */
const refused = () => Object.assign(new Error('password authentication failed (injected)'), { code: '28P01' });

describe('the retry policy', () => {
  it('waits about 2, 4, 8, 16 s with ±25 % jitter, capped at 30 s', () => {
    expect(RETRY_POLICY.maxAttempts).toBe(5);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, () => 0.5))).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(retryDelayMs(1, () => 0)).toBe(1_500);
    expect(retryDelayMs(1, () => 0.999_999)).toBe(2_500);
    expect(retryDelayMs(10, () => 0.5)).toBe(30_000);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelayMs(3)));
    expect(spread.size).toBeGreaterThan(1);
    for (const delay of spread) {
      expect(delay).toBeGreaterThanOrEqual(6_000);
      expect(delay).toBeLessThanOrEqual(10_000);
    }
  });
});

describe.each(CASES)('$name on the job base', (job) => {
  it('retries a step that fails transiently with the shared policy, then fails the job with the reason', async () => {
    const handle = job.create();
    let calls = 0;
    await handle.begin(() => async () => {
      calls++;
      throw dropped();
    });
    for (let attempt = 1; attempt < RETRY_POLICY.maxAttempts; attempt++) {
      const before = Date.now();
      expect(await handle.alarm()).toBe(true);
      const after = Date.now();
      const { record, alarm, log } = await inside(handle, job.recordKey);
      expect(record).toMatchObject({ state: 'running', attempts: attempt });
      const base = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.firstDelayMs * 2 ** (attempt - 1));
      expect(alarm).toBeGreaterThanOrEqual(before + base * (1 - RETRY_POLICY.jitter) - 1);
      expect(alarm).toBeLessThanOrEqual(after + base * (1 + RETRY_POLICY.jitter) + 1);
      expect(log.at(-1)).toEqual({
        level: 'Warning',
        message: expect.stringMatching(new RegExp(`^Attempt ${attempt} failed, retrying in [0-9.]+ s: Connection terminated`)),
      });
    }
    expect(await handle.alarm()).toBe(true);
    expect(calls).toBe(RETRY_POLICY.maxAttempts);
    const { record, alarm, log } = await inside(handle, job.recordKey);
    expect(record.state).toBe('failed');
    expect(record.errors).toHaveLength(RETRY_POLICY.maxAttempts);
    expect(record.endReason).toBe(`Connection terminated unexpectedly (injected) (after ${RETRY_POLICY.maxAttempts} attempts)`);
    expect(record.finishedAt).not.toBeNull();
    expect(alarm).toBeNull();
    expect(log).toContainEqual({ level: 'Error', message: `Failed: ${record.endReason}` });
    expect(await handle.alarm()).toBe(false);
  });

  it('starts the count again after a step that made progress', async () => {
    const handle = job.create();
    let calls = 0;
    await handle.begin(() => async (_plan, record, ctx) => {
      calls++;
      // Every third step saves progress before it fails: the job never runs out of attempts.
      if (calls % 3 === 0) ctx.save(record);
      if (calls < 3 * RETRY_POLICY.maxAttempts) throw dropped();
      return { record, done: true };
    });
    while (await handle.alarm());
    const { record } = await inside(handle, job.recordKey);
    expect(calls).toBe(3 * RETRY_POLICY.maxAttempts);
    expect(record).toMatchObject({ state: 'completed', attempts: 0 });
  });

  it('lets a step cancelled while it works finish that step, then stops at the boundary with the reason', async () => {
    const handle = job.create();
    let calls = 0;
    let lease: number | null = null;
    let seenCancel = false;
    await handle.begin((instance) => async (_plan, record, ctx) => {
      calls++;
      lease = await (Reflect.get(instance, 'ctx') as DurableObjectState).storage.getAlarm();
      // The cancel arrives while the step works (as an RPC would between its awaits).
      cancelInside(instance, 'the operator stopped it');
      seenCancel = ctx.cancelRequested();
      ctx.log('Information', 'the step finished its work');
      ctx.save(record);
      return { record, done: false };
    });
    const started = Date.now();
    expect(await handle.alarm()).toBe(true);
    // The next alarm was set before the step worked: an object killed mid-step resumes then.
    expect(lease).toBeGreaterThanOrEqual(started + STEP_LEASE_MS - 1_000);
    expect(lease).toBeLessThanOrEqual(Date.now() + STEP_LEASE_MS);
    expect(seenCancel).toBe(true);
    expect(await handle.alarm()).toBe(false);
    expect(calls).toBe(1);
    const { record, alarm, log } = await inside(handle, job.recordKey);
    expect(record).toMatchObject({ state: 'cancelled', endReason: 'the operator stopped it' });
    expect(alarm).toBeNull();
    const messages = log.map((l) => l.message);
    const requested = messages.findIndex((m) => m.startsWith('Cancellation requested (the operator stopped it)'));
    const worked = messages.indexOf('the step finished its work');
    const cancelled = messages.indexOf('Cancelled (the operator stopped it)');
    expect(requested).toBeGreaterThanOrEqual(0);
    expect(worked).toBeGreaterThan(requested);
    expect(cancelled).toBeGreaterThan(worked);
    expect(await handle.cancel()).toEqual({ message: expect.stringMatching(/has already been cancelled/) });
  });

  it('runs one step at a time: an alarm delivered while a step works only renews the lease', async () => {
    const handle = job.create();
    let calls = 0;
    let inFlight = 0;
    let overlapped = false;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await handle.begin(() => async (_plan, record, ctx) => {
      calls++;
      inFlight++;
      overlapped ||= inFlight > 1;
      if (calls === 1) await held;
      inFlight--;
      ctx.save(record);
      return { record, done: calls >= 2 };
    });
    const first = handle.alarm();
    // Wait until the first step is in flight, then deliver the alarm again (as a re-delivery would).
    for (let i = 0; i < 100 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(1);
    const started = Date.now();
    expect(await handle.alarm()).toBe(true);
    expect(calls).toBe(1);
    const { alarm } = await inside(handle, job.recordKey);
    expect(alarm).toBeGreaterThanOrEqual(started + STEP_LEASE_MS - 1_000);
    release();
    await first;
    // The next step's alarm is due now: the runtime may fire it on its own before the test does.
    for (let i = 0; i < 200 && (await inside(handle, job.recordKey)).record.state !== 'completed'; i++) {
      if (!(await handle.alarm())) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(overlapped).toBe(false);
    expect(calls).toBe(2);
    expect((await inside(handle, job.recordKey)).record.state).toBe('completed');
  });

  it('stops a queued job at its first boundary, with the default reason when none is given', async () => {
    const handle = job.create();
    let calls = 0;
    await handle.begin(() => async (_plan, record) => {
      calls++;
      return { record, done: false };
    });
    expect(await handle.cancel()).toEqual({ message: expect.stringMatching(/^Cancellation requested: the \w+ stops /) });
    // The cancel brings the alarm forward to now; it may fire on its own before the test fires it.
    while (await handle.alarm());
    expect(calls).toBe(0);
    const { record } = await inside(handle, job.recordKey);
    expect(record).toMatchObject({ state: 'cancelled', endReason: DEFAULT_CANCEL_REASON });
  });

  for (const end of ['completed', 'failed', 'cancelled'] as const) {
    it(`keeps no secret in its plan once ${end}`, async () => {
      const handle = job.create();
      await handle.begin((instance) => async (_plan, record) => {
        if (end === 'failed') throw refused();
        if (end === 'cancelled') cancelInside(instance, 'ended by the test');
        return { record, done: end === 'completed' };
      });
      expect(job.secretIn((await inside(handle, job.recordKey)).plan)).toBe(true);
      while (await handle.alarm());
      const { record, plan, log } = await inside(handle, job.recordKey);
      expect(record.state).toBe(end);
      if (end === 'failed') expect(record.endReason).toMatch(/refused the password \(SQLSTATE 28P01/);
      expect(job.secretIn(plan)).toBe(false);
      const progress = await handle.progress();
      for (const text of [JSON.stringify(plan), JSON.stringify(progress), JSON.stringify(log)]) expect(text).not.toContain(handle.secret);
    });
  }
});
