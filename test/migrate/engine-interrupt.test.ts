import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyChunk } from '../../workers/migrate/src/engine/copy';
import { type CursorRow, openCursors } from '../../workers/migrate/src/engine/cursors';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { readCopyPage } from '../../workers/migrate/src/engine/pages';
import { prepareTables } from '../../workers/migrate/src/engine/prepare';
import { runStep } from '../../workers/migrate/src/engine/run';
import type { RunPlan } from '../../workers/migrate/src/engine/types';
import {
  InjectedFault,
  type CopyTest,
  type TestDestination,
  closeCopyTest,
  copyAll,
  copyAllPipelined,
  count,
  cutPipelinedAtEveryStatement,
  expectExactlyOnce as expectCopiedOnce,
  faulty,
  legacyPlans,
  one,
  runPlan,
  openCopyTest,
  openRacing,
} from './engine-support';
import { rowsAs } from './rows-as';

// A run cut off between any two statements — before a statement reaches the database, or after
// the database ran it but before its answer came back (a COMMIT included) — and then resumed from
// what the destination committed ends with every source row in the destination exactly once.

const TABLES = ['courses', 'meetings', 'races'];
let source: Sql;
let dest: Sql;
let target: TestDestination;
let sourceCounts: Record<string, number>;
let test: CopyTest;

beforeAll(async () => {
  test = await openCopyTest('interrupt', [
    ['venue', 'courses'],
    ['race_meeting', 'meetings'],
    ['race_event', 'races'],
  ]);
  ({ source, dest, target, sourceCounts } = test);
}, 60_000);
afterAll(() => closeCopyTest(test));

async function freshPlan(): Promise<RunPlan> {
  await dest.query(`TRUNCATE ${TABLES.map((t) => `"${target.name(t)}"`).join(', ')} RESTART IDENTITY`);
  const plans = await legacyPlans(dest, target, ['venue', 'race_meeting', 'race_event']);
  return runPlan(plans, { chunkSize: 100 });
}

/** Every source row once: counts, one mapping per source row, no natural-key duplicates, checksums equal. */
async function expectExactlyOnce(plan: RunPlan) {
  await expectCopiedOnce(source, dest, target, plan, sourceCounts);
  const { dupes } = await one(
    rowsAs<{ dupes: number }>(
      dest,
      `SELECT count(*)::int AS dupes FROM (SELECT meeting_id, race_number FROM "${target.name('races')}" GROUP BY 1, 2 HAVING count(*) > 1) d`,
    ),
  );
  expect(dupes).toBe(0);
}

describe('interrupted runs resume exactly once', () => {
  it('an uninterrupted run, counted statement by statement', async () => {
    const plan = await freshPlan();
    const counter = faulty(dest, Number.POSITIVE_INFINITY);
    await copyAll(source, counter.sql, plan);
    // Preparation, cursors and totals, then one statement per chunk: every one of them is cut below.
    expect(counter.statements()).toBeGreaterThan(10);
    await expectExactlyOnce(plan);
  }, 60_000);

  it('a destination connection dropped at every statement, before or after the database ran it', async () => {
    const reference = await freshPlan();
    const counter = faulty(dest, Number.POSITIVE_INFINITY);
    await copyAll(source, counter.sql, reference);
    const statements = counter.statements();
    for (const mode of ['before', 'after'] as const) {
      for (let at = 1; at <= statements; at++) {
        const plan = await freshPlan();
        const broken = faulty(dest, at, mode);
        await expect(copyAll(source, broken.sql, plan), `${mode} statement ${at}`).rejects.toBeInstanceOf(InjectedFault);
        // The object wakes with nothing but the plan: everything else comes from the destination.
        await copyAll(source, dest, plan);
        await expectExactlyOnce(plan);
      }
    }
  }, 600_000);

  it('two chunks in flight (the Durable Object pipeline), the destination dropped at every statement, before or after', async () => {
    await cutPipelinedAtEveryStatement(source, dest, {
      fresh: freshPlan,
      // Resumed by a new object (one chunk at a time or pipelined again, alternately).
      resume: (plan, at) => (at % 2 ? copyAll(source, dest, plan) : copyAllPipelined(source, dest, plan)),
      check: expectExactlyOnce,
    });
  }, 600_000);

  it('a successor launched before its predecessor commits waits for it: stale when the predecessor rolls back, committed after it when it commits', async () => {
    const plan = await freshPlan();
    const tables = await prepareTables(source, dest, plan);
    await openCursors(dest, plan);
    const courses = tables[0]!;
    // The second chunk starts at the first page's last key, the cursor its predecessor will leave.
    const { last } = await readCopyPage(source, courses, null, 100);
    const other = openRacing();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      for (const outcome of ['rolls back', 'commits'] as const) {
        let successor: Promise<unknown> | undefined;
        const predecessor = dest.transaction(async (tx) => {
          expect((await copyChunk(source, tx, plan, courses, null, 100)).status).toBe('advanced');
          // The predecessor holds the cursor row; the successor does its work and waits on it.
          successor = copyChunk(source, other, plan, courses, last, 100);
          await sleep(300);
          if (outcome === 'rolls back') throw new Error('predecessor lost');
        });
        if (outcome === 'rolls back') {
          await expect(predecessor).rejects.toThrow('predecessor lost');
          expect(await successor).toEqual({ status: 'stale' });
          expect(await count(dest, target.name('courses'))).toBe(0);
        } else {
          await predecessor;
          expect(await successor).toMatchObject({ status: 'advanced' });
        }
      }
    } finally {
      await other.end();
    }
    await copyAll(source, dest, plan);
    await expectExactlyOnce(plan);
  }, 60_000);

  it('a source connection dropped at every read', async () => {
    for (let at = 1; at <= 12; at++) {
      const plan = await freshPlan();
      const broken = faulty(source, at, 'before');
      await expect(copyAll(broken.sql, dest, plan)).rejects.toBeInstanceOf(InjectedFault);
      await copyAll(source, dest, plan);
      await expectExactlyOnce(plan);
    }
  }, 300_000);

  it('a chunk replayed from an older cursor (a reset object) changes nothing and reports stale', async () => {
    const plan = await freshPlan();
    const tables = await prepareTables(source, dest, plan);
    const cursors: CursorRow[] = await openCursors(dest, plan);
    const first = await runStep(source, dest, plan, tables, cursors);
    expect(first.kind === 'chunk' && first.result.status).toBe('advanced');
    const before = await count(dest, target.name('courses'));
    // Replay the same chunk from the cursor it started from.
    const replay = await copyChunk(source, dest, plan, tables[0]!, null, 100);
    expect(replay).toEqual({ status: 'stale' });
    expect(await count(dest, target.name('courses'))).toBe(before);
    await copyAll(source, dest, plan);
    await expectExactlyOnce(plan);
  }, 60_000);

  it('two workers racing on the same chunk: one commits, the other is stale', async () => {
    const plan = await freshPlan();
    const tables = await prepareTables(source, dest, plan);
    await openCursors(dest, plan);
    const other = openRacing();
    try {
      const results = await Promise.all([
        copyChunk(source, dest, plan, tables[0]!, null, 100),
        copyChunk(source, other, plan, tables[0]!, null, 100),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['advanced', 'stale']);
    } finally {
      await other.end();
    }
    await copyAll(source, dest, plan);
    await expectExactlyOnce(plan);
  }, 60_000);
});
