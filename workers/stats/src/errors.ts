import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { InvalidInput } from '#shared/app.ts';
import { HttpError } from '#shared/http-error.ts';
import { errorHandler, type ErrorRenderer } from '#shared/errors.ts';
import type { StatsEnv } from './context.ts';

// Existing clients of this API were written against a FastAPI service, so every error body has
// FastAPI's shape: `{"detail": "message"}`, and validation failures are 422 with
// `{"detail": [{"type", "loc", "msg"}]}`.

export type ValidationIssue = { type: string; loc: (string | number)[]; msg: string };

export const detailSchema = z.object({ detail: z.string().openapi({ example: 'Not authenticated' }) }).openapi('Error');
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

/** The shared classification drawn in FastAPI's shape. */
const renderDetail: ErrorRenderer<StatsEnv> = (c, error) => {
  if (error.status === 422 && Array.isArray(error.details?.issues)) return c.json({ detail: error.details.issues }, 422);
  // Hono raises a 400 for a body it cannot parse: FastAPI answers 422 json_invalid.
  if (error.kind === 'framework' && error.status === 400) {
    return c.json({ detail: [{ type: 'json_invalid', loc: ['body'], msg: error.message || 'Malformed JSON in request body' }] }, 422);
  }
  if (error.kind === 'unexpected') return c.json({ detail: 'Internal Server Error' }, 500);
  return c.json({ detail: error.message }, error.status);
};

export const onDetailError: ErrorHandler<StatsEnv> = errorHandler(renderDetail, { service: 'stats' });

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
