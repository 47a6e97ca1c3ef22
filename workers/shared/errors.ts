import type { Context, Env, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HTTPException } from 'hono/http-exception';
import { HttpError } from './http-error.ts';
import { asDatabaseUnavailable } from './pg-errors.ts';

export type ErrorBody = { error: string; message: string; request_id?: string } & Record<string, unknown>;

export function errorBody(c: Context, code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  const requestId = c.get('requestId') as string | undefined;
  return { error: code, message, ...details, ...(requestId ? { request_id: requestId } : {}) };
}

/**
 * What the shared handler decides about an error: the status, the code and the message a client
 * may see, and what kind of error it was. `framework`: raised by Hono itself (a body it could not
 * parse); `unexpected`: a fault of ours, logged, its text never sent.
 */
export type ClassifiedError = {
  status: ContentfulStatusCode;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  kind: 'http' | 'database' | 'framework' | 'unexpected';
};

/** How a service draws a classified error: JSON for APIs, a page for pages. */
export type ErrorRenderer<E extends Env = Env> = (c: Context<E>, error: ClassifiedError) => Response | Promise<Response>;

export const UNEXPECTED_MESSAGE = 'An unexpected error occurred';

/**
 * The one classification of an error: an HttpError keeps its status and code; a driver error that
 * means the database is unreachable is a 503; Hono's own (malformed body, body too large) keep their
 * status; anything else is a 500 whose text is never sent. `known` lets a service name its own
 * domain errors first (e.g. the migration engine's refusals).
 */
export function classifyError(err: unknown, known?: (err: unknown) => Omit<ClassifiedError, 'kind'> | undefined): ClassifiedError {
  if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message, details: err.details, kind: 'http' };
  const own = known?.(err);
  if (own) return { ...own, kind: 'http' };
  const unavailable = asDatabaseUnavailable(err);
  if (unavailable) return { status: unavailable.status, code: unavailable.code, message: unavailable.message, kind: 'database' };
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const code = status === 413 ? 'payload_too_large' : status === 400 ? 'bad_request' : 'http_error';
    return { status, code, message: err.message || 'Request could not be processed', kind: 'framework' };
  }
  return { status: 500, code: 'internal_error', message: UNEXPECTED_MESSAGE, kind: 'unexpected' };
}

/** The platform's JSON drawing: `{error, message, ...details, request_id}`. */
export function renderJson<E extends Env>(c: Context<E>, error: ClassifiedError): Response {
  return c.json(errorBody(c, error.code, error.message, error.details), error.status);
}

/**
 * The one error handler: classifies (above), logs server faults, says when to come back
 * (`details.retryAfterSeconds` as Retry-After), and leaves the drawing to the service's `render`.
 */
export function errorHandler<E extends Env = Env>(
  render: ErrorRenderer<E>,
  options: { service?: string; known?: (err: unknown) => Omit<ClassifiedError, 'kind'> | undefined } = {},
): ErrorHandler<E> {
  return (err, c) => {
    const error = classifyError(err, options.known);
    if (error.status >= 500) logError(c, err, options.service);
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number' && retryAfter >= 0) c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
    return render(c, error);
  };
}

/** The handler of every JSON API that draws errors the platform's way. */
export const onError: ErrorHandler = errorHandler(renderJson);

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
      detail: err instanceof HttpError ? err.details?.detail : undefined,
      stack: err instanceof Error ? err.stack : undefined,
    }),
  );
}
