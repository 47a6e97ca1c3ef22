import { type SQL, sql } from 'drizzle-orm';
import { escapeLike } from '../../shared/like.ts';
import { queryRows, type RacingReads } from '../../shared/pg.ts';

// Search-as-you-type and pick lists over the racing database: one statement per request, on the
// request's one-shot read over HTTP. SQL that PostgreSQL 15 and 18 both accept.

export const SEARCH_LIMIT = 20;

/**
 * Names that start with the query first (over the `lower(name) text_pattern_ops` index), then names
 * that contain it elsewhere, e.g. "winx" finds "Winx" before "Lady Winx".
 */
function nameSearch(table: SQL, columns: SQL, query: string): SQL {
  const needle = escapeLike(query.toLowerCase());
  return sql`select * from (
      (select ${columns}, 0 as rank from ${table} where lower(name) like ${`${needle}%`} order by lower(name), id limit ${SEARCH_LIMIT})
      union all
      (select ${columns}, 1 as rank from ${table} where lower(name) like ${`%${needle}%`} and lower(name) not like ${`${needle}%`} limit ${SEARCH_LIMIT})
    ) found order by rank, name, id limit ${SEARCH_LIMIT}`;
}

const strip = <T extends { rank: number }>(found: T[]) => found.map(({ rank: _rank, ...rest }) => rest);

export type HorseItem = { id: number; name: string; country: string; foalingYear: number; sex: string };
export const horseSearchSql = (query: string) => nameSearch(sql`horses`, sql`id, name, country, foaling_year as "foalingYear", sex`, query);
export const searchHorses = async (db: RacingReads, query: string) => strip(await queryRows<HorseItem & { rank: number }>(db, horseSearchSql(query)));

export type TrainerItem = { id: number; name: string; state: string };
export const trainerSearchSql = (query: string) => nameSearch(sql`trainers`, sql`id, name, state`, query);
export const searchTrainers = async (db: RacingReads, query: string) => strip(await queryRows<TrainerItem & { rank: number }>(db, trainerSearchSql(query)));

export type JockeyItem = { id: number; name: string; state: string; apprentice: boolean };
export const searchJockeys = async (db: RacingReads, query: string) =>
  strip(await queryRows<JockeyItem & { rank: number }>(db, nameSearch(sql`jockeys`, sql`id, name, state, apprentice`, query)));

export type CourseItem = { id: number; name: string; state: string | null; country: string; meetingId: number | null };

/** Every course by name; with a date, only the courses racing that day (barrier trials left out), with the meeting. */
export function courses(db: RacingReads, date?: string): Promise<CourseItem[]> {
  if (date === undefined) {
    return queryRows(db, sql`select id, name, state, country, null::int as "meetingId" from courses order by name, id`);
  }
  return queryRows(
    db,
    sql`select co.id, co.name, co.state, co.country, m.id as "meetingId"
        from meetings m join courses co on co.id = m.course_id
        where m.date = ${date}::date and not m.is_trial
        order by co.name, co.id`,
  );
}

export type RaceItem = {
  id: number;
  meetingId: number;
  date: string;
  raceNumber: number;
  name: string;
  distance: number;
  class: string;
  startTime: string | null;
};

/** How far back races are listed when no date is given: enough for stories about recent racing. */
export const RACES_DAYS_BACK = 30;
export const RACES_LIMIT = 200;

/**
 * A course's races on one date, or without a date its races from RACES_DAYS_BACK days before
 * `today` onwards (latest meeting first); barrier trials left out. An unknown course has none.
 */
export function racesOfCourse(db: RacingReads, courseId: number, date: string | undefined, today: string): Promise<RaceItem[]> {
  const when = date === undefined ? sql`m.date >= ${today}::date - ${RACES_DAYS_BACK}::int` : sql`m.date = ${date}::date`;
  return queryRows(
    db,
    sql`select ra.id, ra.meeting_id as "meetingId", m.date::text as date, ra.race_number as "raceNumber", ra.name,
               ra.distance, ra.class, to_char(ra.start_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "startTime"
        from meetings m join races ra on ra.meeting_id = m.id
        where m.course_id = ${courseId} and not m.is_trial and ${when}
        order by m.date desc, ra.race_number limit ${RACES_LIMIT}`,
  );
}
