import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRacing } from '../../scripts/racing/generate';
import { loadRacing, racingDatasetInfo } from '../../scripts/racing/load';
import { RACING_TABLE_NAMES, type RacingRows } from '../../scripts/racing/tables';

const TODAY = '2026-11-23';
const digest = (rows: RacingRows) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

type Runner = RacingRows['runners'][number];

/** Figures computed straight from the rows, independently of the generator's own bookkeeping. */
function profile(data: RacingRows, today: string) {
  const meetingById = new Map(data.meetings.map((m) => [m.id, m]));
  const fieldByRace = new Map<number, Runner[]>();
  for (const runner of data.runners) {
    const field = fieldByRace.get(runner.raceId) ?? [];
    field.push(runner);
    fieldByRace.set(runner.raceId, field);
  }
  const figures = {
    resultRaces: 0,
    declared: 0,
    scratched: 0,
    favouriteWins: 0,
    deadHeats: 0,
    racesWithoutOneWinner: 0,
    badResultRows: 0,
    badFinishingOrders: 0,
    badNumbering: 0,
    resultsFromToday: 0,
  };
  for (const race of data.races) {
    const field = fieldByRace.get(race.id) ?? [];
    const tabs = field.map((r) => r.tabNumber).sort((a, b) => a - b);
    const barriers = field.map((r) => r.barrier).sort((a, b) => a - b);
    if (!tabs.every((tab, i) => tab === i + 1) || !barriers.every((b, i) => b === i + 1)) figures.badNumbering++;
    const meeting = meetingById.get(race.meetingId);
    if (!meeting || meeting.date >= today) {
      figures.resultsFromToday += field.filter((r) => r.finishingPosition !== null || r.startingPrice !== null).length;
      continue;
    }
    figures.resultRaces++;
    figures.declared += field.length;
    figures.scratched += field.filter((r) => r.scratched).length;
    figures.badResultRows += field.filter((r) =>
      r.scratched
        ? r.startingPrice !== null || r.finishingPosition !== null || r.margin !== null
        : r.startingPrice === null || r.finishingPosition === null || r.margin === null,
    ).length;
    const placed = field.filter((r) => !r.scratched).sort((a, b) => (a.finishingPosition ?? 0) - (b.finishingPosition ?? 0));
    const winners = placed.filter((r) => r.finishingPosition === 1);
    if (winners.length === 2) figures.deadHeats++;
    else if (winners.length !== 1) figures.racesWithoutOneWinner++;
    const inOrder = placed.every((r, i) => {
      const previous = placed[i - 1];
      const expectedPosition = r.finishingPosition === 1 ? 1 : i + 1;
      return (
        r.finishingPosition === expectedPosition && (r.finishingPosition === 1 ? r.margin === 0 : (r.margin ?? 0) > (previous?.margin ?? 0))
      );
    });
    if (!inOrder) figures.badFinishingOrders++;
    const favouritePrice = Math.min(...placed.map((r) => r.startingPrice ?? Infinity));
    if (winners.some((w) => w.startingPrice === favouritePrice)) figures.favouriteWins++;
  }
  return {
    ...figures,
    averageField: figures.declared / figures.resultRaces,
    scratchedShare: figures.scratched / figures.declared,
    favouriteStrikeRate: figures.favouriteWins / figures.resultRaces,
    deadHeatShare: figures.deadHeats / figures.resultRaces,
  };
}

