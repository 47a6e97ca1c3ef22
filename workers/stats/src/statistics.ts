import { type RacingReads, readBatch } from '../../shared/pg';
import { PRICE_BANDS, type Meeting, type StatsRecord } from './schemas';

// The statistics of one meeting's trainers and jockeys, as of the day before the meeting, in one
// set-based statement (the rules are published on /api-docs and in the README):
// - starts: non-scratched runners with a finishing position, at non-trial meetings, in [D-365, D-1];
// - places on TAB terms by the race's starters: 8+ pay 3 places, 5-7 pay 2, 4 or fewer none (a win is a place);
// - price bands by starting price, half-open: (-, 2.00], (2.00, 3.50], (3.50, 6.00], (6.00, 11.00], (11.00, 21.00], (21.00, -);
// - the baseline of a band is every start in that band in the same window across the database.
// The baseline depends on the date alone: it is computed once per date into meeting_stats_baselines
// (BASELINE_FILL_SQL, in the same transaction just before), and the migration's triggers delete a
// date's row when a start in its window changes. The people's own starts come only from the races
// they ran in, so a meeting no longer scans the whole window.
// Parameters: $1 the meeting date (YYYY-MM-DD), $2 the course id, $3 'all' | 'trainer' | 'jockey'.

/** A start's price band (1-6) by starting price, and its race's starters, for the starts of `races`. */
const startsOf = (races: string) => `
  select r.trainer_id, r.jockey_id, r.horse_id, m.id as meeting_id, m.date, r.finishing_position as pos,
    case
      when r.starting_price is null then null
      when r.starting_price <= 2.00 then 1 when r.starting_price <= 3.50 then 2 when r.starting_price <= 6.00 then 3
      when r.starting_price <= 11.00 then 4 when r.starting_price <= 21.00 then 5 else 6
    end as band,
    count(*) over (partition by r.race_id) as starters
  from ${races} join meetings m on m.id = ra.meeting_id join runners r on r.race_id = ra.id
  where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial
    and not r.scratched and r.finishing_position is not null`;

const PLACED = `s.pos = 1 or s.pos <= case when s.starters >= 8 then 3 when s.starters >= 5 then 2 else 0 end`;

/**
 * Stores the band baselines as of $1 unless they are there already (the check gates the whole
 * scan, so a stored date costs one index probe). Concurrent first uses insert once.
 */
export const BASELINE_FILL_SQL = `
insert into meeting_stats_baselines (as_of, bands)
select $1::date, coalesce(jsonb_agg(jsonb_build_array(b.band, b.starts, b.wins, b.places) order by b.band), '[]'::jsonb)
from (
  select s.band, count(*) as starts, count(*) filter (where s.pos = 1) as wins, count(*) filter (where ${PLACED}) as places
  from (${startsOf('races ra')}) s
  where s.band is not null
  group by s.band
) b
where not exists (select 1 from meeting_stats_baselines where as_of = $1::date)
on conflict (as_of) do nothing
`;

