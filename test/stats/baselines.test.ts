import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../workers/shared/config';
import { openRacingDb, openRacingReads, racingDbConfigSchema, readRows } from '../../workers/shared/pg';
import { BASELINE_FILL_SQL, MEETING_STATS_SQL, type PersonRow } from '../../workers/stats/src/statistics';
import { TOKEN, call, recentMeeting } from './helpers';

// The price-band baselines are stored once per as-of date (meeting_stats_baselines) and forgotten
// by the racing tables' triggers when a start in their window changes.

type BandTotals = [band: number, starts: number, wins: number, places: number][];
const config = () => parseConfig(racingDbConfigSchema, env);
const stored = async (date: string) =>
  readRows<{ bands: BandTotals; computed_at: string }>(
    openRacingReads(config()),
    `select bands, computed_at::text as computed_at from meeting_stats_baselines where as_of = $1::date`,
    [date],
  );

describe('statistics baselines once per date', () => {
  it('the first meeting of a date stores them; later requests of that date reuse the same row', async () => {
    const { date, courseId } = await recentMeeting();
    const first = await call(`/meetingStats?date=${date}&courseId=${courseId}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(first.status).toBe(200);
    const [row] = await stored(date);
    expect(row).toBeDefined();
    expect(row!.bands.length).toBeGreaterThan(0);
    const again = await call(`/trainer-stats?date=${date}&courseId=${courseId}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(again.status).toBe(200);
    expect(await stored(date)).toEqual([row]);
    // The records carry the stored figures.
    const body = await first.json<{ trainers: { price_band_ivs: { baseline_wps: { starts: number; wins: number; places: number } }[] }[] }>();
    const bands = body.trainers[0]!.price_band_ivs.map((b) => b.baseline_wps);
    for (const [band, starts, wins, places] of row!.bands) expect(bands[band - 1]).toEqual({ starts, wins, places, win_pct: expect.any(Number), place_pct: expect.any(Number) });
  });

  it('a corrected result in the window changes the baseline; one outside the window does not', async () => {
    const { date, courseId } = await recentMeeting();
    const pool = openRacingDb(config()).$client;
    const client = await pool.connect();
    // All inside one transaction that is rolled back: other tests never see the correction.
    try {
      await client.query('begin');
      await client.query(BASELINE_FILL_SQL, [date]);
      const bandsOf = async () => (await client.query<{ bands: BandTotals }>(`select bands from meeting_stats_baselines where as_of = $1::date`, [date])).rows[0]?.bands;
      const before = await bandsOf();
      expect(before).toBeDefined();

      // A start in [date-365, date-1] that won at short odds (band 1): its price is corrected to 50.00 (band 6).
      const { rows: [start] } = await client.query<{ id: number }>(
        `select r.id from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
          where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial and not r.scratched
            and r.finishing_position = 1 and r.starting_price <= 2.00
          order by m.date desc, r.id limit 1`,
        [date],
      );
      expect(start).toBeDefined();
      await client.query(`update runners set starting_price = 50.00 where id = $1`, [start!.id]);
      expect(await bandsOf()).toBeUndefined();

      await client.query(BASELINE_FILL_SQL, [date]);
      const after = await bandsOf();
      const band = (bands: BandTotals | undefined, n: number) => bands?.find((b) => b[0] === n) ?? [n, 0, 0, 0];
      expect(band(after, 1)).toEqual([1, band(before, 1)[1] - 1, band(before, 1)[2] - 1, band(before, 1)[3] - 1]);
      expect(band(after, 6)).toEqual([6, band(before, 6)[1] + 1, band(before, 6)[2] + 1, band(before, 6)[3] + 1]);

      // The meeting's records read the new figures.
      const { rows } = await client.query<PersonRow>(MEETING_STATS_SQL, [date, courseId, 'all']);
      expect(rows.length).toBeGreaterThan(0);
      const sixth = rows[0]!.bands.find((b) => b[0] === 6)!;
      expect(sixth.slice(4)).toEqual(band(after, 6).slice(1));

      // A result of the as-of day itself is outside [date-365, date-1]: the stored row stays.
      await client.query(
        `update runners set finishing_position = finishing_position where id = (
           select r.id from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
            where m.date = $1::date limit 1)`,
        [date],
      );
      expect(await bandsOf()).toEqual(after);
    } finally {
      await client.query('rollback').catch(() => {});
      client.release();
      await pool.end();
    }
  });
});
