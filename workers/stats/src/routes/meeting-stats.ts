import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { racingDb } from '../../../shared/pg';
import { requireToken } from '../auth';
import { racingToday, statsConfig, type StatsEnv } from '../context';
import { statsRouter } from '../errors';
import { fetchExternalStats } from '../external-api';
import { findMeeting } from '../meetings';
import { jockeysWrapperSchema, meetingWrapperSchema, trainersWrapperSchema } from '../schemas';
import { meetingStatistics } from '../statistics';
import { badGatewayError, callerAddress, guardedErrors, meetingQuery, notFoundError, ok, security } from './common';

// The camelCase family, for external integrations: the external statistics API when
// EXTERNAL_API_ENABLED, the racing database otherwise; each records the caller's meeting.

type Query = z.infer<typeof meetingQuery>;

async function rememberCaller(c: Context<StatsEnv>, date: string, courseId: number) {
  const stub = c.env.USER_CONTEXT.get(c.env.USER_CONTEXT.idFromName(callerAddress(c)));
  await stub.remember({ date, course_id: courseId });
}

/** The meeting and its records from the racing database. */
async function local(c: Context<StatsEnv>, date: string, courseId: number, who: 'all' | 'trainer' | 'jockey') {
  const meeting = await findMeeting(c.var.racing, date, { courseId });
  return { status: 'success' as const, meeting, ...(await meetingStatistics(c.var.racing, meeting, who)) };
}

function request(c: Context<StatsEnv>, query: Query) {
  const config = statsConfig(c);
  return { config, date: query.date ?? racingToday(config.RACING_TIMEZONE), courseId: query.courseId };
}

const route = (path: string, summary: string, schema: z.ZodType) =>
  createRoute({
    method: 'get',
    path,
    summary,
    security,
    middleware: [requireToken(), racingDb()] as const,
    request: { query: meetingQuery },
    responses: { ...ok(schema, '`{status, meeting, …}`'), ...guardedErrors, ...notFoundError, ...badGatewayError },
  });

export const meetingStats = statsRouter()
  .openapi(route('/trainerStats', 'Trainer statistics of a meeting (external API or local)', trainersWrapperSchema), async (c) => {
    const { config, date, courseId } = request(c, c.req.valid('query'));
    const { status, meeting, trainers } = config.EXTERNAL_API_ENABLED
      ? await fetchExternalStats(config, 'trainerStats', date, courseId)
      : await local(c, date, courseId, 'trainer');
    await rememberCaller(c, date, courseId);
    return c.json({ status, meeting, trainers }, 200);
  })
  .openapi(route('/jockeyStats', 'Jockey statistics of a meeting (external API or local)', jockeysWrapperSchema), async (c) => {
    const { config, date, courseId } = request(c, c.req.valid('query'));
    const { status, meeting, jockeys } = config.EXTERNAL_API_ENABLED
      ? await fetchExternalStats(config, 'jockeyStats', date, courseId)
      : await local(c, date, courseId, 'jockey');
    await rememberCaller(c, date, courseId);
    return c.json({ status, meeting, jockeys }, 200);
  })
  .openapi(route('/meetingStats', 'Trainer and jockey statistics of a meeting (external API or local)', meetingWrapperSchema), async (c) => {
    const { config, date, courseId } = request(c, c.req.valid('query'));
    const { status, meeting, trainers, jockeys } = config.EXTERNAL_API_ENABLED
      ? await fetchExternalStats(config, 'meetingStats', date, courseId)
      : await local(c, date, courseId, 'all');
    await rememberCaller(c, date, courseId);
    return c.json({ status, meeting, trainers, jockeys }, 200);
  });
