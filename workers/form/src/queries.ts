import { type SQL, sql } from 'drizzle-orm';
import { escapeLike } from '../../shared/like.ts';
import { queryRows, type RacingReads } from '../../shared/pg.ts';
import { MAX_RUNS, type Run, normaliseRun } from './runs.ts';

// Every page's data comes from one set-based statement (JSON built in Postgres), so a page costs
// one round trip on the request's pool. SQL that PostgreSQL 15 and 18 both accept.

type Row = Record<string, unknown>;

const rows = (db: RacingReads, query: SQL): Promise<Row[]> => queryRows(db, query);

async function one(db: RacingReads, query: SQL): Promise<Row> {
  return (await rows(db, query))[0] ?? {};
}

const asArray = (value: unknown): Row[] => (Array.isArray(value) ? (value as Row[]) : []);
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The columns of a run, over `ru` (runners) joined as below. */
const RUN_COLUMNS = sql`
  ru.race_id, m.date::text as date, m.id as meeting_id, co.name as course, co.country,
  ra.race_number, ra.name as race_name, ra.distance, ra.class as class_level, ra.race_type, ra.track_condition,
  ru.horse_id, h.name as horse, ru.jockey_id, j.name as jockey, ru.trainer_id, t.name as trainer,
  ru.tab_number, ru.barrier, ru.weight, ru.starting_price, ru.finishing_position, ru.margin,
  (select count(*) from runners f where f.race_id = ru.race_id and not f.scratched)::int as field_size,
  (select st.time_seconds from sectional_times st where st.runner_id = ru.id and st.segment = 'L600' limit 1) as last_600`;

const RUN_JOINS = sql`
  from runners ru
  join races ra on ra.id = ru.race_id
  join meetings m on m.id = ra.meeting_id
  join courses co on co.id = m.course_id
  join horses h on h.id = ru.horse_id
  left join jockeys j on j.id = ru.jockey_id
  join trainers t on t.id = ru.trainer_id`;

/** Runs (scratchings left out), latest first, at most MAX_RUNS. */
function runsOf(filter: SQL): SQL {
  return sql`select ${RUN_COLUMNS} ${RUN_JOINS}
    where ${filter} and not ru.scratched
    order by m.date desc, ra.race_number desc, ru.race_id desc
    limit ${MAX_RUNS}`;
}

/** A race's field as a JSON array, over race id expression `raceId`. */
function raceCardJson(raceId: SQL): SQL {
  return sql`(select coalesce(json_agg(json_build_object(
      'horse_id', ru.horse_id, 'tab_number', ru.tab_number, 'horse_name', h.name,
      'jockey_id', ru.jockey_id, 'jockey', j.name, 'trainer_id', ru.trainer_id, 'trainer', t.name,
      'barrier', ru.barrier, 'weight', ru.weight, 'starting_price', ru.starting_price,
      'finishing_position', ru.finishing_position, 'margin', ru.margin, 'scratched', ru.scratched
    ) order by ru.tab_number), '[]'::json)
    from runners ru join horses h on h.id = ru.horse_id left join jockeys j on j.id = ru.jockey_id
    join trainers t on t.id = ru.trainer_id
    where ru.race_id = ${raceId})`;
}

export interface Horse {
  id: number;
  name: string;
  country: string;
  foaling_year: number;
  sex: string;
  sire: string;
  dam: string;
}

export interface TrialRun {
  date: string;
  course: string;
  heat_number: number;
  distance: number;
  jockey: string | null;
  barrier: number;
  finishing_position: number;
  margin: number;
  time_seconds: number;
}

export interface RaceCardRunner {
  horse_id: number;
  tab_number: number;
  horse_name: string;
  jockey_id: number | null;
  jockey: string | null;
  trainer_id: number;
  trainer: string;
  barrier: number;
  weight: number;
  starting_price: number | null;
  finishing_position: number | null;
  margin: number | null;
  scratched: boolean;
}

