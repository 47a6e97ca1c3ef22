import { type RacingReads, readRows } from '#shared/pg.ts';
import { type CourseRef, findMeeting, meetingAnd } from './meetings.ts';
import type { Meeting, StatsRecord } from './schemas.ts';
import { meetingStatsStatement, recordsOf, type Role } from './statistics.ts';

/**
 * The meeting (404 when there is none) and its trainers' and jockeys' records. By course id, both
 * statements go in one round trip: the statistics need only the date and the course id, and are
 * empty without a meeting.
 */
export async function meetingWithStatistics(
  db: RacingReads,
  date: string,
  course: CourseRef,
  who: 'all' | Role = 'all',
): Promise<{ meeting: Meeting; trainers: StatsRecord[]; jockeys: StatsRecord[] }> {
  if (!('courseId' in course)) {
    const meeting = await findMeeting(db, date, course);
    return { meeting, ...recordsOf(await readRows(db, meetingStatsStatement(meeting.date, meeting.courseId, who))) };
  }
  const { meeting, rows } = await meetingAnd(db, date, course.courseId, meetingStatsStatement(date, course.courseId, who));
  return { meeting, ...recordsOf(rows) };
}
