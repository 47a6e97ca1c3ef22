import { type RacingReads, readRows } from '../../shared/pg.ts';
import { type CourseRef, findMeeting, meetingAnd } from './meetings.ts';
import type { Meeting, StatsRecord } from './schemas.ts';
import { MEETING_STATS_SQL, type PersonRow, recordsOf, type Role } from './statistics.ts';

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
    return { meeting, ...recordsOf(await readRows<PersonRow>(db, MEETING_STATS_SQL, [meeting.date, meeting.courseId, who])) };
  }
  const { meeting, rows } = await meetingAnd<PersonRow>(db, date, course.courseId, { text: MEETING_STATS_SQL, params: [date, course.courseId, who] });
  return { meeting, ...recordsOf(rows) };
}
