import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { statsConfig, type StatsEnv } from '../context.ts';
import { statsRouter } from '../errors.ts';
import { type ExternalEndpoint, fetchExternalStats } from '../external-api.ts';
import { jockeysWrapperSchema, meetingWrapperSchema, trainersWrapperSchema } from '../schemas.ts';
import { meetingWithStatistics } from '../meeting-records.ts';
import { badGatewayError, callerContext, guardedRoute, meetingQuery, notFoundError, ok, requestedDate } from './common.ts';

// The camelCase family, for external integrations: the external statistics API when
// EXTERNAL_API_ENABLED, the racing database otherwise; each records the caller's meeting.

/** Whose records each endpoint computes when it answers from the racing database. */
const WHO = { trainerStats: 'trainer', jockeyStats: 'jockey', meetingStats: 'all' } as const satisfies Record<ExternalEndpoint, string>;

/** The meeting and its records from the racing database. */
async function local(c: Context<StatsEnv>, date: string, courseId: number, who: 'all' | 'trainer' | 'jockey') {
  return { status: 'success' as const, ...(await meetingWithStatistics(c.var.racing, date, { courseId }, who)) };
}

/** The endpoint's answer (external API or racing database); once it is there, the caller's meeting is remembered. */
async function answer<E extends ExternalEndpoint>(c: Context<StatsEnv>, endpoint: E, query: z.infer<typeof meetingQuery>) {
  const config = statsConfig(c);
  const date = requestedDate(c, query.date);
  const { courseId } = query;
  const result = config.EXTERNAL_API_ENABLED
    ? await fetchExternalStats(config, endpoint, date, courseId)
    : await local(c, date, courseId, WHO[endpoint]);
  await callerContext(c).remember({ date, course_id: courseId });
  return result;
}

const route = (endpoint: ExternalEndpoint, summary: string, schema: z.ZodType) =>
  guardedRoute({
    method: 'get',
    path: `/${endpoint}`,
    summary,
    request: { query: meetingQuery },
    responses: { ...ok(schema, '`{status, meeting, …}`'), ...notFoundError, ...badGatewayError },
  });

export const meetingStats = statsRouter()
  .openapi(route('trainerStats', 'Trainer statistics of a meeting (external API or local)', trainersWrapperSchema), async (c) => {
    const { status, meeting, trainers } = await answer(c, 'trainerStats', c.req.valid('query'));
    return c.json({ status, meeting, trainers }, 200);
  })
  .openapi(route('jockeyStats', 'Jockey statistics of a meeting (external API or local)', jockeysWrapperSchema), async (c) => {
    const { status, meeting, jockeys } = await answer(c, 'jockeyStats', c.req.valid('query'));
    return c.json({ status, meeting, jockeys }, 200);
  })
  .openapi(route('meetingStats', 'Trainer and jockey statistics of a meeting (external API or local)', meetingWrapperSchema), async (c) => {
    const { status, meeting, trainers, jockeys } = await answer(c, 'meetingStats', c.req.valid('query'));
    return c.json({ status, meeting, trainers, jockeys }, 200);
  });
