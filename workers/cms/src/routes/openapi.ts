import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';

/** The shared error body (workers/shared/errors.ts); invalid input adds `issues`. */
export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'invalid_request' }),
    message: z.string(),
    request_id: z.string().optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi('Error');

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input; `issues` names each field',
  401: 'No session cookie, or the session has ended',
  403: 'The role may not do this, or the request came from an origin that is not allowed',
  404: 'Not found',
  413: 'Body too large',
  415: 'Body is not JSON',
  429: 'Too many attempts',
  502: 'The authentication service could not be reached',
  503: 'The racing database is unavailable',
};

export function errorResponses(...statuses: (keyof typeof DESCRIPTIONS)[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  );
}

/** An answer with a JSON body. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** `createRoute` for the routes of one tag, all signed in by the session cookie. */
export function sessionRoutes(tag: string) {
  const tags = [tag];
  const security = [{ session: [] }];
  return <R extends Omit<RouteConfig, 'tags' | 'security'>>(config: R) => createRoute({ ...config, tags, security });
}

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** `?ids=1,2,3` style parameters: comma-separated positive ids, empty allowed. */
export const idList = z
  .string()
  .max(2_000, 'is too long')
  .regex(/^\s*(\d{1,9}\s*(,\s*\d{1,9}\s*)*)?,?\s*$/, 'must be comma-separated ids')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number),
  );

/** An id in a query string or path: digits only, at most 9 of them (fits D1 and Postgres integers). */
export const idText = z
  .string({ error: 'is required' })
  .regex(/^\d{1,9}$/, 'must be a positive whole number')
  .transform(Number);

/** A numeric path id. */
export const IdParam = z.object({
  id: idText.openapi({ param: { name: 'id', in: 'path' }, example: '42', type: 'integer' }),
});
