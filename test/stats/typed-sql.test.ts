import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCHEMA_STATEMENT, watchSql } from '../support/sql-watch';
import { call, recentMeeting, TOKEN } from './helpers';

// What the stats Worker sends to PostgreSQL: every statement goes over the driver's HTTP path
// (`POST …/sql`), which these tests watch from inside the isolate. No request sends DDL or session
// settings; and a row that does not match its statement's schema is refused as a 500, not passed on.

const auth = { Authorization: `Bearer ${TOKEN}`, 'CF-Connecting-IP': '198.51.100.77' };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('no DDL at request time', () => {
  it('recognises schema statements (the check the request paths are held to)', () => {
    for (const text of [
      'create table if not exists t (a int)',
      ' ALTER TABLE t add b int',
      'set jit = off',
      'SET LOCAL statement_timeout = 5',
      'create index if not exists i on t (a)',
      'drop table t',
      'select * into temp x from t',
      'create extension pg_trgm',
    ]) {
      expect(text).toMatch(SCHEMA_STATEMENT);
    }
    for (const text of [
      'select 1',
      'with x as (select 1) select * from x',
      'insert into meeting_stats_payloads (date) values ($1) on conflict (date) do update set a = 1',
    ]) {
      expect(text).not.toMatch(SCHEMA_STATEMENT);
    }
  });

  it('the statistics, meeting, participant and saved-payload paths send only queries and the upsert', async () => {
    const { date, courseId, course } = await recentMeeting();
    const statements = watchSql();
    const paths = [
      `/meetings?date=${date}`,
      `/meetingStats?date=${date}&courseId=${courseId}`,
      `/trainerStats?date=${date}&courseId=${courseId}`,
      `/jockey-stats?date=${date}&courseName=${encodeURIComponent(course)}`,
      `/meeting-participants?date=${date}&courseId=${courseId}`,
      `/saved-stats?date=${date}&courseId=${courseId}`,
    ];
    let stats: { trainers: unknown[]; jockeys: unknown[] } | undefined;
    for (const path of paths) {
      const res = await call(path, { headers: auth });
      expect(res.status, path).toBe(200);
      if (path.startsWith('/meetingStats')) stats = await res.json();
    }
    const save = await call('/save-stats', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ date, course_id: courseId, trainer_stats: stats!.trainers, jockey_stats: stats!.jockeys }),
    });
    expect(save.status).toBe(200);
    // Every path reached the database through the watched fetch, the save among them.
    expect(statements.length).toBeGreaterThanOrEqual(paths.length);
    expect(statements.some((s) => /insert into meeting_stats_payloads/i.test(s))).toBe(true);
    expect(statements.filter((s) => SCHEMA_STATEMENT.test(s))).toEqual([]);
  }, 30_000);
});

describe('rows off their schema', () => {
  it('a meeting list whose row has a non-numeric count answers 500 in FastAPI shape and logs the statement', async () => {
    const { date } = await recentMeeting();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    watchSql<{ results?: unknown[] } & Record<string, unknown>>((answer) => {
      // One statement: {fields, rows}; the `races` column of the first row becomes text that is no number.
      const fields = answer.fields as { name: string }[];
      const rows = answer.rows as unknown[][];
      const at = fields.findIndex((f) => f.name === 'races');
      if (at >= 0 && rows[0]) rows[0][at] = 'many';
    });
    const res = await call(`/meetings?date=${date}`, { headers: auth });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal Server Error' });
    const lines = logged.mock.calls.map((args) => String(args[0]));
    expect(lines.some((line) => line.includes('Row 0 of the meetings of a date does not match its schema: races'))).toBe(true);
  });

  it('a statistics row whose band is not a 7-tuple answers 500', async () => {
    const { date, courseId } = await recentMeeting();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    watchSql<{ results?: unknown[] } & Record<string, unknown>>((answer) => {
      // By course id the meeting and the statistics come as one batch: {results: [meeting, statistics]}.
      const stats = (answer.results as { fields: { name: string }[]; rows: unknown[][] }[] | undefined)?.[1];
      if (!stats) return;
      const at = stats.fields.findIndex((f) => f.name === 'bands');
      if (at >= 0 && stats.rows[0]) stats.rows[0][at] = '[[1, 2, 3]]';
    });
    const res = await call(`/meetingStats?date=${date}&courseId=${courseId}`, { headers: auth });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal Server Error' });
  });
});
