import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { drainUnreadBody } from './body.ts';
import { errorBody, notFound, onError } from './errors.ts';
import { requestLog } from './request-log.ts';

/**
 * The base every JSON service builds on: an unread request body drained before answering, request id + one log line per request, the shared
 * error and not-found handlers, and zod validation failures as 400 with the offending fields.
 */
export function createApp<E extends Env>(service: string) {
  const app = new OpenAPIHono<E & { Variables: { requestId: string } }>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issues = result.error.issues.map((issue) => ({
        field: [result.target, ...issue.path.map(String)].join('.'),
        message: issue.message,
      }));
      return c.json(
        errorBody(c, 'invalid_request', `Invalid ${issues.map((i) => i.field).join(', ')}`, { issues }),
        400,
      );
    },
  });
  app.use(drainUnreadBody());
  app.use(requestLog(service));
  app.onError(onError);
  app.notFound(notFound);
  return app;
}
