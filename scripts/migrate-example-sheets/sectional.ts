// The sectional-times example sheet: L600/L400/L200 of recent races run without sectional times, a
// few stored, a few bad rows.

import type pg from 'pg';
import { SEGMENT_SECONDS } from '../../workers/migrate/src/imports/areas.ts';
import { lastSixHundred, sectionalTimes } from '../racing/market.ts';
import { Random } from '../racing/random.ts';
import { dayCell, type ExampleSheets, hundredths, type Row, sample, SEED, tally } from './rows.ts';

type SectionalRace = { id: number; meeting_id: number; race_number: number; date: string; course: string; track_rating: number };
type SectionalRunner = { race_id: number; horse: string; tab_number: number; margin: string };

export async function buildSectional(client: pg.ClientBase, from: string, today: string): Promise<ExampleSheets['sectional']> {
  const random = new Random(SEED, 'migrate-example:sectional');
  const kinds: Record<string, number> = {};
  const rows: Row[] = [];
  const meetingUnique = `NOT EXISTS (SELECT 1 FROM meetings m2 JOIN courses c2 ON c2.id = m2.course_id
                          WHERE NOT m2.is_trial AND m2.date = m.date AND lower(c2.name) = lower(c.name) AND m2.id <> m.id)`;
  // Races of the window that have been run (results in) and have no sectional times yet.
  const untimed = (
    await client.query<SectionalRace>(
      `SELECT r.id, r.meeting_id, r.race_number, m.date::text AS date, c.name AS course, m.track_rating
       FROM races r JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id
       WHERE NOT m.is_trial AND m.date BETWEEN $1::date AND $2::date AND ${meetingUnique}
         AND EXISTS (SELECT 1 FROM runners ru WHERE ru.race_id = r.id AND ru.finishing_position IS NOT NULL)
         AND NOT EXISTS (SELECT 1 FROM runners ru JOIN sectional_times s ON s.runner_id = ru.id WHERE ru.race_id = r.id)
       ORDER BY m.date, m.id, r.race_number`,
      [from, today],
    )
  ).rows;
  if (untimed.length === 0) return { rows, summary: { rows: 0, kinds } };
  const races = sample(untimed, Math.min(4, untimed.length), random);
  const runners = (
    await client.query<SectionalRunner>(
      `SELECT ru.race_id, h.name AS horse, ru.tab_number, ru.margin::text AS margin
       FROM runners ru JOIN horses h ON h.id = ru.horse_id
       WHERE ru.race_id = ANY($1::int[]) AND NOT ru.scratched AND ru.margin IS NOT NULL
         AND (SELECT count(*) FROM runners o JOIN horses oh ON oh.id = o.horse_id WHERE o.race_id = ru.race_id AND lower(oh.name) = lower(h.name)) = 1
       ORDER BY ru.race_id, ru.finishing_position, ru.tab_number`,
      [races.map((r) => r.id)],
    )
  ).rows;
  for (const race of races) {
    // The generator's sectionals(): the race's last 600 m by the going, each runner's by its margin.
    const lastSix = lastSixHundred(random, Number(race.track_rating));
    for (const runner of runners.filter((r) => r.race_id === race.id)) {
      for (const [segment, time] of sectionalTimes(random, lastSix, Number(runner.margin))) {
        rows.push([
          dayCell(race.date),
          race.course,
          Number(race.race_number),
          runner.horse,
          Number(runner.tab_number),
          segment,
          hundredths(time),
        ]);
        tally(kinds, 'new');
      }
    }
  }

  // Times already stored, exactly as they are: one runner's three segments.
  const stored = (
    await client.query<{
      date: string;
      course: string;
      race_number: number;
      horse: string;
      tab_number: number;
      segment: string;
      time_seconds: string;
      runner_id: number;
    }>(
      `SELECT m.date::text AS date, c.name AS course, r.race_number, h.name AS horse, ru.tab_number, s.segment, s.time_seconds::text AS time_seconds, ru.id AS runner_id
       FROM sectional_times s JOIN runners ru ON ru.id = s.runner_id JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id
       JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = ru.horse_id
       WHERE NOT m.is_trial AND m.date BETWEEN $1::date AND $2::date AND ${meetingUnique} AND NOT ru.scratched
         AND (SELECT count(*) FROM sectional_times o WHERE o.runner_id = s.runner_id AND o.segment = s.segment) = 1
         AND (SELECT count(*) FROM runners o JOIN horses oh ON oh.id = o.horse_id WHERE o.race_id = ru.race_id AND lower(oh.name) = lower(h.name)) = 1
       ORDER BY ru.id, s.segment DESC
       LIMIT 300`,
      [from, today],
    )
  ).rows;
  const storedRunners = [...new Set(stored.map((s) => s.runner_id))];
  if (storedRunners.length) {
    const runnerId = storedRunners[random.int(0, storedRunners.length - 1)];
    for (const s of stored.filter((x) => x.runner_id === runnerId)) {
      rows.push([dayCell(s.date), s.course, Number(s.race_number), s.horse, Number(s.tab_number), s.segment, Number(s.time_seconds)]);
      tally(kinds, 'existing (unchanged)');
    }
  }

  const first = rows[0];
  const race = races[0]!;
  if (first) {
    // A horse that ran that window, but not in this race.
    const other = runners.find(
      (r) => r.race_id !== race.id && !runners.some((x) => x.race_id === race.id && x.horse.toLowerCase() === r.horse.toLowerCase()),
    );
    const outsider =
      other?.horse ??
      (
        await client.query<{ name: string }>(
          `SELECT h.name FROM horses h WHERE NOT EXISTS (SELECT 1 FROM runners ru WHERE ru.race_id = $1 AND ru.horse_id = h.id) ORDER BY h.id LIMIT 1`,
          [race.id],
        )
      ).rows[0]?.name ??
      'Quillon Starwhisper';
    rows.push([first[0]!, first[1]!, first[2]!, outsider, 14, 'L600', 35.12]);
    tally(kinds, 'unknown horse');
    const last = await client.query<{ n: number }>('SELECT max(race_number)::int AS n FROM races WHERE meeting_id = $1', [race.meeting_id]);
    rows.push([first[0]!, first[1]!, Math.min(30, Number(last.rows[0]?.n ?? 10) + 1), first[3]!, first[4]!, 'L600', 34.9]);
    tally(kinds, 'unknown race');
    const [lo, hi] = SEGMENT_SECONDS.L200!;
    rows.push([first[0]!, first[1]!, first[2]!, first[3]!, first[4]!, 'L200', hundredths(hi + (hi - lo) * 0.7)]);
    tally(kinds, 'bad time');
    rows.push([first[0]!, first[1]!, first[2]!, first[3]!, first[4]!, 'L900', 52.4]);
    tally(kinds, 'bad segment');
    rows.push([...first]);
    tally(kinds, 'duplicate');
  }
  return { rows, summary: { rows: rows.length, kinds } };
}
