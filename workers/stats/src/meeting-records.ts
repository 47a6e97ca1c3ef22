import { type RacingReads, readBatch } from '../../shared/pg';
import { type CourseRef, findMeeting, meetingOf, meetingStatement } from './meetings';
import type { Meeting, StatsRecord } from './schemas';
import { MEETING_STATS_SQL, meetingStatistics, type PersonRow, recordsOf, type Role } from './statistics';

/**
 * The meeting (404 when there is none) and its records. By course id, both statements go in one
 * round trip: the statistics need only the date and the course id, and are empty without a meeting.
 */
export async function meetingWithStatistics(
  db: RacingReads,
  date: string,
  course: CourseRef,
  who: 'all' | Role = 'all',
): Promise<{ meeting: Meeting; trainers: StatsRecord[]; jockeys: StatsRecord[] }> {
  if (!('courseId' in course)) {
    const meeting = await findMeeting(db, date, course);
    return { meeting, ...(await meetingStatistics(db, meeting, who)) };
  }
  const [meetingRows, people] = await readBatch(db, [
    meetingStatement(date, course),
    { text: MEETING_STATS_SQL, params: [date, course.courseId, who] },
  ]);
  return { meeting: meetingOf(meetingRows ?? [], date, course), ...recordsOf((people ?? []) as PersonRow[]) };
}
