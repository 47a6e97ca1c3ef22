import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { InvalidInput } from '#shared/app.ts';
import { HttpError } from '#shared/http-error.ts';
import { logError } from '#shared/errors.ts';
import { asDatabaseUnavailable } from '#shared/pg-errors.ts';
import type { StatsEnv } from './context.ts';

// Existing clients of this API were written against a FastAPI service, so every error body has
// FastAPI's shape: `{"detail": "message"}`, and validation failures are 422 with
// `{"detail": [{"type", "loc", "msg"}]}`.

export type ValidationIssue = { type: string; loc: (string | number)[]; msg: string };

export const detailSchema = z
  .object({ detail: z.string().openapi({ example: 'Not authenticated' }) })
  .openapi('Error');
export const validationErrorSchema = z
  .object({
    detail: z.array(z.object({ type: z.string(), loc: z.array(z.union([z.string(), z.number()])), msg: z.string() })),
  })
  .openapi('ValidationError');

/** An error whose message reaches the client as `{detail}`. */
export function detailError(status: ContentfulStatusCode, message: string): HttpError {
  return new HttpError(status, 'detail', message);
}

/** A 422 in FastAPI's shape, for checks that zod schemas cannot express on their own. */
export function validationError(issues: ValidationIssue[]): HttpError {
  return new HttpError(422, 'validation', 'Validation failed', { issues });
}

export const onDetailError: ErrorHandler<StatsEnv> = (err, c) => {
  // Known errors, a driver error that means the database is unreachable (503) among them.
  const known = err instanceof HttpError ? err : asDatabaseUnavailable(err);
  if (known) {
    if (known.status === 422 && Array.isArray(known.details?.issues)) return c.json({ detail: known.details.issues }, 422);
    if (known.status >= 500) logError(c, err, 'stats');
    return c.json({ detail: known.message }, known.status);
  }
  if (err instanceof HTTPException) {
    // Hono raises these for a body it cannot parse (FastAPI: 422 json_invalid) or one over the limit.
    if (err.status === 400) {
      return c.json({ detail: [{ type: 'json_invalid', loc: ['body'], msg: err.message || 'Malformed JSON in request body' }] }, 422);
    }
    return c.json({ detail: err.message || 'Request could not be processed' }, err.status);
  }
  logError(c, err, 'stats');
  return c.json({ detail: 'Internal Server Error' }, 500);
};

export const onNotFound: NotFoundHandler<StatsEnv> = (c) => c.json({ detail: 'Not Found' }, 404);

/** Invalid input answers 422 in FastAPI's shape (the app's `invalid` option, inherited by every router). */
export function fastApiInvalid({ target, error }: InvalidInput, c: Context<StatsEnv>) {
  const detail: ValidationIssue[] = error.issues.map((issue) => {
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return {
      type: missing ? 'missing' : issue.code,
      loc: [target, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
      msg: missing ? 'Field required' : issue.message,
    };
  });
  return c.json({ detail }, 422);
}

/** A router of the app: its invalid input answers as the app's does (fastApiInvalid). */
export function statsRouter() {
  return new OpenAPIHono<StatsEnv>();
}