export interface ToolbarMeeting {
  meeting_id: number;
  meeting_name: string;
}

export interface ToolbarRace {
  race_id: number;
  race_number: number;
  race_name: string;
  distance: number;
  class_level: string;
}

export interface RunnerPageData {
  horse: Horse | null;
  runs: Run[];
  trial_runs: TrialRun[];
  selected_date: string | null;
  selected_meeting_id: number | null;
  selected_race_id: number | null;
  date_meetings: ToolbarMeeting[];
  meeting_races: ToolbarRace[];
  selected_race_runners: RaceCardRunner[];
}

export interface RunnerPageQuery {
  horseId: number;
  date?: string;
  meetingId?: number;
  raceId?: number;
}

/**
 * The runner page in one statement: horse, runs, trials, and the toolbar. The toolbar's race is
 * the `race` asked for; else the horse's run on `date`; else (no date) its latest run. Its meeting
 * and date follow from the race; without a race, the `meeting` asked for or the date's first one.
 */
export async function runnerPage(db: RacingReads, q: RunnerPageQuery): Promise<RunnerPageData> {
  const row = await one(db, runnerPageSql(q));
  return {
    horse: (row.horse as Horse | null) ?? null,
    runs: asArray(row.runs).map(normaliseRun),
    trial_runs: asArray(row.trial_runs) as unknown as TrialRun[],
    selected_date: (row.selected_date as string | null) ?? null,
    selected_meeting_id: numberOrNull(row.selected_meeting_id),
    selected_race_id: numberOrNull(row.selected_race_id),
    date_meetings: asArray(row.date_meetings) as unknown as ToolbarMeeting[],
    meeting_races: asArray(row.meeting_races) as unknown as ToolbarRace[],
    selected_race_runners: asArray(row.selected_race_runners) as unknown as RaceCardRunner[],
  };
}

/** The runner page's statement (exported for the benchmark, which runs the same SQL in psql). */
export function runnerPageSql(q: RunnerPageQuery): SQL {
  const date = q.date ?? null;
  return sql`with
    runs as (${runsOf(sql`ru.horse_id = ${q.horseId}`)}),
    sel_race as (select coalesce(
      (select ra.id from races ra join meetings m on m.id = ra.meeting_id
        where ra.id = ${q.raceId ?? null}::int and (${date}::date is null or m.date = ${date}::date)
          and (${q.meetingId ?? null}::int is null or m.id = ${q.meetingId ?? null}::int)),
      (select race_id from runs where date = ${date}::text
        and (${q.meetingId ?? null}::int is null or meeting_id = ${q.meetingId ?? null}::int) order by race_number limit 1),
      (select race_id from runs where ${date}::date is null order by date desc, race_number desc limit 1)
    ) as id),
    sel_meeting as (select coalesce(
      (select meeting_id from races where id = (select id from sel_race)),
      (select m.id from meetings m where m.id = ${q.meetingId ?? null}::int and m.date = ${date}::date and not m.is_trial),
      (select m.id from meetings m join courses co on co.id = m.course_id
        where m.date = ${date}::date and not m.is_trial order by co.name, m.id limit 1)
    ) as id),
    sel_date as (select coalesce((select date from meetings where id = (select id from sel_meeting)), ${date}::date) as date)
    select
      (select row_to_json(x) from (select id, name, country, foaling_year, sex, sire, dam from horses where id = ${q.horseId}) x) as horse,
      (select coalesce(json_agg(runs), '[]'::json) from runs) as runs,
      (select coalesce(json_agg(x), '[]'::json) from (
        select m.date::text as date, co.name as course, tr.heat_number, tr.distance, j.name as jockey, tr.barrier,
               tr.finishing_position, tr.margin, tr.time_seconds
        from trial_runs tr join meetings m on m.id = tr.meeting_id join courses co on co.id = m.course_id
        left join jockeys j on j.id = tr.jockey_id
        where tr.horse_id = ${q.horseId} order by m.date desc, tr.heat_number desc limit 50) x) as trial_runs,
      (select date::text from sel_date) as selected_date,
      (select id from sel_meeting) as selected_meeting_id,
      (select id from sel_race) as selected_race_id,
      (select coalesce(json_agg(x order by x.meeting_name, x.meeting_id), '[]'::json) from (
        select m.id as meeting_id, co.name as meeting_name from meetings m join courses co on co.id = m.course_id
        where m.date = (select date from sel_date) and not m.is_trial) x) as date_meetings,
      (select coalesce(json_agg(x order by x.race_number), '[]'::json) from (
        select id as race_id, race_number, name as race_name, distance, class as class_level
        from races where meeting_id = (select id from sel_meeting)) x) as meeting_races,
      ${raceCardJson(sql`(select id from sel_race)`)} as selected_race_runners`;
}

