import { z } from 'zod';
import { pgDate, pgInt, type RacingReads, readBatch, readRows, type RowSchema, type TextStatement } from '#shared/pg.ts';
import { detailError } from './errors.ts';
import type { Meeting } from './schemas.ts';

export type CourseRef = { courseId: number } | { courseName: string };

const meetingRow = z.object({ date: pgDate, course: z.string(), course_id: pgInt });

/** The statement that finds the race meeting (not a barrier trial) at a course on a date. */
function meetingStatement(date: string, course: CourseRef) {
  const byId = 'courseId' in course;
  return {
    name: 'the meeting look-up',
    row: meetingRow,
    text: `select to_char(m.date, 'YYYY-MM-DD') as date, c.name as course, c.id as course_id
       from meetings m join courses c on c.id = m.course_id
      where m.date = $1::date and not m.is_trial and ${byId ? 'c.id = $2' : 'lower(c.name) = lower($2)'}
      order by c.id limit 1`,
    params: [date, byId ? course.courseId : course.courseName],
  };
}

/** The meeting of meetingStatement's rows; 404 in FastAPI's shape when there is none. */
function meetingOf(rows: z.output<typeof meetingRow>[], date: string, course: CourseRef): Meeting {
  const row = rows[0];
  if (!row) {
    const which = 'courseId' in course ? `courseId ${course.courseId}` : `course "${course.courseName}"`;
    throw detailError(404, `No race meeting at ${which} on ${date}`);
  }
  return { date: row.date, course: row.course, courseId: row.course_id };
}

/**
 * The meeting at a course (by id) on a date, 404 when there is none, and the rows of a statement
 * about it, in one round trip: the statement needs only the date and the course id, and finds
 * nothing without a meeting.
 */
export async function meetingAnd<S extends RowSchema>(
  db: RacingReads,
  date: string,
  courseId: number,
  statement: TextStatement<S>,
): Promise<{ meeting: Meeting; rows: z.output<S>[] }> {
  const course = { courseId };
  const [meetingRows, rows] = await readBatch(db, [meetingStatement(date, course), statement]);
  return { meeting: meetingOf(meetingRows, date, course), rows };
}

/** The race meeting (not a barrier trial) at a course on a date; 404 in FastAPI's shape when there is none. */
export async function findMeeting(db: RacingReads, date: string, course: CourseRef): Promise<Meeting> {
  return meetingOf(await readRows(db, meetingStatement(date, course)), date, course);
}

const meetingListItem = z.object({ date: pgDate, course: z.string(), course_id: pgInt, races: pgInt, runners: pgInt });
export type MeetingListItem = z.output<typeof meetingListItem>;

/** Race meetings on a date that have runners (scratchings aside), by course name. */
export function meetingsOn(db: RacingReads, date: string): Promise<MeetingListItem[]> {
  return readRows(db, {
    name: 'the meetings of a date',
    row: meetingListItem,
    text: `select to_char(m.date, 'YYYY-MM-DD') as date, c.name as course, c.id as course_id,
            count(distinct ra.id)::int as races, count(r.id)::int as runners
       from meetings m
       join courses c on c.id = m.course_id
       join races ra on ra.meeting_id = m.id
       join runners r on r.race_id = ra.id and not r.scratched
      where m.date = $1::date and not m.is_trial
      group by m.id, m.date, c.id, c.name
      order by c.name, c.id`,
    params: [date],
  });
}

const participant = z.object({ role: z.enum(['trainer', 'jockey']), id: pgInt, name: z.string() });
export type Participant = z.output<typeof participant>;

/**
 * The meeting at a course on a date (404 when there is none) and the trainers and jockeys of its
 * non-scratched runners (a rider still to be named is skipped), in one round trip.
 */
export async function meetingParticipants(
  db: RacingReads,
  date: string,
  courseId: number,
): Promise<{ meeting: Meeting; people: Participant[] }> {
  const { meeting, rows } = await meetingAnd(db, date, courseId, {
    name: 'the meeting participants',
    row: participant,
    text: `with entered as (
       select r.trainer_id, r.jockey_id
         from meetings m join races ra on ra.meeting_id = m.id join runners r on r.race_id = ra.id
        where m.date = $1::date and m.course_id = $2 and not m.is_trial and not r.scratched
     )
     select 'trainer' as role, t.id, t.name from trainers t where t.id in (select trainer_id from entered)
     union all
     select 'jockey', j.id, j.name from jockeys j where j.id in (select jockey_id from entered)
     order by role desc, name, id`,
    params: [date, courseId],
  });
  return { meeting, people: rows };
}
