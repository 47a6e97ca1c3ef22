import { and, desc, eq, like, not, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { escapeLike } from '#shared/like.ts';
import { pgDate, pgInt, pgNumeric, type RacingReads, selectOne, selectRows, typedSql } from '#shared/pg.ts';
import { courses, horses, meetings, races } from '#shared/racing/schema.ts';
import { type Run, runSchema, runsOf } from './runs.ts';

// Every page's data comes from one set-based statement (JSON built in Postgres), so a page costs
// one round trip (the runner page's statement is in runner-page.ts). SQL that PostgreSQL 15 and 18 both accept. Plain selects
// are drizzle's query builder over the racing schema; the hand-written statements declare the
// schema of their row, which every row is parsed through (see typedSql in shared/pg.ts).

/** A race's field as a JSON array, over race id expression `raceId`. */
export function raceCardJson(raceId: SQL): SQL {
  return sql`(select coalesce(json_agg(json_build_object(
      'horse_id', ru.horse_id, 'tab_number', ru.tab_number, 'horse_name', (select h.name from horses h where h.id = ru.horse_id),
      'jockey_id', ru.jockey_id, 'jockey', (select j.name from jockeys j where j.id = ru.jockey_id),
      'trainer_id', ru.trainer_id, 'trainer', (select t.name from trainers t where t.id = ru.trainer_id),
      'barrier', ru.barrier, 'weight', ru.weight, 'starting_price', ru.starting_price,
      'finishing_position', ru.finishing_position, 'margin', ru.margin, 'scratched', ru.scratched
    ) order by ru.tab_number), '[]'::json)
    from runners ru
    where ru.race_id = ${raceId})`;
}

export const raceCardRunnerSchema = z.object({
  horse_id: pgInt,
  tab_number: pgInt,
  horse_name: z.string(),
  jockey_id: pgInt.nullable(),
  jockey: z.string().nullable(),
  trainer_id: pgInt,
  trainer: z.string(),
  barrier: pgInt,
  weight: pgNumeric,
  starting_price: pgNumeric.nullable(),
  finishing_position: pgInt.nullable(),
  margin: pgNumeric.nullable(),
  scratched: z.boolean(),
});
export type RaceCardRunner = z.output<typeof raceCardRunnerSchema>;

export type PersonKind = 'jockey' | 'trainer';

const personSchema = z.object({ id: pgInt, name: z.string(), state: z.string(), apprentice: z.boolean().optional() });
export type Person = z.output<typeof personSchema>;

const personPageRow = z.object({ person: personSchema.nullable(), runs: z.array(runSchema) });

export async function personPage(db: RacingReads, kind: PersonKind, id: number): Promise<{ person: Person | null; runs: Run[] }> {
  const profile =
    kind === 'jockey'
      ? sql`select id, name, state, apprentice from jockeys where id = ${id}`
      : sql`select id, name, state from trainers where id = ${id}`;
  const filter = kind === 'jockey' ? sql`ru.jockey_id = ${id}` : sql`ru.trainer_id = ${id}`;
  return selectOne(
    db,
    typedSql(
      `the ${kind} page`,
      personPageRow,
      sql`with runs as (${runsOf(filter)})
    select (select row_to_json(x) from (${profile}) x) as person,
           (select coalesce(json_agg(runs), '[]'::json) from runs) as runs`,
    ),
  );
}

export async function raceDates(db: RacingReads): Promise<string[]> {
  const found = await db.selectDistinct({ date: meetings.date }).from(meetings).where(not(meetings.isTrial)).orderBy(desc(meetings.date));
  return found.map((r) => r.date);
}

const dateRow = z.object({ date: pgDate });

/** Race dates around `date`: up to `before` earlier ones, then `date` and later ones, oldest first. */
export async function dateStrip(db: RacingReads, date: string, before = 3, after = 4): Promise<string[]> {
  const found = await selectRows(
    db,
    typedSql(
      'the date strip',
      dateRow,
      sql`select date::text as date from (
          (select distinct date from meetings where date < ${date}::date and not is_trial order by date desc limit ${before})
          union
          (select distinct date from meetings where date >= ${date}::date and not is_trial order by date limit ${after})
        ) d order by date`,
    ),
  );
  return found.map((r) => r.date);
}

const raceDay = (date: string) => and(eq(meetings.date, date), not(meetings.isTrial));

export async function meetingsOn(db: RacingReads, date: string): Promise<{ meeting_id: string; meeting_name: string }[]> {
  const found = await db
    .select({ id: meetings.id, name: courses.name })
    .from(meetings)
    .innerJoin(courses, eq(courses.id, meetings.courseId))
    .where(raceDay(date))
    .orderBy(courses.name, meetings.id);
  return found.map((m) => ({ meeting_id: String(m.id), meeting_name: m.name }));
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
  const found = await db
    .select({
      race_id: races.id,
      race_number: races.raceNumber,
      race_name: races.name,
      course_name: courses.name,
      distance: races.distance,
      class_level: races.class,
    })
    .from(races)
    .innerJoin(meetings, eq(meetings.id, races.meetingId))
    .innerJoin(courses, eq(courses.id, meetings.courseId))
    .where(and(raceDay(date), meetingId === undefined ? undefined : eq(meetings.id, meetingId)))
    .orderBy(courses.name, meetings.id, races.raceNumber);
  return found.map((r) => ({ ...r, distance: `${r.distance}m` }));
}

const raceCardRow = z.object({
  race: z
    .object({
      race_id: pgInt,
      race_number: pgInt,
      race_name: z.string(),
      course_name: z.string(),
      date: pgDate,
      distance: pgInt,
      class_level: z.string(),
    })
    .nullable(),
  runners: z.array(raceCardRunnerSchema),
});
export type RaceCard = z.output<typeof raceCardRow>;

export function raceCard(db: RacingReads, raceId: number): Promise<RaceCard> {
  return selectOne(
    db,
    typedSql(
      'the race card',
      raceCardRow,
      sql`select
      (select row_to_json(x) from (
        select ra.id as race_id, ra.race_number, ra.name as race_name, co.name as course_name, m.date::text as date,
               ra.distance, ra.class as class_level
        from races ra join meetings m on m.id = ra.meeting_id join courses co on co.id = m.course_id where ra.id = ${raceId}) x) as race,
      ${raceCardJson(sql`${raceId}::int`)} as runners`,
    ),
  );
}

export const SEARCH_LIMIT = 25;

/** Names starting with the query first, then names containing it; `%` and `_` are literal. */
export function searchHorses(db: RacingReads, query: string): Promise<{ id: number; runner_name: string; country: string }[]> {
  const needle = escapeLike(query.toLowerCase());
  const lowerName = sql`lower(${horses.name})`;
  return db
    .select({ id: horses.id, runner_name: horses.name, country: horses.country })
    .from(horses)
    .where(like(lowerName, `%${needle}%`))
    .orderBy(sql`(${lowerName} like ${`${needle}%`}) desc`, horses.name, horses.id)
    .limit(SEARCH_LIMIT);
}

const guideMeetingSchema = z.object({
  meeting_id: pgInt,
  meeting_name: z.string(),
  country: z.string(),
  state: z.string().nullable(),
  track_condition: z.string(),
  races: z.array(
    z.object({
      race_id: pgInt,
      race_number: pgInt,
      race_name: z.string(),
      distance: pgInt,
      class_level: z.string(),
      start_time: z.string().nullable(),
    }),
  ),
});
export type GuideMeeting = z.output<typeof guideMeetingSchema>;

const guideRow = z.object({ meetings: z.array(guideMeetingSchema) });

export async function guideMeetings(db: RacingReads, date: string, country?: string): Promise<GuideMeeting[]> {
  const byCountry = country === undefined ? sql`true` : sql`co.country = ${country}`;
  const row = await selectOne(
    db,
    typedSql(
      'the race guide',
      guideRow,
      sql`select coalesce(json_agg(x order by x.meeting_name, x.meeting_id), '[]'::json) as meetings from (
      select m.id as meeting_id, co.name as meeting_name, co.country, co.state, m.track_condition,
        (select coalesce(json_agg(json_build_object('race_id', ra.id, 'race_number', ra.race_number, 'race_name', ra.name,
            'distance', ra.distance, 'class_level', ra.class, 'start_time', ra.start_time) order by ra.race_number), '[]'::json)
         from races ra where ra.meeting_id = m.id) as races
      from meetings m join courses co on co.id = m.course_id
      where m.date = ${date}::date and not m.is_trial and ${byCountry}) x`,
    ),
  );
  return row.meetings;
}

export async function countriesOn(db: RacingReads, date: string): Promise<string[]> {
  const found = await db
    .selectDistinct({ country: courses.country })
    .from(meetings)
    .innerJoin(courses, eq(courses.id, meetings.courseId))
    .where(raceDay(date))
    .orderBy(courses.country);
  return found.map((r) => r.country);
}

const winnerRow = z.object({ horse_id: pgInt.nullable() });

/** The winner of the latest race run before `today`; else the first horse; null in an empty database. */
export async function latestWinner(db: RacingReads, today: string): Promise<number | null> {
  const row = await selectOne(
    db,
    typedSql(
      'the latest winner',
      winnerRow,
      sql`select coalesce(
      (select ru.horse_id from meetings m join races ra on ra.meeting_id = m.id join runners ru on ru.race_id = ra.id
       where m.date < ${today}::date and not m.is_trial and ru.finishing_position = 1
       order by m.date desc, ra.start_time desc nulls last, ra.id desc limit 1),
      (select min(id) from horses)) as horse_id`,
    ),
  );
  return row.horse_id;
}
