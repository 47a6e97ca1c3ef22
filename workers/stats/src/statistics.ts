import { z } from 'zod';
import { pgDate, pgInt } from '#shared/pg.ts';
import { PRICE_BANDS, type StatsRecord } from './schemas.ts';

// The statistics of one meeting's trainers and jockeys, as of the day before the meeting, in one
// set-based statement (the rules are published on /api-docs and in the README):
// - starts: non-scratched runners with a finishing position, at non-trial meetings, in [D-365, D-1];
// - places on TAB terms by the race's starters: 8+ pay 3 places, 5-7 pay 2, 4 or fewer none (a win is a place);
// - price bands by starting price, half-open: (-, 2.00], (2.00, 3.50], (3.50, 6.00], (6.00, 11.00], (11.00, 21.00], (21.00, -);
// - the baseline of a band is every start in that band in the same window across the database.
// The rules are applied once per date by racing migration 0004 (`meeting_stats_refresh`), into
// meeting_stats_days (all starts of a date by band), meeting_stats_person_days (a person's starts of
// a date: totals, distinct meetings, positions, bands) and meeting_stats_person_horses (a person's
// starts and wins with a horse on a date), kept in step by triggers on runners, races and meetings.
// A meeting sums a year of its people's rows and of the dates' rows.
// Parameters: $1 the meeting date (YYYY-MM-DD), $2 the course id, $3 'all' | 'trainer' | 'jockey'.

/** Band numbers 1…n, in PRICE_BANDS' order (the aggregates' columns are `starts_1`…). */
const BANDS = PRICE_BANDS.map((_, i) => i + 1);

export const MEETING_STATS_SQL = `
with
meeting as (
  select m.id from meetings m where m.course_id = $2 and m.date = $1::date and not m.is_trial
),
entrants as (
  select distinct 'trainer' as role, 1 as r, r.trainer_id as person_id
  from meeting mt join races ra on ra.meeting_id = mt.id join runners r on r.race_id = ra.id
  where not r.scratched and $3::text in ('all', 'trainer')
  union
  select distinct 'jockey', 0, r.jockey_id
  from meeting mt join races ra on ra.meeting_id = mt.id join runners r on r.race_id = ra.id
  where not r.scratched and r.jockey_id is not null and $3::text in ('all', 'jockey')
),
baseline as (
  select ${BANDS.map((b) => `coalesce(sum(d.starts_${b}), 0) as s${b}, coalesce(sum(d.wins_${b}), 0) as w${b}, coalesce(sum(d.places_${b}), 0) as p${b}`).join(',\n    ')}
  from meeting_stats_days d where d.date between $1::date - 365 and $1::date - 1
),
totals as (
  -- One aggregate per person over that person's year of rows (no sort of every entrant's rows);
  -- a person with no starts in the window gets NULL sums, read as 0 below.
  select e.r, e.person_id, t.*
  from entrants e cross join lateral (
    select sum(d.starts) as starts, sum(d.wins) as wins,
      sum(d.wins) filter (where d.date >= $1::date - 30) as wins_30d, sum(d.meetings) as meetings,
      max(d.date) filter (where d.wins > 0) as last_win, sum(d.position_sum) as pos_sum,
      ${BANDS.map((b) => `sum(d.starts_${b}) as s${b}, sum(d.wins_${b}) as w${b}, sum(d.places_${b}) as p${b}`).join(',\n      ')}
    from meeting_stats_person_days d
    where d.role = e.role and d.person_id = e.person_id and d.date between $1::date - 365 and $1::date - 1
  ) t
),
horse_form as (
  -- Summed person by person: a few hundred rows each, not one sort of every entrant's year.
  select e.r, e.person_id, x.horse_id, x.starts, x.wins
  from entrants e cross join lateral (
    select h.horse_id, sum(h.starts) as starts, sum(h.wins) as wins
    from meeting_stats_person_horses h
    where h.role = e.role and h.person_id = e.person_id and h.date between $1::date - 365 and $1::date - 1
    group by h.horse_id having sum(h.starts) >= 3
  ) x
),
top_horses as (
  -- Names are looked up only for the horses that can make the five (ties on win% and wins included),
  -- one index probe each (a join would let the planner hash every horse).
  select hf.r, hf.person_id, json_agg(json_build_array(hf.name, hf.starts, hf.wins) order by hf.rank) as list
  from (
    select hf.*, row_number() over (
      partition by hf.r, hf.person_id order by hf.wins::numeric / hf.starts desc, hf.wins desc, hf.name collate "C", hf.horse_id) as rank
    from (
      select hf.*, (select h.name from horses h where h.id = hf.horse_id) as name
      from (
        select hf.*, rank() over (partition by hf.r, hf.person_id order by hf.wins::numeric / hf.starts desc, hf.wins desc) as tier
        from horse_form hf
      ) hf
      where hf.tier <= 5
    ) hf
  ) hf
  where hf.rank <= 5
  group by hf.r, hf.person_id
)
select e.role, e.person_id as id,
  coalesce(case e.role when 'trainer' then (select name from trainers where id = e.person_id)
                       else (select name from jockeys where id = e.person_id) end, '') as name,
  coalesce(t.starts, 0)::int as starts, coalesce(t.wins, 0)::int as wins, coalesce(t.wins_30d, 0)::int as wins_30d,
  coalesce(t.meetings, 0)::int as meetings, coalesce(t.pos_sum, 0)::int as pos_sum,
  to_char(coalesce(t.last_win, (
    select max(d.date) from meeting_stats_person_days d
    where d.role = e.role and d.person_id = e.person_id and d.date < $1::date - 365 and d.wins > 0
  )), 'YYYY-MM-DD') as last_win_date,
  json_build_array(
    ${BANDS.map((b) => `json_build_array(${b}, coalesce(t.s${b}, 0), coalesce(t.w${b}, 0), coalesce(t.p${b}, 0), b.s${b}, b.w${b}, b.p${b})`).join(',\n    ')}
  ) as bands,
  coalesce(th.list, '[]') as top_horses
from entrants e
cross join baseline b
left join totals t on t.r = e.r and t.person_id = e.person_id
left join top_horses th on th.r = e.r and th.person_id = e.person_id
order by e.r, e.person_id
`;

