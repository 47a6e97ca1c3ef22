import { env } from 'cloudflare:workers';
import type { PoolClient } from '@neondatabase/serverless';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#shared/config.ts';
import { openRacingDb, racingDbConfigSchema } from '#shared/pg.ts';
import type { StatsRecord } from '../../workers/stats/src/schemas';
import { MEETING_STATS_SQL, type PersonRow, toRecord } from '../../workers/stats/src/statistics';
import { recentMeeting } from './helpers';
import { expectedStatistics, readRaw } from './raw-racing';

// The statistics read daily aggregates (racing migration 0004) that triggers on runners, races and
// meetings keep in step. Every case corrects the racing tables inside a transaction that is rolled
// back (other tests never see it), then holds the statement's records against the plain-JavaScript
// recomputation from the corrected raw rows, and checks that the figures did change.

const config = () => parseConfig(racingDbConfigSchema, env);
const byId = (records: StatsRecord[]) => new Map(records.map((r) => [r.id, r]));

async function inRolledBackTransaction(fn: (client: PoolClient) => Promise<void>) {
  const pool = openRacingDb(config()).$client;
  const client = await pool.connect();
  try {
    await client.query('begin');
    await fn(client);
  } finally {
    await client.query('rollback').catch(() => {});
    client.release();
    await pool.end();
  }
}

async function records(client: PoolClient, date: string, courseId: number) {
  const { rows } = await client.query<PersonRow>(MEETING_STATS_SQL, [date, courseId, 'all']);
  const of = (role: string) => rows.filter((r) => r.role === role).map(toRecord);
  return { trainers: of('trainer'), jockeys: of('jockey') };
}

/** The statement's records equal the recomputation from the raw rows as the transaction sees them. */
async function expectRecomputed(client: PoolClient, date: string, courseId: number) {
  const raw = await readRaw(async (text) => (await client.query(text)).rows);
  const expected = expectedStatistics(raw, date, courseId);
  const actual = await records(client, date, courseId);
  expect(byId(actual.trainers)).toEqual(byId(expected.trainers));
  expect(byId(actual.jockeys)).toEqual(byId(expected.jockeys));
  return actual;
}

/** A start in the meeting's window by one of its trainers: the meeting's entrants see the change. */
async function entrantStart(client: PoolClient, date: string, courseId: number, where: string) {
  const { rows } = await client.query<{ id: number; race_id: number; trainer_id: number; date: string }>(
    `select r.id, r.race_id, r.trainer_id, m.date::text as date
       from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
      where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial and not r.scratched
        and r.finishing_position is not null and ${where}
        and r.trainer_id in (select e.trainer_id from runners e join races era on era.id = e.race_id join meetings em on em.id = era.meeting_id
                              where em.date = $1::date and em.course_id = $2 and not e.scratched)
      order by m.date desc, r.id limit 1`,
    [date, courseId],
  );
  expect(rows[0], `a start where ${where}`).toBeDefined();
  return rows[0]!;
}

const trainer = (r: { trainers: StatsRecord[] }, id: number) => r.trainers.find((t) => t.id === id)!;

