import { and, desc, eq, gte, not, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { escapeLike } from '#shared/like.ts';
import { pgInt, type RacingReads, type RowSchema, selectRows, typedSql } from '#shared/pg.ts';
import { courses as courseTable, meetings, races } from '#shared/racing/schema.ts';

// Search-as-you-type and pick lists over the racing database: one statement per request, on the
// request's one-shot read over HTTP. SQL that PostgreSQL 15 and 18 both accept. The searches are
// hand-written (two index scans in one statement) and declare their rows' schema; the pick lists
// are drizzle's query builder over the racing schema.

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

/** A search's items; the rank column orders them in SQL and is left out by the item's schema (zod drops unknown keys). */
const search = <S extends RowSchema>(db: RacingReads, name: string, item: S, query: SQL) => selectRows(db, typedSql(name, item, query));

const horseItem = z.object({ id: pgInt, name: z.string(), country: z.string(), foalingYear: pgInt, sex: z.string() });
type HorseItem = z.output<typeof horseItem>;
export const horseSearchSql = (query: string) => nameSearch(sql`horses`, sql`id, name, country, foaling_year as "foalingYear", sex`, query);
export const searchHorses = (db: RacingReads, query: string) => search(db, 'the horse search', horseItem, horseSearchSql(query));

const trainerItem = z.object({ id: pgInt, name: z.string(), state: z.string() });
type TrainerItem = z.output<typeof trainerItem>;
export const trainerSearchSql = (query: string) => nameSearch(sql`trainers`, sql`id, name, state`, query);
export const searchTrainers = (db: RacingReads, query: string) => search(db, 'the trainer search', trainerItem, trainerSearchSql(query));

const jockeyItem = z.object({ id: pgInt, name: z.string(), state: z.string(), apprentice: z.boolean() });
type JockeyItem = z.output<typeof jockeyItem>;
export const searchJockeys = (db: RacingReads, query: string) =>
  search(db, 'the jockey search', jockeyItem, nameSearch(sql`jockeys`, sql`id, name, state, apprentice`, query));

export type CourseItem = { id: number; name: string; state: string | null; country: string; meetingId: number | null };

const COURSE_COLUMNS = { id: courseTable.id, name: courseTable.name, state: courseTable.state, country: courseTable.country };

/** Every course by name; with a date, only the courses racing that day (barrier trials left out), with the meeting. */
export async function courses(db: RacingReads, date?: string): Promise<CourseItem[]> {
  if (date === undefined) {
    const all = await db.select(COURSE_COLUMNS).from(courseTable).orderBy(courseTable.name, courseTable.id);
    return all.map((course) => ({ ...course, meetingId: null }));
  }
  return db
    .select({ ...COURSE_COLUMNS, meetingId: meetings.id })
    .from(meetings)
    .innerJoin(courseTable, eq(courseTable.id, meetings.courseId))
    .where(and(eq(meetings.date, date), not(meetings.isTrial)))
    .orderBy(courseTable.name, courseTable.id);
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
  const when = date === undefined ? gte(meetings.date, sql`${today}::date - ${RACES_DAYS_BACK}::int`) : eq(meetings.date, date);
  return db
    .select({
      id: races.id,
      meetingId: races.meetingId,
      date: meetings.date,
      raceNumber: races.raceNumber,
      name: races.name,
      distance: races.distance,
      class: races.class,
      startTime: sql<string | null>`to_char(${races.startTime} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`.mapWith(String),
    })
    .from(meetings)
    .innerJoin(races, eq(races.meetingId, meetings.id))
    .where(and(eq(meetings.courseId, courseId), not(meetings.isTrial), when))
    .orderBy(desc(meetings.date), races.raceNumber)
    .limit(RACES_LIMIT);
}
