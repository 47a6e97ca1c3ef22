import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { UserContext } from '#durable-objects/user-context.ts';
import { limitBody as limitBodyBytes } from '#shared/body.ts';
import { racingReads } from '#shared/pg.ts';
import { clientAddress } from '#shared/throttle.ts';
import { requireToken } from '../guards.ts';
import { racingToday, statsConfig, type StatsEnv } from '../context.ts';
import { detailError, detailSchema, validationErrorSchema } from '../errors.ts';
import { courseIdParam, isoDate } from '../schemas.ts';
import { STATS_STARTUP_OPTIONS } from '../statistics.ts';

const security: Record<string, string[]>[] = [{ bearer: [] }, { tokenQuery: [] }, { ssoTokenQuery: [] }];

export const json = (schema: z.ZodType, description: string) => ({ content: { 'application/json': { schema } }, description });

/** The error answers every token-guarded route can give. */
const guardedErrors = {
  401: json(detailSchema, 'Token missing or wrong'),
  422: json(validationErrorSchema, 'Invalid parameters or body'),
  503: json(detailSchema, 'The racing database is unreachable'),
};
export const notFoundError = { 404: json(detailSchema, 'No race meeting at that course on that date') };
export const badGatewayError = { 502: json(detailSchema, 'The external statistics API failed, timed out or answered off-contract') };
export const ok = (schema: z.ZodType, description: string) => ({ 200: json(schema, description) });

/**
 * A route behind the static token: the security schemes, the token check ahead of `middleware`
 * (by default the racing database's one-shot reads over HTTP), and the error answers every guarded route can give.
 */
export function guardedRoute<P extends string, R extends Omit<RouteConfig, 'path' | 'security' | 'middleware'> & { path: P }>(
  route: R,
  middleware: MiddlewareHandler[] = [racingReads({ startupOptions: STATS_STARTUP_OPTIONS })],
) {
  return createRoute({
    ...route,
    security,
    middleware: [requireToken(), ...middleware],
    responses: { ...route.responses, ...guardedErrors },
  });
}

export const dateQuery = isoDate.optional().openapi({ description: 'YYYY-MM-DD; default today in the racing timezone' });

export const meetingQuery = z.object({ date: dateQuery, courseId: courseIdParam });

/** The requested date, or today in the racing timezone when the query has none. */
export function requestedDate(c: Context<StatsEnv>, date: string | undefined): string {
  return date ?? racingToday(statsConfig(c).RACING_TIMEZONE);
}

/** A body over `maxSize` bytes is 413 {detail}. */
export const limitBody = (maxSize: number) =>
  limitBodyBytes<StatsEnv>(maxSize, () => {
    throw detailError(413, `Body larger than ${maxSize} bytes`);
  });

/** The caller's user context (one Durable Object per address). */
export function callerContext(c: Context<StatsEnv>): DurableObjectStub<UserContext> {
  return c.env.USER_CONTEXT.get(c.env.USER_CONTEXT.idFromName(clientAddress(c)));
}
