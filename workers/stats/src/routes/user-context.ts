import { z } from '@hono/zod-openapi';
import { statsRouter } from '../errors.ts';
import { isoDate } from '../schemas.ts';
import { callerContext, guardedRoute, ok } from './common.ts';

const userContextSchema = z.union([z.object({ date: isoDate, course_id: z.number().int() }), z.object({})]).openapi('UserContext');

export const userContext = statsRouter().openapi(
  guardedRoute(
    {
      method: 'get',
      path: '/api/user-context',
      summary: "The meeting this caller's address last asked a camelCase endpoint for, within 5 minutes; else {}",
      responses: ok(userContextSchema, '{date, course_id} or {}'),
    },
    [],
  ), // no database: the context lives in a Durable Object
  async (c) => c.json((await callerContext(c).recall()) ?? {}, 200),
);