describe('racing data generator', () => {
  const tiny = collectRacing({ size: 'tiny', today: TODAY });

  it('gives the same rows for the same seed and today, other rows for another seed or today', () => {
    const first = digest(tiny);
    expect(digest(collectRacing({ size: 'tiny', today: TODAY }))).toBe(first);
    expect(digest(collectRacing({ size: 'tiny', today: TODAY, seed: 2 }))).not.toBe(first);
    expect(digest(collectRacing({ size: 'tiny', today: '2026-11-24' }))).not.toBe(first);
  });

  it.each(['tiny', 'demo'] as const)('%s: fields, scratchings, favourites and results look like Australian racing', (size) => {
    const figures = profile(size === 'tiny' ? tiny : collectRacing({ size, today: TODAY }), TODAY);
    expect(figures.resultRaces).toBeGreaterThan(200);
    expect(figures.averageField).toBeGreaterThan(8);
    expect(figures.averageField).toBeLessThan(11);
    expect(figures.scratchedShare).toBeGreaterThan(0.15);
    expect(figures.scratchedShare).toBeLessThan(0.25);
    expect(figures.favouriteStrikeRate).toBeGreaterThan(0.3);
    expect(figures.favouriteStrikeRate).toBeLessThan(0.4);
    expect(figures.deadHeatShare).toBeLessThan(0.02);
    expect(figures.racesWithoutOneWinner).toBe(0);
    expect(figures.badResultRows).toBe(0);
    expect(figures.badFinishingOrders).toBe(0);
    expect(figures.badNumbering).toBe(0);
  });

  it('has results only before today, acceptances from today, and trials apart from races', () => {
    const figures = profile(tiny, TODAY);
    const meetingById = new Map(tiny.meetings.map((m) => [m.id, m]));
    expect(figures.resultsFromToday).toBe(0);
    expect(tiny.meetings.filter((m) => m.date === TODAY && !m.isTrial).length).toBeGreaterThan(0);
    expect(tiny.races.filter((r) => meetingById.get(r.meetingId)?.isTrial !== false)).toEqual([]);
    expect(tiny.trial_runs.filter((t) => meetingById.get(t.meetingId)?.isTrial !== true)).toEqual([]);
    expect(tiny.meetings.filter((m) => m.isTrial && m.date >= TODAY)).toEqual([]);
    expect(tiny.meetings.filter((m) => m.isTrial).length).toBeGreaterThan(0);
    expect(tiny.trial_runs.length).toBeGreaterThan(0);
    expect(tiny.sales.every((s) => s.saleDate < TODAY)).toBe(true);
    expect(tiny.sales.length).toBeGreaterThan(0);
    expect(tiny.sectional_times.length).toBeGreaterThan(0);
  });

  it('refers only to rows it generated, with unique horse names', () => {
    const ids = (rows: readonly { id: number }[]) => new Set(rows.map((r) => r.id));
    const horses = ids(tiny.horses);
    const races = ids(tiny.races);
    const runners = ids(tiny.runners);
    expect(tiny.runners.every((r) => races.has(r.raceId) && horses.has(r.horseId))).toBe(true);
    expect(tiny.sales.every((s) => horses.has(s.horseId))).toBe(true);
    expect(tiny.trial_runs.every((t) => horses.has(t.horseId))).toBe(true);
    expect(tiny.sectional_times.every((s) => runners.has(s.runnerId))).toBe(true);
    expect(new Set(tiny.horses.map((h) => h.name)).size).toBe(tiny.horses.length);
  });

  // Generating a national year is CPU-bound: seconds on a quiet machine, more on a busy one.
  it('bench: a year is national scale (≈ 2,600 meetings, 19,500 races, 185k declared runners)', () => {
    const year = collectRacing({ size: 'bench', today: TODAY, historyDays: 365 });
    const figures = profile(year, TODAY);
    const raceMeetings = year.meetings.filter((m) => !m.isTrial && m.date < TODAY).length;
    expect(raceMeetings).toBeGreaterThan(2_400);
    expect(raceMeetings).toBeLessThan(2_800);
    expect(figures.resultRaces).toBeGreaterThan(18_000);
    expect(figures.resultRaces).toBeLessThan(21_000);
    expect(figures.declared).toBeGreaterThan(170_000);
    expect(figures.declared).toBeLessThan(200_000);
    expect(figures.favouriteStrikeRate).toBeGreaterThan(0.3);
    expect(figures.favouriteStrikeRate).toBeLessThan(0.4);
  }, 60_000);
});

describe('loading into PGlite over pglite-socket', () => {
  let db: PGlite;
  let server: PGLiteSocketServer;
  let client: pg.Client;

  beforeAll(async () => {
    db = new PGlite();
    server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
    await server.start();
    client = new pg.Client({ connectionString: `postgres://postgres:postgres@${server.getServerConn()}/postgres` });
    await client.connect();
  }, 60_000);

  afterAll(async () => {
    await client?.end();
    await server?.stop();
    await db?.close();
  });

  it('loads tiny with the generated row counts and records the data set', async () => {
    expect(await racingDatasetInfo(client)).toBeNull();
    const progress: string[] = [];
    const report = await loadRacing(client, { size: 'tiny', today: TODAY }, (p) => progress.push(p.table));
    const expected = collectRacing({ size: 'tiny', today: TODAY });
    for (const table of RACING_TABLE_NAMES) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      expect(rows[0]?.n, table).toBe(expected[table].length);
      expect(report.rows[table], table).toBe(expected[table].length);
    }
    expect(progress).toContain('runners');
    expect(progress.at(-1)).toBe('analyze');
    expect(await racingDatasetInfo(client)).toMatchObject({ size: 'tiny', seed: 1, today: TODAY });
    const indexes = await client.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'runners' ORDER BY indexname",
    );
    expect(indexes.rows.map((r) => r.indexname)).toContain('runners_horse_id_idx');
    // The id sequences continue after the generated ids.
    const inserted = await client.query<{ id: number }>(
      "INSERT INTO courses (name, country, category) VALUES ('Test Park', 'AUS', 'Country') RETURNING id",
    );
    expect(inserted.rows[0]?.id).toBe(expected.courses.length + 1);
    expect((await racingDatasetInfo(client))?.missingTables).toEqual([]);
    // Data loaded before a migration added a table: the dev runner sees which tables are missing.
    await client.query('BEGIN');
    try {
      await client.query('DROP TABLE meeting_stats_days CASCADE');
      expect((await racingDatasetInfo(client))?.missingTables).toEqual(['meeting_stats_days']);
    } finally {
      await client.query('ROLLBACK');
    }
  }, 60_000);
});
