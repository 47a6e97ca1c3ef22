import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, Env, ErrorHandler, NotFoundHandler } from 'hono';
import type { ZodError } from 'zod';
import { drainUnreadBody } from './body.ts';
import { errorBody, notFound, onError } from './errors.ts';
import { requestLog } from './request-log.ts';

/** Input that failed its route's zod schema: which part of the request (`json`, `query`, `param`, …) and why. */
export type InvalidInput = { target: string; error: ZodError };

/**
 * What a service's spec fixes about its answers: the body of a request whose input fails its schema,
 * of an error, and of a path with no route. Each defaults to the platform's JSON
 * `{error, message, request_id}`.
 */
export type AppOptions<E extends Env> = {
  invalid?: (input: InvalidInput, c: Context<E>) => Response | Promise<Response>;
  onError?: ErrorHandler<E>;
  notFound?: NotFoundHandler<E>;
};

/** The platform's answer to invalid input: 400 with the offending fields. */
export function invalidRequest<E extends Env>(input: InvalidInput, c: Context<E>) {
  const issues = input.error.issues.map((issue) => ({
    field: [input.target, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return c.json(errorBody(c, 'invalid_request', `Invalid ${issues.map((i) => i.field).join(', ')}`, { issues }), 400);
}

/**
 * The base every service builds on: an unread request body drained before answering, request id +
 * one log line per request, and the service's answers to invalid input, errors and unknown paths
 * (`options`). Routers mounted on the app inherit its invalid-input answer.
 */
export function createApp<E extends Env>(service: string, options: AppOptions<E & { Variables: { requestId: string } }> = {}) {
  const invalid = options.invalid ?? invalidRequest<E & { Variables: { requestId: string } }>;
  const app = new OpenAPIHono<E & { Variables: { requestId: string } }>({
    defaultHook: (result, c) => {
      if (result.success) return;
      return invalid({ target: result.target, error: result.error }, c);
    },
  });
  app.use(drainUnreadBody());
  app.use(requestLog(service));
  app.onError(options.onError ?? onError);
  app.notFound(options.notFound ?? notFound);
  return app;
}
