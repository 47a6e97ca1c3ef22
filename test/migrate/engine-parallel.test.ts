import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { parallelTablesOf } from '../../workers/migrate/src/engine/parallel';
import type { RunPlan } from '../../workers/migrate/src/engine/types';
import {
  type CopyTest,
  type TestDestination,
  closeCopyTest,
  copyAll,
  copyAllPipelined,
  cutPipelinedAtEveryStatement,
  expectExactlyOnce as expectCopiedOnce,
  legacyPlans,
  runPlan,
  openCopyTest,
} from './engine-support';

// Tables in parallel: tables with no foreign key path between them (courses, trainers, jockeys)
// copy at the same time, up to the run's limit; meetings, whose venue is translated through the
// courses' mappings, waits until the courses' copy is committed. A parallel run cut off at any
// statement and resumed ends with every source row once.

const SOURCES: [legacy: string, racing: string][] = [
  ['venue', 'courses'],
  ['trainer', 'trainers'],
  ['jockey', 'jockeys'],
  ['race_meeting', 'meetings'],
];
const TABLES = SOURCES.map(([, racing]) => racing);
const CHUNK = 40;
let source: Sql;
let dest: Sql;
let target: TestDestination;
let sourceCounts: Record<string, number>;
let test: CopyTest;

beforeAll(async () => {
  test = await openCopyTest('parallel', SOURCES);
  ({ source, dest, target, sourceCounts } = test);
}, 60_000);
afterAll(() => closeCopyTest(test));

async function freshPlan(options: Partial<RunPlan> = {}, legacy = SOURCES.map(([table]) => table)): Promise<RunPlan> {
  await dest.query(`TRUNCATE ${TABLES.map((t) => `"${target.name(t)}"`).join(', ')} RESTART IDENTITY CASCADE`);
  return runPlan(await legacyPlans(dest, target, legacy), { chunkSize: CHUNK, parallelTables: 4, ...options });
}

/** A chunk statement's life on the destination: the order its start and its end were seen in. */
type ChunkSpan = { table: string; start: number; end: number | null };

/** The destination with every chunk statement (it advances a copy cursor) recorded as it starts and ends. */
function watched(inner: Sql): { sql: Sql; spans: ChunkSpan[] } {
  const spans: ChunkSpan[] = [];
  let clock = 0;
  const sql: Sql = {
    query: async (text, values) => {
      const chunk = /UPDATE migration_run_cursors/.test(text) && typeof values?.[1] === 'string';
      const span: ChunkSpan | null = chunk ? { table: values![1] as string, start: ++clock, end: null } : null;
      if (span) spans.push(span);
      try {
        return await inner.query(text, values);
      } finally {
        if (span) span.end = ++clock;
      }
    },
    queryAndCommit: (text) => inner.queryAndCommit(text),
    copyOut: (text, options) => inner.copyOut(text, options),
    copyIn: (text, rows, options) => inner.copyIn(text, rows, options),
    transaction: (work, options) => inner.transaction(work, options),
    end: () => inner.end(),
  };
  return { sql, spans };
}

/** The most distinct tables whose chunk statements were in flight at one moment. */
function widest(spans: ChunkSpan[]): number {
  let most = 0;
  for (const span of spans) {
    const open = spans.filter((s) => s.start <= span.start && (s.end ?? Number.POSITIVE_INFINITY) > span.start);
    most = Math.max(most, new Set(open.map((s) => s.table)).size);
  }
  return most;
}

/** Every source row once: counts, one mapping per row, finished cursors that counted each row once, checksums equal. */
const expectExactlyOnce = (plan: RunPlan) => expectCopiedOnce(source, dest, target, plan, sourceCounts);

describe('tables in parallel', () => {
  it('the limit comes from the run settings, 1 to 4, 4 when unset', () => {
    expect(parallelTablesOf({})).toBe(4);
    expect(parallelTablesOf({ parallelTables: 2 })).toBe(2);
    expect(parallelTablesOf({ parallelTables: 0 })).toBe(1);
    expect(parallelTablesOf({ parallelTables: 99 })).toBe(4);
    expect(parallelTablesOf({ parallelTables: Number.NaN })).toBe(4);
  });

  it('independent tables have chunks in flight at the same time; meetings waits for the courses it points at', async () => {
    const plan = await freshPlan();
    // Enough chunks of each table that two tables' chunks can meet.
    for (const table of ['courses', 'trainers', 'jockeys']) expect(sourceCounts[table]!, table).toBeGreaterThan(2 * CHUNK);
    const { sql, spans } = watched(dest);
    await copyAllPipelined(source, sql, plan);
    await expectExactlyOnce(plan);
    const independent = spans.filter((s) => s.table !== target.name('meetings'));
    expect(widest(independent)).toBeGreaterThanOrEqual(2);
    const courses = spans.filter((s) => s.table === target.name('courses'));
    const meetings = spans.filter((s) => s.table === target.name('meetings'));
    expect(meetings.length).toBeGreaterThan(0);
    // Every meetings chunk starts after every courses chunk has ended (the last one committed the copy).
    const coursesEnd = Math.max(...courses.map((s) => s.end!));
    expect(Math.min(...meetings.map((s) => s.start))).toBeGreaterThan(coursesEnd);
  }, 120_000);

  it('one table at a time when the run says 1: no two tables in flight', async () => {
    const plan = await freshPlan({ parallelTables: 1 });
    const { sql, spans } = watched(dest);
    await copyAllPipelined(source, sql, plan);
    await expectExactlyOnce(plan);
    expect(widest(spans)).toBe(1);
    // Plan order, parents first: each table's chunks all end before the next table's begin.
    const order = [...new Set(spans.map((s) => s.table))];
    expect(order).toEqual(TABLES.map((t) => target.name(t)));
  }, 120_000);

  it('a parallel run cut at every destination statement, before or after the database ran it, resumes exactly once', async () => {
    // Two independent tables and a child of one of them, in bigger chunks: fewer statements to cut.
    const fresh = () => freshPlan({ chunkSize: 2 * CHUNK }, ['venue', 'trainer', 'race_meeting']);
    await cutPipelinedAtEveryStatement(source, dest, {
      fresh,
      // Resumed by a new object: in parallel again, or one chunk at a time, alternately.
      resume: (plan, at) => (at % 2 ? copyAllPipelined(source, dest, plan) : copyAll(source, dest, plan)),
      check: expectExactlyOnce,
    });
  }, 900_000);
});