export interface Sale {
  sale_name: string;
  lot: number;
  sale_date: string;
  price: number;
  vendor: string;
  purchaser: string;
}

export function salesSql(horseId: number): SQL {
  return sql`select sale_name, lot, sale_date::text as sale_date, price, vendor, purchaser
        from sales where horse_id = ${horseId} order by sale_date desc, id desc`;
}

export async function salesOf(db: RacingReads, horseId: number): Promise<Sale[]> {
  return (await rows(db, salesSql(horseId))) as unknown as Sale[];
}

export type PersonKind = 'jockey' | 'trainer';

export interface Person {
  id: number;
  name: string;
  state: string;
  apprentice?: boolean;
}

export async function personPage(db: RacingReads, kind: PersonKind, id: number): Promise<{ person: Person | null; runs: Run[] }> {
  const profile =
    kind === 'jockey'
      ? sql`select id, name, state, apprentice from jockeys where id = ${id}`
      : sql`select id, name, state from trainers where id = ${id}`;
  const filter = kind === 'jockey' ? sql`ru.jockey_id = ${id}` : sql`ru.trainer_id = ${id}`;
  const row = await one(
    db,
    sql`with runs as (${runsOf(filter)})
    select (select row_to_json(x) from (${profile}) x) as person,
           (select coalesce(json_agg(runs), '[]'::json) from runs) as runs`,
  );
  return { person: (row.person as Person | null) ?? null, runs: asArray(row.runs).map(normaliseRun) };
}

export async function raceDates(db: RacingReads): Promise<string[]> {
  return (await rows(db, sql`select distinct date::text as date from meetings where not is_trial order by 1 desc`)).map((r) =>
    String(r.date),
  );
}

/** Race dates around `date`: up to `before` earlier ones, then `date` and later ones, oldest first. */
export async function dateStrip(db: RacingReads, date: string, before = 3, after = 4): Promise<string[]> {
  return (
    await rows(
      db,
      sql`select date::text as date from (
          (select distinct date from meetings where date < ${date}::date and not is_trial order by date desc limit ${before})
          union
          (select distinct date from meetings where date >= ${date}::date and not is_trial order by date limit ${after})
        ) d order by date`,
    )
  ).map((r) => String(r.date));
}

export async function meetingsOn(db: RacingReads, date: string): Promise<{ meeting_id: string; meeting_name: string }[]> {
  return (await rows(
    db,
    sql`select m.id::text as meeting_id, co.name as meeting_name
        from meetings m join courses co on co.id = m.course_id
        where m.date = ${date}::date and not m.is_trial order by co.name, m.id`,
  )) as { meeting_id: string; meeting_name: string }[];
}

export interface ApiRace {
  race_id: number;
  race_number: number;
  race_name: string;
  course_name: string;
  distance: string;
  class_level: string;
}

export async function racesOn(db: RacingReads, date: string, meetingId?: number): Promise<ApiRace[]> {
  const meeting = meetingId === undefined ? sql`true` : sql`m.id = ${meetingId}`;
  return (await rows(
    db,
    sql`select ra.id as race_id, ra.race_number::int as race_number, ra.name as race_name, co.name as course_name,
               ra.distance || 'm' as distance, ra.class as class_level
        from races ra join meetings m on m.id = ra.meeting_id join courses co on co.id = m.course_id
        where m.date = ${date}::date and not m.is_trial and ${meeting}
        order by co.name, m.id, ra.race_number`,
  )) as unknown as ApiRace[];
}

