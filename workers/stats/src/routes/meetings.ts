import { z } from '@hono/zod-openapi';
import { statsRouter } from '../errors.ts';
import { meetingParticipants, meetingsOn } from '../meetings.ts';
import { meetingSchema, statsRecordSchema, type StatsRecord } from '../schemas.ts';
import { dateQuery, guardedRoute, meetingQuery, notFoundError, ok, requestedDate } from './common.ts';

const meetingItemSchema = z
  .object({ date: z.string(), course: z.string(), course_id: z.number().int(), races: z.number().int(), runners: z.number().int() })
  .openapi('MeetingListItem');

const participantsSchema = z
  .object({ meeting: meetingSchema, trainers: z.array(statsRecordSchema), jockeys: z.array(statsRecordSchema) })
  .openapi('MeetingParticipants');

export const meetings = statsRouter()
  .openapi(
    guardedRoute({
      method: 'get',
      path: '/meetings',
      summary: 'Race meetings with runners on a date',
      request: { query: z.object({ date: dateQuery }) },
      responses: ok(z.array(meetingItemSchema), 'Meetings by course name'),
    }),
    async (c) => {
      return c.json(await meetingsOn(c.var.racing, requestedDate(c, c.req.valid('query').date)), 200);
    },
  )
  .openapi(
    guardedRoute({
      method: 'get',
      path: '/meeting-participants',
      summary: 'Trainers and jockeys entered at a meeting, with zero-valued statistics (nothing is calculated)',
      request: { query: meetingQuery },
      responses: { ...ok(participantsSchema, 'The meeting and its people'), ...notFoundError },
    }),
    async (c) => {
      const { date, courseId } = c.req.valid('query');
      const { meeting, people } = await meetingParticipants(c.var.racing, requestedDate(c, date), courseId);
      const placeholder = (id: number, name: string): StatsRecord => ({
        id,
        name,
        performance_365d: { wins: 0, starts: 0, win_pct: 0 },
        wins_30d: 0,
        avg_per_meeting: 0,
        last_win_date: null,
        avg_finishing_pos: 0,
        top_horses: [],
        price_band_ivs: [],
      });
      return c.json(
        {
          meeting,
          trainers: people.filter((p) => p.role === 'trainer').map((p) => placeholder(p.id, p.name)),
          jockeys: people.filter((p) => p.role === 'jockey').map((p) => placeholder(p.id, p.name)),
        },
        200,
      );
    },
  );