export const MEETING_STATS_SQL = `
with
meeting as (
  select m.id from meetings m where m.course_id = $2 and m.date = $1::date and not m.is_trial
),
entrants as (
  select distinct 'trainer' as role, r.trainer_id as person_id
  from meeting mt join races ra on ra.meeting_id = mt.id join runners r on r.race_id = ra.id
  where not r.scratched and $3::text in ('all', 'trainer')
  union
  select distinct 'jockey', r.jockey_id
  from meeting mt join races ra on ra.meeting_id = mt.id join runners r on r.race_id = ra.id
  where not r.scratched and r.jockey_id is not null and $3::text in ('all', 'jockey')
),
window_races as (
  select ra.id from meetings m join races ra on ra.meeting_id = m.id
  where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial
),
entrant_races as (
  select r.race_id from runners r
  where r.trainer_id in (select person_id from entrants where role = 'trainer') and r.race_id in (select id from window_races)
  union
  select r.race_id from runners r
  where r.jockey_id in (select person_id from entrants where role = 'jockey') and r.race_id in (select id from window_races)
),
starts as (${startsOf('entrant_races er join races ra on ra.id = er.race_id')}
),
scored as (
  select s.*, s.pos = 1 as won, ${PLACED} as placed
  from starts s
),
mine as (
  select 'trainer' as role, s.trainer_id as person_id, s.horse_id, s.meeting_id, s.date, s.pos, s.band, s.won, s.placed
  from scored s where s.trainer_id in (select person_id from entrants where role = 'trainer')
  union all
  select 'jockey', s.jockey_id, s.horse_id, s.meeting_id, s.date, s.pos, s.band, s.won, s.placed
  from scored s where s.jockey_id in (select person_id from entrants where role = 'jockey')
),
totals as (
  select role, person_id, count(*) as starts, count(*) filter (where won) as wins,
    count(*) filter (where won and date >= $1::date - 30) as wins_30d,
    count(distinct meeting_id) as meetings, max(date) filter (where won) as last_win, sum(pos) as pos_sum
  from mine group by role, person_id
),
band_counts as (
  select role, person_id, band, count(*) as starts, count(*) filter (where won) as wins, count(*) filter (where placed) as places
  from mine where band is not null group by role, person_id, band
),
baseline as (
  select (e ->> 0)::int as band, (e ->> 1)::bigint as starts, (e ->> 2)::bigint as wins, (e ->> 3)::bigint as places
  from meeting_stats_baselines mb cross join jsonb_array_elements(mb.bands) e
  where mb.as_of = $1::date
),
horse_form as (
  select role, person_id, horse_id, count(*) as starts, count(*) filter (where won) as wins
  from mine group by role, person_id, horse_id having count(*) >= 3
),
top_horses as (
  select hf.role, hf.person_id, json_agg(json_build_array(hf.name, hf.starts, hf.wins) order by hf.rank) as list
  from (
    select hf.*, h.name, row_number() over (
      partition by hf.role, hf.person_id order by hf.wins::numeric / hf.starts desc, hf.wins desc, h.name collate "C", h.id) as rank
    from horse_form hf join horses h on h.id = hf.horse_id
  ) hf
  where hf.rank <= 5
  group by hf.role, hf.person_id
),
band_lists as (
  select e.role, e.person_id, json_agg(json_build_array(b.band, coalesce(bc.starts, 0), coalesce(bc.wins, 0),
    coalesce(bc.places, 0), b.starts, b.wins, b.places) order by b.band) as list
  from entrants e cross join baseline b
  left join band_counts bc on bc.role = e.role and bc.person_id = e.person_id and bc.band = b.band
  group by e.role, e.person_id
)
select e.role, e.person_id as id,
  coalesce(case e.role when 'trainer' then (select name from trainers where id = e.person_id)
                       else (select name from jockeys where id = e.person_id) end, '') as name,
  coalesce(t.starts, 0)::int as starts, coalesce(t.wins, 0)::int as wins, coalesce(t.wins_30d, 0)::int as wins_30d,
  coalesce(t.meetings, 0)::int as meetings, coalesce(t.pos_sum, 0)::int as pos_sum,
  to_char(coalesce(t.last_win, case e.role
    when 'trainer' then (select max(m.date) from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
      where r.trainer_id = e.person_id and r.finishing_position = 1 and not r.scratched and not m.is_trial and m.date < $1::date - 365)
    else (select max(m.date) from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
      where r.jockey_id = e.person_id and r.finishing_position = 1 and not r.scratched and not m.is_trial and m.date < $1::date - 365)
  end), 'YYYY-MM-DD') as last_win_date,
  coalesce(bl.list, '[]') as bands, coalesce(th.list, '[]') as top_horses
from entrants e
left join totals t on t.role = e.role and t.person_id = e.person_id
left join band_lists bl on bl.role = e.role and bl.person_id = e.person_id
left join top_horses th on th.role = e.role and th.person_id = e.person_id
order by e.role, e.person_id
`;

export type Role = 'trainer' | 'jockey';

/** One row of MEETING_STATS_SQL. */
export interface PersonRow {
  role: Role;
  id: number;
  name: string;
  starts: number;
  wins: number;
  wins_30d: number;
  meetings: number;
  pos_sum: number;
  last_win_date: string | null;
  /** [band 1-6, starts, wins, places, baseline starts, baseline wins, baseline places] */
  bands: [number, number, number, number, number, number, number][];
  /** [horse name, starts, wins], best first, at most five */
  top_horses: [string, number, number][];
}

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

/** Trainers' and jockeys' records for the meeting: the date's baselines if missing, then one statement, in one round trip. */
export async function meetingStatistics(
  db: RacingReads,
  meeting: Meeting,
  who: 'all' | Role = 'all',
): Promise<{ trainers: StatsRecord[]; jockeys: StatsRecord[] }> {
  const [, rows] = await readBatch(db, [
    { text: BASELINE_FILL_SQL, params: [meeting.date] },
    { text: MEETING_STATS_SQL, params: [meeting.date, meeting.courseId, who] },
  ]);
  const people = (rows ?? []) as PersonRow[];
  const records = (role: Role) => people.filter((r) => r.role === role).map(toRecord).sort(byName);
  return { trainers: records('trainer'), jockeys: records('jockey') };
}

/**
 * The statistics' reads run with JIT compilation off, as a startup option of their connection: the
 * statement is estimated as costly enough for JIT, which costs far more than it saves here.
 */
export const STATS_STARTUP_OPTIONS = '-c jit=off';
