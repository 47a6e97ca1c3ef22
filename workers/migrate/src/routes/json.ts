import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { MigrateEnv } from '../context.ts';
import { GUID, invalid } from '../input.ts';

/** A group of JSON routes: invalid input is the platform's 400 `{error: "invalid_request", issues}`. */
export function jsonRoutes() {
  return new OpenAPIHono<MigrateEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalid(result.error, result.target);
    },
  });
}

export const json = (schema: z.ZodType, description: string) => ({ content: { 'application/json': { schema } }, description });

export const ErrorBody = z.object({ error: z.string(), message: z.string(), request_id: z.string().optional() }).openapi('Error');

/** The answers every guarded JSON route can give besides its own. */
export const guardedResponses = {
  302: { description: 'Not signed in, or the session expired: redirect to /Account/Login' },
  400: json(ErrorBody, 'Invalid input'),
  403: json(ErrorBody, 'Anti-forgery check failed, or the role may not do this'),
};

export const security = [{ authToken: [] }];

/** A job's GUID in the path (imports, discipline repairs). */
export const JobIdParam = z.object({
  jobId: z
    .string()
    .regex(GUID, 'must be a GUID')
    .openapi({ param: { name: 'jobId', in: 'path' }, example: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }),
});
