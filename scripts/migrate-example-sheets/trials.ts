// The barrier-trials example sheet: new heats at recent trial meetings, a few runs already stored,
// a few bad rows.

import type pg from 'pg';
import type { SheetCell } from '../../workers/migrate/src/imports/sheet/index.ts';
import { runRace } from '../racing/market.ts';
import { Random } from '../racing/random.ts';
import { dayCell, type ExampleSheets, hundredths, type Row, sample, SEED, tally, winningTime } from './rows.ts';

// Names that are unique (any case) in their table, so a sheet's name finds exactly one row.
const UNIQUE_NAMES = `
  unique_horses AS (SELECT lower(name) AS name FROM horses GROUP BY 1 HAVING count(*) = 1),
  unique_trainers AS (SELECT lower(name) AS name FROM trainers GROUP BY 1 HAVING count(*) = 1),
  unique_jockeys AS (SELECT lower(name) AS name FROM jockeys GROUP BY 1 HAVING count(*) = 1)`;

type TrialMeeting = {
  id: number;
  date: string;
  course: string;
  course_id: number;
  track_rating: number;
  last_heat: number;
  country: string;
  state: string | null;
};
type Candidate = { horse: string; trainer: string; jockey: string | null };

export async function buildTrials(client: pg.ClientBase, from: string, today: string): Promise<ExampleSheets['trials']> {
  const random = new Random(SEED, 'migrate-example:barrier-trials');
  const kinds: Record<string, number> = {};
  const rows: Row[] = [];
  // Trial meetings of the window whose course name and day find exactly one trial meeting.
  const meetings = (
    await client.query<TrialMeeting>(
      `SELECT m.id, m.date::text AS date, c.name AS course, c.id AS course_id, m.track_rating, c.country, c.state,
              (SELECT coalesce(max(t.heat_number), 0) FROM trial_runs t WHERE t.meeting_id = m.id)::int AS last_heat
       FROM meetings m JOIN courses c ON c.id = m.course_id
       WHERE m.is_trial AND m.date BETWEEN $1::date AND $2::date
         AND NOT EXISTS (SELECT 1 FROM meetings m2 JOIN courses c2 ON c2.id = m2.course_id
                         WHERE m2.is_trial AND m2.date = m.date AND lower(c2.name) = lower(c.name) AND m2.id <> m.id)
       ORDER BY m.date, m.id`,
      [from, today],
    )
  ).rows;
  if (meetings.length === 0) return { rows, summary: { rows: 0, kinds } };
  const chosen = sample(meetings, Math.min(4, meetings.length), random);

  for (const meeting of chosen) {
    // Horses that raced in the meeting's state (or country) in the two months before it, with the
    // trainer and jockey of their latest run; none of them already at this meeting.
    const candidates = (
      await client.query<Candidate>(
        `WITH ${UNIQUE_NAMES},
         recent AS (
           SELECT DISTINCT ON (ru.horse_id) ru.horse_id, ru.trainer_id, ru.jockey_id
           FROM runners ru JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id
           WHERE m.date BETWEEN $2::date - 60 AND $2::date - 1 AND c.country = $3 AND c.state IS NOT DISTINCT FROM $4
           ORDER BY ru.horse_id, m.date DESC, ru.id DESC)
         SELECT h.name AS horse, t.name AS trainer, j.name AS jockey
         FROM recent x JOIN horses h ON h.id = x.horse_id JOIN trainers t ON t.id = x.trainer_id JOIN jockeys j ON j.id = x.jockey_id
         WHERE lower(h.name) IN (SELECT name FROM unique_horses) AND lower(t.name) IN (SELECT name FROM unique_trainers)
           AND lower(j.name) IN (SELECT name FROM unique_jockeys)
           AND NOT EXISTS (SELECT 1 FROM trial_runs tr WHERE tr.meeting_id = $1 AND tr.horse_id = x.horse_id)
         ORDER BY x.horse_id
         LIMIT 400`,
        [meeting.id, meeting.date, meeting.country, meeting.state],
      )
    ).rows;
    const heats = random.int(1, 2);
    const pool = random.shuffle([...candidates]);
    for (let h = 1; h <= heats && pool.length >= 4; h++) {
      const heatNumber = meeting.last_heat + h;
      const distance = random.pick([800, 850, 900, 950, 1000, 1000, 1050, 1100]);
      const size = Math.min(random.int(4, 8), pool.length);
      const field = pool.splice(0, size);
      const strengths = field.map(() => random.normal(0, 0.8));
      const trackRating = Math.min(Number(meeting.track_rating), 6);
      const winnerTime = winningTime(distance, trackRating, random) * 1.02;
      const barriers = random.shuffle(field.map((_, i) => i + 1));
      for (const { starter, position, margin } of runRace(strengths, random, 2.2)) {
        const runner = field[starter]!;
        rows.push([
          dayCell(meeting.date),
          meeting.course,
          heatNumber,
          distance,
          runner.horse,
          runner.jockey,
          runner.trainer,
          barriers[starter]!,
          position,
          margin,
          hundredths(winnerTime + margin * 0.17),
        ]);
        tally(kinds, 'new');
      }
    }
  }
  const firstNew = rows[0];

  // Runs already stored, exactly as they are: importing them changes nothing.
  const existing = (
    await client.query<{
      date: string;
      course: string;
      heat_number: number;
      distance: number;
      horse: string;
      jockey: string | null;
      trainer: string;
      barrier: number;
      finishing_position: number;
      margin: string;
      time_seconds: string;
    }>(
      `WITH ${UNIQUE_NAMES}
       SELECT m.date::text AS date, c.name AS course, tr.heat_number, tr.distance, h.name AS horse, j.name AS jockey, t.name AS trainer,
              tr.barrier, tr.finishing_position, tr.margin::text AS margin, tr.time_seconds::text AS time_seconds
       FROM trial_runs tr JOIN meetings m ON m.id = tr.meeting_id JOIN courses c ON c.id = m.course_id
       JOIN horses h ON h.id = tr.horse_id JOIN trainers t ON t.id = tr.trainer_id LEFT JOIN jockeys j ON j.id = tr.jockey_id
       WHERE tr.meeting_id = ANY($1::int[])
         AND lower(h.name) IN (SELECT name FROM unique_horses) AND lower(t.name) IN (SELECT name FROM unique_trainers)
         AND (j.id IS NULL OR lower(j.name) IN (SELECT name FROM unique_jockeys))
         AND (SELECT count(*) FROM trial_runs o WHERE o.meeting_id = tr.meeting_id AND o.heat_number = tr.heat_number AND o.horse_id = tr.horse_id) = 1
       ORDER BY tr.id`,
      [chosen.map((m) => m.id)],
    )
  ).rows;
  for (const run of sample(existing, Math.min(4, existing.length), random)) {
    rows.push([
      dayCell(run.date),
      run.course,
      run.heat_number,
      run.distance,
      run.horse,
      run.jockey,
      run.trainer,
      run.barrier,
      run.finishing_position,
      Number(run.margin),
      Number(run.time_seconds),
    ]);
    tally(kinds, 'existing (unchanged)');
  }

  if (firstNew) {
    const base = (horse: SheetCell, time: SheetCell, course: SheetCell = firstNew[1] as string, heat = Number(firstNew[2]) + 10): Row => [
      firstNew[0]!,
      course,
      heat,
      firstNew[3]!,
      horse,
      firstNew[5]!,
      firstNew[6]!,
      3,
      2,
      1.5,
      time,
    ];
    const meeting = chosen[0]!;
    // A horse name the database does not have.
    let unknown = 'Quillon Starwhisper';
    for (let n = 2; (await client.query('SELECT 1 FROM horses WHERE lower(name) = lower($1)', [unknown])).rowCount; n++)
      unknown = `Quillon Starwhisper ${n}`;
    rows.push(base(unknown, Number(firstNew[10]) + 0.26));
    tally(kinds, 'unknown horse');
    // A course with no barrier-trial meeting that day (a race meeting's course, when there is one).
    const noTrial = await client.query<{ name: string }>(
      `SELECT c.name FROM courses c
       WHERE NOT EXISTS (SELECT 1 FROM meetings m JOIN courses c2 ON c2.id = m.course_id WHERE m.is_trial AND m.date = $1::date AND lower(c2.name) = lower(c.name))
       ORDER BY (SELECT count(*) FROM meetings m WHERE m.course_id = c.id AND m.date = $1::date) DESC, c.id LIMIT 1`,
      [meeting.date],
    );
    if (noTrial.rows[0]) {
      rows.push([dayCell(meeting.date), noTrial.rows[0].name, 1, 1000, firstNew[4]!, firstNew[5]!, firstNew[6]!, 2, 1, 0, 59.84]);
      tally(kinds, 'unknown meeting');
    }
    rows.push(base(firstNew[4] as string, 'fast', undefined, Number(firstNew[2]) + 11));
    rows.push(base(firstNew[4] as string, 5, undefined, Number(firstNew[2]) + 12));
    tally(kinds, 'bad time', 2);
    // The first new run again: the same heat and horse.
    rows.push([...firstNew]);
    tally(kinds, 'duplicate');
  }
  return { rows, summary: { rows: rows.length, kinds } };
}