describe('daily aggregates kept in step with corrected results', () => {
  it("a corrected starting price moves a start between bands: the baseline and the trainer's bands change", async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      const start = await entrantStart(client, date, courseId, `r.finishing_position = 1 and r.starting_price <= 2.00`);
      const before = await records(client, date, courseId);
      await client.query(`update runners set starting_price = 50.00 where id = $1`, [start.id]);
      const after = await expectRecomputed(client, date, courseId);
      const [b1, a1] = [trainer(before, start.trainer_id).price_band_ivs[0]!, trainer(after, start.trainer_id).price_band_ivs[0]!];
      const [b6, a6] = [trainer(before, start.trainer_id).price_band_ivs[5]!, trainer(after, start.trainer_id).price_band_ivs[5]!];
      expect(a1.baseline_wps.starts).toBe(b1.baseline_wps.starts - 1);
      expect(a1.baseline_wps.wins).toBe(b1.baseline_wps.wins - 1);
      expect(a6.baseline_wps.starts).toBe(b6.baseline_wps.starts + 1);
      expect(a1.trainer_wps.wins).toBe(b1.trainer_wps.wins - 1);
      expect(a6.trainer_wps.wins).toBe(b6.trainer_wps.wins + 1);
    });
  });

  it('a winner corrected to second: wins, win% and the last win date follow', async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      const start = await entrantStart(client, date, courseId, `r.finishing_position = 1`);
      const before = await records(client, date, courseId);
      await client.query(`update runners set finishing_position = 2 where id = $1`, [start.id]);
      const after = await expectRecomputed(client, date, courseId);
      expect(trainer(after, start.trainer_id).performance_365d.wins).toBe(trainer(before, start.trainer_id).performance_365d.wins - 1);
    });
  });

  it('a runner scratched after the race: its race has one starter fewer, which can cost the others a place', async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      // A race of exactly 8 starters pays 3 places; scratching its last finisher leaves 7 (2 places).
      const {
        rows: [race],
      } = await client.query<{ race_id: number; last: number }>(
        `select r.race_id, (array_agg(r.id order by r.finishing_position desc))[1] as last
           from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
          where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial and not r.scratched and r.finishing_position is not null
          group by r.race_id having count(*) = 8 order by max(m.date) desc limit 1`,
        [date],
      );
      expect(race).toBeDefined();
      const before = await records(client, date, courseId);
      await client.query(`update runners set scratched = true, finishing_position = null, starting_price = null where id = $1`, [
        race!.last,
      ]);
      const after = await expectRecomputed(client, date, courseId);
      const places = (r: { trainers: StatsRecord[] }) => r.trainers[0]!.price_band_ivs.reduce((n, b) => n + b.baseline_wps.places, 0);
      expect(places(after)).toBeLessThan(places(before));
    });
  });

  it('a race moved to another meeting and a meeting moved to another date move their starts', async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      const start = await entrantStart(client, date, courseId, `true`);
      const before = await records(client, date, courseId);
      // The start's meeting moves past the meeting's date: outside [date-365, date-1], so its starts no longer count.
      await client.query(`update meetings set date = '2099-01-01' where id = (select meeting_id from races where id = $1)`, [
        start.race_id,
      ]);
      const moved = await expectRecomputed(client, date, courseId);
      expect(trainer(moved, start.trainer_id).performance_365d.starts).toBeLessThan(
        trainer(before, start.trainer_id).performance_365d.starts,
      );
      // It returns to its date, and its race goes to the earliest meeting of the data (another date).
      await client.query(`update meetings set date = $1::date where id = (select meeting_id from races where id = $2)`, [
        start.date,
        start.race_id,
      ]);
      await expectRecomputed(client, date, courseId);
      const {
        rows: [earliest],
      } = await client.query<{ id: number; date: string }>(
        `select id, date::text as date from meetings where not is_trial and date <> $1::date order by date, id limit 1`,
        [start.date],
      );
      await client.query(`update races set meeting_id = $1, race_number = 99 where id = $2`, [earliest!.id, start.race_id]);
      await expectRecomputed(client, date, courseId);
      const {
        rows: [day],
      } = await client.query<{ n: number }>(
        `select count(*)::int as n from meeting_stats_person_days where role = 'trainer' and person_id = $1 and date = $2::date`,
        [start.trainer_id, earliest!.date],
      );
      expect(day!.n).toBe(1);
    });
  });

  it("a result on the meeting's own date changes nothing (outside [D-365, D-1])", async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      const before = await records(client, date, courseId);
      await client.query(
        `update runners set finishing_position = 1 where id in (
           select r.id from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
            where m.date = $1::date and m.course_id = $2 and not r.scratched)`,
        [date, courseId],
      );
      expect(await records(client, date, courseId)).toEqual(before);
    });
  });

  it('the triggers leave the aggregates as a full recomputation would', async () => {
    const { date, courseId } = await recentMeeting();
    await inRolledBackTransaction(async (client) => {
      const start = await entrantStart(client, date, courseId, `true`);
      await client.query(`update runners set finishing_position = 1, starting_price = 3.00 where id = $1`, [start.id]);
      await client.query(`delete from sectional_times where runner_id in (select id from runners where race_id = $1)`, [start.race_id]);
      await client.query(`delete from runners where race_id = $1 and id <> $2`, [start.race_id, start.id]);
      const snapshot = async () => {
        const tables = ['meeting_stats_days', 'meeting_stats_person_days', 'meeting_stats_person_horses'];
        const rows = [];
        for (const table of tables) rows.push((await client.query(`select * from ${table} order by 1, 2, 3, 4`)).rows);
        return rows;
      };
      const kept = await snapshot();
      await client.query(`select meeting_stats_refresh(array(select distinct date from meetings))`);
      expect(await snapshot()).toEqual(kept);
    });
  });
});
