import { env } from 'cloudflare:workers';
import { parseConfig } from '#shared/config.ts';
import { openRacingDb, racingDbConfigSchema } from '#shared/pg.ts';

// The racing tables as plain rows (simple selects, no joins or aggregates), and the statistics
// computed from them in plain JavaScript, straight from the published rules: an independent
// account to hold the service's one SQL statement against.

export interface Raw {
  meetings: { id: number; date: string; course_id: number; is_trial: boolean }[];
  races: { id: number; meeting_id: number }[];
  runners: {
    id: number;
    race_id: number;
    horse_id: number;
    trainer_id: number;
    jockey_id: number | null;
    starting_price: number | null;
    scratched: boolean;
    finishing_position: number | null;
  }[];
  horses: Map<number, string>;
  trainers: Map<number, string>;
  jockeys: Map<number, string>;
  courses: Map<number, string>;
}

/** Runs one statement and returns its rows (a pool, or a client inside an open transaction). */
export type RawQuery = <T>(text: string) => Promise<T[]>;

export async function readRaw(query?: RawQuery): Promise<Raw> {
  if (query) return readRawWith(query);
  const db = openRacingDb(parseConfig(racingDbConfigSchema, env));
  try {
    return await readRawWith(async <T>(text: string) => (await db.$client.query(text)).rows as T[]);
  } finally {
    await db.$client.end();
  }
}

async function readRawWith(q: RawQuery): Promise<Raw> {
  // One after another: the embedded database serves every test project on a few connections.
  const meetings = await q<Raw['meetings'][number]>(`select id, date::text as date, course_id, is_trial from meetings`);
  const races = await q<Raw['races'][number]>(`select id, meeting_id from races`);
  const runners = await q<Omit<Raw['runners'][number], 'starting_price'> & { starting_price: string | null }>(
    `select id, race_id, horse_id, trainer_id, jockey_id, starting_price, scratched, finishing_position from runners`,
  );
  const horses = await q<{ id: number; name: string }>(`select id, name from horses`);
  const trainers = await q<{ id: number; name: string }>(`select id, name from trainers`);
  const jockeys = await q<{ id: number; name: string }>(`select id, name from jockeys`);
  const courses = await q<{ id: number; name: string }>(`select id, name from courses`);
  const names = (rows: { id: number; name: string }[]) => new Map(rows.map((r) => [r.id, r.name]));
  return {
    meetings,
    races,
    runners: runners.map((r) => ({ ...r, starting_price: r.starting_price === null ? null : Number(r.starting_price) })),
    horses: names(horses),
    trainers: names(trainers),
    jockeys: names(jockeys),
    courses: names(courses),
  };
}

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
/** num ÷ den to two decimals, half up, by integer quotient and remainder (the published rule). */
export function halfUp2(num: number, den: number): number {
  const scaled = num * 100;
  const quotient = Math.floor(scaled / den);
  const remainder = scaled - quotient * den;
  return (2 * remainder >= den ? quotient + 1 : quotient) / 100;
}
const pct = (part: number, whole: number) => (whole > 0 ? halfUp2(100 * part, whole) : 0);
const BANDS: [string, number][] = [
  ['1.00-2.00', 2],
  ['2.01-3.50', 3.5],
  ['3.51-6.00', 6],
  ['6.01-11.00', 11],
  ['11.01-21.00', 21],
  ['21.01+', Infinity],
];
const bandOf = (sp: number) => BANDS.findIndex(([, top]) => sp <= top);

