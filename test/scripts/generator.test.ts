import { createHash } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { collectRacing } from '../../scripts/racing/generate';
import { racingDatasetInfo } from '../../scripts/racing/load';
import type { RacingRows } from '../../scripts/racing/tables';

const TODAY = '2026-11-23';
const digest = (rows: RacingRows) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

/** Figures computed straight from the rows, independently of the generator's own bookkeeping. */
function profile(data: RacingRows, today: string) {
  const meetingById = new Map(data.meetings.map((m) => [m.id, m]));
  const runnersByRace = new Map<number, RacingRows['runners']>();
  for (const runner of data.runners) runnersByRace.set(runner.raceId, [...(runnersByRace.get(runner.raceId) ?? []), runner]);
  let resultRaces = 0;
  let declared = 0;
  let scratched = 0;
  let favouriteWins = 0;
  let deadHeats = 0;
  let racesWithoutOneWinner = 0;
  let futureRunnersWithResults = 0;
  for (const race of data.races) {
    const field = runnersByRace.get(race.id) ?? [];
    const meeting = meetingById.get(race.meetingId)!;
    if (meeting.date >= today) {
      futureRunnersWithResults += field.filter((r) => r.finishingPosition !== null || r.startingPrice !== null).length;
      continue;
    }
    resultRaces++;
    declared += field.length;
    scratched += field.filter((r) => r.scratched).length;
    const starters = field.filter((r) => !r.scratched);
    const winners = starters.filter((r) => r.finishingPosition === 1);
    if (winners.length === 2) deadHeats++;
    else if (winners.length !== 1) racesWithoutOneWinner++;
    const favouritePrice = Math.min(...starters.map((r) => r.startingPrice ?? Infinity));
    if (winners.some((w) => w.startingPrice === favouritePrice)) favouriteWins++;
  }
  return {
    resultRaces,
    declared,
    averageField: declared / resultRaces,
    scratchedShare: scratched / declared,
    favouriteStrikeRate: favouriteWins / resultRaces,
    deadHeatShare: deadHeats / resultRaces,
    racesWithoutOneWinner,
    futureRunnersWithResults,
    trialMeetingsWithRaces: data.races.filter((r) => meetingById.get(r.meetingId)?.isTrial).length,
    trialRunsAtRaceMeetings: data.trial_runs.filter((t) => !meetingById.get(t.meetingId)?.isTrial).length,
    meetingsToday: data.meetings.filter((m) => m.date === today && !m.isTrial).length,
  };
}

describe('racing data generator', () => {
  it('gives the same rows for the same seed and anchor, other rows for another seed or anchor', () => {
    const first = digest(collectRacing({ size: 'tiny', today: TODAY }));
    expect(digest(collectRacing({ size: 'tiny', today: TODAY }))).toBe(first);
    expect(digest(collectRacing({ size: 'tiny', today: TODAY, seed: 2 }))).not.toBe(first);
    expect(digest(collectRacing({ size: 'tiny', today: '2026-11-24' }))).not.toBe(first);
  });

  it.each(['tiny', 'demo'] as const)('%s: holds the racing distributions', (size) => {
    const figures = profile(collectRacing({ size, today: TODAY }), TODAY);
    expect(figures.averageField).toBeGreaterThan(8);
    expect(figures.averageField).toBeLessThan(11);
    expect(figures.scratchedShare).toBeGreaterThan(0.15);
    expect(figures.scratchedShare).toBeLessThan(0.25);
    expect(figures.favouriteStrikeRate).toBeGreaterThan(size === 'tiny' ? 0.25 : 0.3);
    expect(figures.favouriteStrikeRate).toBeLessThan(size === 'tiny' ? 0.45 : 0.4);
    expect(figures.deadHeatShare).toBeLessThan(0.02);
    expect(figures.racesWithoutOneWinner).toBe(0);
  });

  it('keeps results in the past, acceptances from today on, and trials apart from races', () => {
    const data = collectRacing({ size: 'tiny', today: TODAY });
    const figures = profile(data, TODAY);
    expect(figures.meetingsToday).toBeGreaterThan(0);
    expect(figures.futureRunnersWithResults).toBe(0);
    expect(figures.trialMeetingsWithRaces).toBe(0);
    expect(figures.trialRunsAtRaceMeetings).toBe(0);
    expect(data.trial_runs.length).toBeGreaterThan(0);
    expect(data.sales.length).toBeGreaterThan(0);
    expect(data.sectional_times.length).toBeGreaterThan(0);
  });

  it('bench: one year is national scale (≈ 2,600 meetings, 19,500 races, 185k declared runners)', () => {
    const year = collectRacing({ size: 'bench', today: TODAY, historyDays: 365 });
    const figures = profile(year, TODAY);
    const raceMeetings = year.meetings.filter((m) => !m.isTrial && m.date < TODAY).length;
    expect(raceMeetings).toBeGreaterThan(2_300);
    expect(raceMeetings).toBeLessThan(2_900);
    expect(figures.resultRaces).toBeGreaterThan(17_500);
    expect(figures.resultRaces).toBeLessThan(21_500);
    expect(figures.declared).toBeGreaterThan(165_000);
    expect(figures.declared).toBeLessThan(215_000);
  });
});

describe('racing data in the test database', () => {
  it('holds exactly the tiny rows the global setup generated', async () => {
    const client = new pg.Client({ connectionString: inject('racingDatabaseUrl') });
    await client.connect();
    try {
      const today = inject('racingToday');
      const expected = collectRacing({ size: 'tiny', today });
      for (const table of ['meetings', 'races', 'runners', 'trial_runs', 'sales'] as const) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
        expect(Number(rows[0]?.n), table).toBe(expected[table].length);
      }
      expect(await racingDatasetInfo(client)).toEqual({ size: 'tiny', seed: 1, today });
    } finally {
      await client.end();
    }
  });
});
