import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { HttpError } from './http-error.ts';
import { asDatabaseUnavailable } from './pg-errors.ts';

export type ErrorBody = { error: string; message: string; request_id?: string } & Record<string, unknown>;

export function errorBody(c: Context, code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  const requestId = c.get('requestId') as string | undefined;
  return { error: code, message, ...details, ...(requestId ? { request_id: requestId } : {}) };
}

/** The one error handler every JSON API installs: known errors keep their status, the rest are logged 500s. */
export const onError: ErrorHandler = (err, c) => {
  if (err instanceof HttpError) {
    if (err.status >= 500) logError(c, err);
    // A throttled answer says when to come back (`details.retryAfterSeconds`).
    const retryAfter = err.details?.retryAfterSeconds;
    if (err.status === 429 || err.status === 503) {
      if (typeof retryAfter === 'number' && retryAfter > 0) c.header('Retry-After', String(Math.ceil(retryAfter)));
    }
    return c.json(errorBody(c, err.code, err.message, err.details), err.status);
  }
  const unavailable = asDatabaseUnavailable(err);
  if (unavailable) {
    logError(c, err);
    return c.json(errorBody(c, unavailable.code, unavailable.message), unavailable.status);
  }
  if (err instanceof HTTPException) {
    // Hono raises these itself, e.g. for a malformed JSON body or a body over the size limit.
    const status = err.status;
    const code = status === 413 ? 'payload_too_large' : status === 400 ? 'bad_request' : 'http_error';
    return c.json(errorBody(c, code, err.message || 'Request could not be processed'), status);
  }
  logError(c, err);
  return c.json(errorBody(c, 'internal_error', 'An unexpected error occurred'), 500);
};

export const notFound: NotFoundHandler = (c) =>
  c.json(errorBody(c, 'not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404);

/** One JSON line for a failed request; `service` names the Worker where the line alone must tell. */
export function logError(c: Context, err: unknown, service?: string): void {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
  console.error(
    JSON.stringify({
      level: 'error',
      service,
      request_id: c.get('requestId'),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      error: err instanceof Error ? err.message : String(err),
      cause,
      stack: err instanceof Error ? err.stack : undefined,
    }),
  );
}