export interface RaceCard {
  race: { race_id: number; race_number: number; race_name: string; course_name: string; date: string; distance: number; class_level: string } | null;
  runners: RaceCardRunner[];
}

export async function raceCard(db: RacingReads, raceId: number): Promise<RaceCard> {
  const row = await one(
    db,
    sql`select
      (select row_to_json(x) from (
        select ra.id as race_id, ra.race_number, ra.name as race_name, co.name as course_name, m.date::text as date,
               ra.distance, ra.class as class_level
        from races ra join meetings m on m.id = ra.meeting_id join courses co on co.id = m.course_id where ra.id = ${raceId}) x) as race,
      ${raceCardJson(sql`${raceId}::int`)} as runners`,
  );
  return { race: (row.race as RaceCard['race']) ?? null, runners: asArray(row.runners) as unknown as RaceCardRunner[] };
}

export const SEARCH_LIMIT = 25;

/** Names starting with the query first, then names containing it; `%` and `_` are literal. */
export async function searchHorses(db: RacingReads, query: string): Promise<{ id: number; runner_name: string; country: string }[]> {
  const needle = escapeLike(query.toLowerCase());
  return (await rows(
    db,
    sql`select id, name as runner_name, country from horses
        where lower(name) like ${`%${needle}%`}
        order by (lower(name) like ${`${needle}%`}) desc, name, id limit ${SEARCH_LIMIT}`,
  )) as { id: number; runner_name: string; country: string }[];
}

export interface GuideMeeting {
  meeting_id: number;
  meeting_name: string;
  country: string;
  state: string | null;
  track_condition: string;
  races: { race_id: number; race_number: number; race_name: string; distance: number; class_level: string; start_time: string | null }[];
}

export async function guideMeetings(db: RacingReads, date: string, country?: string): Promise<GuideMeeting[]> {
  const byCountry = country === undefined ? sql`true` : sql`co.country = ${country}`;
  const row = await one(
    db,
    sql`select coalesce(json_agg(x order by x.meeting_name, x.meeting_id), '[]'::json) as meetings from (
      select m.id as meeting_id, co.name as meeting_name, co.country, co.state, m.track_condition,
        (select coalesce(json_agg(json_build_object('race_id', ra.id, 'race_number', ra.race_number, 'race_name', ra.name,
            'distance', ra.distance, 'class_level', ra.class, 'start_time', ra.start_time) order by ra.race_number), '[]'::json)
         from races ra where ra.meeting_id = m.id) as races
      from meetings m join courses co on co.id = m.course_id
      where m.date = ${date}::date and not m.is_trial and ${byCountry}) x`,
  );
  return asArray(row.meetings) as unknown as GuideMeeting[];
}

export async function countriesOn(db: RacingReads, date: string): Promise<string[]> {
  return (
    await rows(
      db,
      sql`select distinct co.country from meetings m join courses co on co.id = m.course_id
          where m.date = ${date}::date and not m.is_trial order by 1`,
    )
  ).map((r) => String(r.country));
}

/** The winner of the latest race run before `today`; else the first horse; null in an empty database. */
export async function latestWinner(db: RacingReads, today: string): Promise<number | null> {
  const row = await one(
    db,
    sql`select coalesce(
      (select ru.horse_id from meetings m join races ra on ra.meeting_id = m.id join runners ru on ru.race_id = ra.id
       where m.date < ${today}::date and not m.is_trial and ru.finishing_position = 1
       order by m.date desc, ra.start_time desc nulls last, ra.id desc limit 1),
      (select min(id) from horses)) as horse_id`,
  );
  return numberOrNull(row.horse_id);
}
