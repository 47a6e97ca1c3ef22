import { createRoute, z } from '@hono/zod-openapi';
import { requireToken } from '../auth';
import { statsRouter } from '../errors';
import { isoDate } from '../schemas';
import { callerContext, guardedErrors, ok, security } from './common';

const userContextSchema = z
  .union([z.object({ date: isoDate, course_id: z.number().int() }), z.object({})])
  .openapi('UserContext');

export const userContext = statsRouter().openapi(
  createRoute({
    method: 'get',
    path: '/api/user-context',
    summary: "The meeting this caller's address last asked a camelCase endpoint for, within 5 minutes; else {}",
    security,
    middleware: [requireToken()] as const,
    responses: { ...ok(userContextSchema, '{date, course_id} or {}'), ...guardedErrors },
  }),
  async (c) => c.json((await callerContext(c).recall()) ?? {}, 200),
);
