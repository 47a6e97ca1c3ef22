import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, expectedStatistics, readRaw, type Raw } from './raw-racing';

const auth = { headers: { Authorization: `Bearer ${env.STATIC_API_TOKEN}` } };
const get = (path: string) => exports.default.fetch(`http://stats${path}`, auth);
const byId = <T extends { id: number }>(records: T[]) => new Map(records.map((r) => [r.id, r]));

let raw: Raw;
beforeAll(async () => {
  raw = await readRaw();
});

/** Race meetings with runners on a date, from the raw rows. */
function meetingsOn(date: string) {
  const withRunners = new Set(
    raw.runners.filter((r) => !r.scratched).map((r) => raw.races.find((race) => race.id === r.race_id)!.meeting_id),
  );
  return raw.meetings.filter((m) => m.date === date && !m.is_trial && withRunners.has(m.id));
}

function nearestDateWithMeetings(offset: number): string {
  for (let step = 0; step < 5; step++) {
    for (const date of [addDays(env.RACING_TODAY, offset - step), addDays(env.RACING_TODAY, offset + step)]) {
      if (meetingsOn(date).length > 0) return date;
    }
  }
  throw new Error(`no meetings near ${offset} days from today`);
}

describe('statistics of a generated meeting, against an independent computation from the raw rows', () => {
  // Meetings with results (their own must not count), today's acceptances, and the last day of
  // acceptances (so the 30-day window starts inside the data). Each is the nearest day with meetings.
  const offsets = [-7, -2, 0, 3];

  it.each(offsets)('every meeting about %i days from today: /meetingStats equals the expected records', async (offset) => {
    const date = nearestDateWithMeetings(offset);
    const meetings = meetingsOn(date);
    expect(meetings.length).toBeGreaterThan(0);
    for (const meeting of meetings) {
      const expected = expectedStatistics(raw, date, meeting.course_id);
      const res = await get(`/meetingStats?date=${date}&courseId=${meeting.course_id}`);
      expect(res.status).toBe(200);
      const body = await res.json<{ status: string; meeting: unknown; trainers: { id: number }[]; jockeys: { id: number }[] }>();
      expect(body.status).toBe('success');
      expect(body.meeting).toEqual(expected.meeting);
      expect(body.trainers.length).toBe(expected.trainers.length);
      expect(body.jockeys.length).toBe(expected.jockeys.length);
      expect(byId(body.trainers)).toEqual(byId(expected.trainers));
      expect(byId(body.jockeys)).toEqual(byId(expected.jockeys));
    }
  });

  it('the kebab-case routes return the same records as bare arrays, by courseId or courseName', async () => {
    const date = nearestDateWithMeetings(-2);
    const [meeting] = meetingsOn(date);
    const expected = expectedStatistics(raw, date, meeting!.course_id);
    const trainers = await (await get(`/trainer-stats?date=${date}&courseId=${meeting!.course_id}`)).json<{ id: number }[]>();
    const name = encodeURIComponent(expected.meeting.course.toUpperCase());
    const jockeys = await (await get(`/jockey-stats?date=${date}&courseName=${name}`)).json<{ id: number }[]>();
    expect(byId(trainers)).toEqual(byId(expected.trainers));
    expect(byId(jockeys)).toEqual(byId(expected.jockeys));
  });

  it('the data exercises the rules: wins, places, every band, IVs, top horses, dead heats', async () => {
    const all = [0, 1, 2, 3].flatMap((offset) => {
      const date = addDays(env.RACING_TODAY, offset);
      return meetingsOn(date).flatMap((m) => {
        const e = expectedStatistics(raw, date, m.course_id);
        return [...e.trainers, ...e.jockeys];
      });
    });
    expect(all.some((r) => r.performance_365d.wins > 0)).toBe(true);
    expect(all.some((r) => r.top_horses.length > 0)).toBe(true);
    expect(all.some((r) => r.price_band_ivs.some((b) => b.iv !== null && b.iv > 0))).toBe(true);
    expect(all.some((r) => r.price_band_ivs.some((b) => b.trainer_wps.places > b.trainer_wps.wins))).toBe(true);
    // Dead heats: a race with two winners exists in the data, and both count as wins.
    const winners = new Map<number, number>();
    for (const r of raw.runners) if (r.finishing_position === 1) winners.set(r.race_id, (winners.get(r.race_id) ?? 0) + 1);
    expect([...winners.values()].some((n) => n === 2)).toBe(true);
  });

  it('people with no history get zero counts, null averages and no IVs', async () => {
    const date = nearestDateWithMeetings(-27);
    const meetings = meetingsOn(date);
    const res = await get(`/meetingStats?date=${date}&courseId=${meetings[0]!.course_id}`);
    const body = await res.json<{
      trainers: {
        performance_365d: { starts: number };
        avg_finishing_pos: number | null;
        last_win_date: string | null;
        price_band_ivs: { iv: number | null }[];
      }[];
    }>();
    const fresh = body.trainers.filter((t) => t.performance_365d.starts === 0);
    expect(fresh.length).toBeGreaterThan(0);
    for (const t of fresh) {
      expect(t.avg_finishing_pos).toBeNull();
      expect(t.last_win_date).toBeNull();
      expect(t.price_band_ivs.every((b) => b.iv === null)).toBe(true);
    }
  });
});
