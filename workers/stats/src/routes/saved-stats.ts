import { z } from '@hono/zod-openapi';
import { racingReads } from '#shared/pg.ts';
import { statsRouter } from '../errors.ts';
import { isoDate, notFoundStatusSchema, savedPayloadSchema } from '../schemas.ts';
import { loadPayload, savePayload } from '../saved-stats.ts';
import { guardedRoute, limitBody, meetingQuery, ok, requestedDate } from './common.ts';

/** Two meetings' worth of records is well under this; anything larger is not a payload of this API. */
export const SAVE_STATS_MAX_BYTES = 2 * 1024 * 1024;

const savedSchema = z
  .object({ status: z.literal('success'), date: isoDate, course_id: z.number().int(), saved_at: z.string() })
  .openapi('SaveStatsResult');

export const savedStats = statsRouter()
  .openapi(
    guardedRoute(
      {
        method: 'post',
        path: '/save-stats',
        summary: 'Store a computed payload for a meeting (the latest save wins)',
        request: { body: { content: { 'application/json': { schema: savedPayloadSchema } }, required: true } },
        responses: ok(savedSchema, 'Saved'),
      },
      [limitBody(SAVE_STATS_MAX_BYTES), racingReads()],
    ),
    async (c) => {
      const payload = c.req.valid('json');
      const savedAt = await savePayload(c.var.racing, payload);
      return c.json({ status: 'success' as const, date: payload.date, course_id: payload.course_id, saved_at: savedAt }, 200);
    },
  )
  .openapi(
    guardedRoute({
      method: 'get',
      path: '/saved-stats',
      summary: 'The saved payload of a meeting, or {"status": "not_found"}',
      request: { query: meetingQuery },
      responses: ok(z.union([savedPayloadSchema, notFoundStatusSchema]), 'The payload, or not_found'),
    }),
    async (c) => {
      const { date, courseId } = c.req.valid('query');
      const payload = await loadPayload(c.var.racing, requestedDate(c, date), courseId);
      return c.json(payload ?? { status: 'not_found' as const }, 200);
    },
  );
