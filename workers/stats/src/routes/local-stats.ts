import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { StatsEnv } from '../context.ts';
import { statsRouter, validationError } from '../errors.ts';
import type { CourseRef } from '../meetings.ts';
import { courseIdParam, statsRecordSchema } from '../schemas.ts';
import { meetingWithStatistics } from '../meeting-records.ts';
import { dateQuery, guardedRoute, notFoundError, ok, requestedDate } from './common.ts';
import { text } from '#shared/text.ts';

// The kebab-case family: always computed from the racing database, bare arrays of records.

const localQuery = z.object({
  date: dateQuery,
  courseId: courseIdParam.optional(),
  courseName: text().trim().min(1).max(100).optional().openapi({ description: 'Alternative to courseId (case-insensitive)' }),
});

function courseOf(query: z.infer<typeof localQuery>): CourseRef {
  if (query.courseId !== undefined) return { courseId: query.courseId };
  if (query.courseName !== undefined) return { courseName: query.courseName };
  throw validationError([{ type: 'missing', loc: ['query', 'courseId'], msg: 'courseId or courseName is required' }]);
}

async function localRecords(c: Context<StatsEnv>, query: z.infer<typeof localQuery>, who: 'trainer' | 'jockey') {
  const { trainers, jockeys } = await meetingWithStatistics(c.var.racing, requestedDate(c, query.date), courseOf(query), who);
  return who === 'trainer' ? trainers : jockeys;
}

const route = (who: 'trainer' | 'jockey') =>
  guardedRoute({
    method: 'get',
    path: `/${who}-stats`,
    summary: `${who === 'trainer' ? 'Trainer' : 'Jockey'} statistics of a meeting, from the racing database`,
    request: { query: localQuery },
    responses: { ...ok(z.array(statsRecordSchema), 'One record per person, by name'), ...notFoundError },
  });

export const localStats = statsRouter()
  .openapi(route('trainer'), async (c) => c.json(await localRecords(c, c.req.valid('query'), 'trainer'), 200))
  .openapi(route('jockey'), async (c) => c.json(await localRecords(c, c.req.valid('query'), 'jockey'), 200));