export const roleSchema = z.enum(['trainer', 'jockey']);
export type Role = z.output<typeof roleSchema>;

/** One row of MEETING_STATS_SQL, checked as it is read (sums inside JSON arrive as numbers). */
export const personRowSchema = z.object({
  role: roleSchema,
  id: pgInt,
  name: z.string(),
  starts: pgInt,
  wins: pgInt,
  wins_30d: pgInt,
  meetings: pgInt,
  pos_sum: pgInt,
  last_win_date: pgDate.nullable(),
  /** [band 1-6, starts, wins, places, baseline starts, baseline wins, baseline places] */
  bands: z.array(z.tuple([pgInt, pgInt, pgInt, pgInt, pgInt, pgInt, pgInt])),
  /** [horse name, starts, wins], best first, at most five */
  top_horses: z.array(z.tuple([z.string(), pgInt, pgInt])),
});
export type PersonRow = z.output<typeof personRowSchema>;

/** The meeting statistics' statement for one meeting: $1 date, $2 course id, $3 who. */
export const meetingStatsStatement = (date: string, courseId: number, who: 'all' | Role) => ({
  name: 'the meeting statistics',
  text: MEETING_STATS_SQL,
  params: [date, courseId, who],
  row: personRowSchema,
});

/**
 * numerator ÷ denominator to two decimals, half up, computed on the exact integers: floating
 * point would round 1.875 (= 2/36 ÷ 204/6885) down, since 1.875 × 100 is 187.49999… in binary.
 * Every rounded figure of a record goes through this one function.
 */
export function ratio2(numerator: number, denominator: number): number {
  const n = BigInt(numerator);
  const d = BigInt(denominator);
  if (d <= 0n || n < 0n) throw new RangeError('ratio2 needs a non-negative numerator and a positive denominator');
  // floor(100·n/d + 1/2) = floor((200·n + d) / 2d)
  return Number((200n * n + d) / (2n * d)) / 100;
}

export const percent = (part: number, whole: number) => (whole > 0 ? ratio2(100 * part, whole) : 0);

function wps(starts: number, wins: number, places: number) {
  return { wins, win_pct: percent(wins, starts), places, place_pct: percent(places, starts), starts };
}

/** Shapes a row of the statement into the record of the spec's table. */
export function toRecord(row: PersonRow): StatsRecord {
  const bands = new Map(row.bands.map((b) => [b[0], b]));
  return {
    id: row.id,
    name: row.name,
    performance_365d: { wins: row.wins, starts: row.starts, win_pct: percent(row.wins, row.starts) },
    wins_30d: row.wins_30d,
    avg_per_meeting: row.meetings > 0 ? ratio2(row.wins, row.meetings) : 0,
    last_win_date: row.last_win_date,
    avg_finishing_pos: row.starts > 0 ? ratio2(row.pos_sum, row.starts) : null,
    top_horses: row.top_horses.map(([name, starts, wins]) => ({ name, win_pct: percent(wins, starts) })),
    price_band_ivs: PRICE_BANDS.map((band, index) => {
      const [, starts, wins, places, baseStarts, baseWins, basePlaces] = bands.get(index + 1) ?? [index + 1, 0, 0, 0, 0, 0, 0];
      return {
        band,
        trainer_wps: wps(starts, wins, places),
        baseline_wps: wps(baseStarts, baseWins, basePlaces),
        // (wins / starts) ÷ (baseWins / baseStarts), as one fraction of integers.
        iv: starts > 0 && baseWins > 0 ? ratio2(wins * baseStarts, starts * baseWins) : null,
      };
    }),
  };
}

const byName = (a: StatsRecord, b: StatsRecord) => a.name.localeCompare(b.name) || a.id - b.id;

/** Trainers' and jockeys' records of MEETING_STATS_SQL's rows, each by name. */
export const recordsOf = (people: PersonRow[]) => {
  const records = (role: Role) =>
    people
      .filter((r) => r.role === role)
      .map(toRecord)
      .sort(byName);
  return { trainers: records('trainer'), jockeys: records('jockey') };
};

/**
 * The statistics' reads run with JIT compilation off, as a startup option of their connection: the
 * statement is estimated as costly enough for JIT, which costs far more than it saves here.
 */
export const STATS_STARTUP_OPTIONS = '-c jit=off';