/** The expected records of the meeting at `courseId` on `date`, by role and person id. */
export function expectedStatistics(raw: Raw, date: string, courseId: number) {
  const meetingOf = new Map(raw.meetings.map((m) => [m.id, m]));
  const raceMeeting = new Map(raw.races.map((r) => [r.id, meetingOf.get(r.meeting_id)!]));
  const meeting = raw.meetings.find((m) => m.date === date && m.course_id === courseId && !m.is_trial);
  if (!meeting) throw new Error(`no meeting at ${courseId} on ${date}`);
  const d = day(date);

  const entered = raw.runners.filter((r) => raceMeeting.get(r.race_id)?.id === meeting.id && !r.scratched);
  const trainerIds = [...new Set(entered.map((r) => r.trainer_id))];
  const jockeyIds = [...new Set(entered.flatMap((r) => (r.jockey_id === null ? [] : [r.jockey_id])))];

  // A start: ran (not scratched, has a position) at a race meeting before the day.
  const ran = raw.runners.filter((r) => {
    const m = raceMeeting.get(r.race_id)!;
    return !r.scratched && r.finishing_position !== null && !m.is_trial && day(m.date) < d;
  });
  const inYear = ran.filter((r) => day(raceMeeting.get(r.race_id)!.date) >= d - 365);
  const starters = new Map<number, number>();
  for (const r of inYear) starters.set(r.race_id, (starters.get(r.race_id) ?? 0) + 1);
  const won = (r: Raw['runners'][number]) => r.finishing_position === 1;
  const placed = (r: Raw['runners'][number]) => {
    const n = starters.get(r.race_id)!;
    const paid = n >= 8 ? 3 : n >= 5 ? 2 : 0;
    return won(r) || r.finishing_position! <= paid;
  };
  const wps = (rows: Raw['runners']) => {
    const wins = rows.filter(won).length;
    const places = rows.filter(placed).length;
    return { wins, win_pct: pct(wins, rows.length), places, place_pct: pct(places, rows.length), starts: rows.length };
  };
  const inBand = (rows: Raw['runners'], band: number) => rows.filter((r) => r.starting_price !== null && bandOf(r.starting_price) === band);

  const record = (id: number, name: string, mine: (r: Raw['runners'][number]) => boolean) => {
    const year = inYear.filter(mine);
    const wins = year.filter(won);
    const dates = (rows: Raw['runners']) => rows.map((r) => raceMeeting.get(r.race_id)!.date);
    const meetingsAttended = new Set(year.map((r) => raceMeeting.get(r.race_id)!.id)).size;
    const allWins = dates(ran.filter((r) => mine(r) && won(r))).sort();
    const byHorse = new Map<number, Raw['runners']>();
    for (const r of year) byHorse.set(r.horse_id, [...(byHorse.get(r.horse_id) ?? []), r]);
    const top = [...byHorse.entries()]
      .filter(([, rows]) => rows.length >= 3)
      .map(([horseId, rows]) => ({ horseId, name: raw.horses.get(horseId)!, starts: rows.length, wins: rows.filter(won).length }))
      .sort(
        (a, b) =>
          b.wins * a.starts - a.wins * b.starts ||
          b.wins - a.wins ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          a.horseId - b.horseId,
      )
      .slice(0, 5);
    return {
      id,
      name,
      performance_365d: { wins: wins.length, starts: year.length, win_pct: pct(wins.length, year.length) },
      wins_30d: wins.filter((r) => day(raceMeeting.get(r.race_id)!.date) >= d - 30).length,
      avg_per_meeting: meetingsAttended ? halfUp2(wins.length, meetingsAttended) : 0,
      last_win_date: allWins.at(-1) ?? null,
      avg_finishing_pos: year.length
        ? halfUp2(
            year.reduce((sum, r) => sum + r.finishing_position!, 0),
            year.length,
          )
        : null,
      top_horses: top.map((h) => ({ name: h.name, win_pct: pct(h.wins, h.starts) })),
      price_band_ivs: BANDS.map(([band], index) => {
        const own = wps(inBand(year, index));
        const baseline = wps(inBand(inYear, index));
        return {
          band,
          trainer_wps: own,
          baseline_wps: baseline,
          iv: own.starts > 0 && baseline.wins > 0 ? halfUp2(own.wins * baseline.starts, own.starts * baseline.wins) : null,
        };
      }),
    };
  };
  return {
    meeting: { date, course: raw.courses.get(courseId)!, courseId },
    trainers: trainerIds.map((id) => record(id, raw.trainers.get(id)!, (r) => r.trainer_id === id)),
    jockeys: jockeyIds.map((id) => record(id, raw.jockeys.get(id)!, (r) => r.jockey_id === id)),
  };
}

export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
