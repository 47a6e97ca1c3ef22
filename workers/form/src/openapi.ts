import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { FormEnv } from './context.ts';
import { MAX_QUERY_LENGTH } from './params.ts';
import { SEARCH_LIMIT } from './queries.ts';
import { MIN_SEARCH_CHARS } from './routes/api.ts';

// The OpenAPI document of the JSON lookups under /form/api/, generated from the zod schemas
// below. The lookups themselves are plain Hono handlers (their answer to unusable input is the
// spec's empty array, not a validation error), so the document registers their parameters and
// answers here; test/form keeps the two in step, route for route.

/** Where the document is served: like every route of the service, with a trailing slash. */
export const OPENAPI_PATH = '/form/api/openapi/';

const error = z
  .object({
    error: z.string().openapi({ example: 'invalid_request' }),
    message: z.string(),
    request_id: z.string().optional(),
  })
  .passthrough()
  .openapi('Error');

const redirectToLogin = {
  description: 'No valid session: redirect to the login page (`Location: /form/`).',
  headers: { Location: { schema: { type: 'string' as const }, description: '`/form/`' } },
};
const common = {
  414: { description: 'The address is longer than 4096 characters.', content: { 'application/json': { schema: error } } },
  503: {
    description: 'The racing database is unavailable (`database_unavailable`, with Retry-After).',
    content: { 'application/json': { schema: error } },
  },
};
const session = [{ session: [] }];

const looseDate = z.string().openapi({
  description: 'YYYY-MM-DD. A missing or unusable date (not a real calendar date between 1900 and 2999) gives an empty array.',
  example: '2026-05-02',
});
const looseId = z.string().openapi({ description: 'A positive int4 id. A missing or unusable one gives an empty array.', example: '1042' });

const meeting = z
  .object({ meeting_id: z.string().openapi({ description: 'the meeting id, as a string' }), meeting_name: z.string() })
  .openapi('Meeting');
const race = z
  .object({
    race_id: z.number().int(),
    race_number: z.number().int(),
    race_name: z.string(),
    course_name: z.string(),
    distance: z.string().openapi({ example: '1200m' }),
    class_level: z.string(),
  })
  .openapi('Race');
const runner = z
  .object({
    horse_id: z.number().int(),
    tab_number: z.number().int(),
    horse_name: z.string(),
    jockey: z.string().openapi({ description: 'empty when no rider is named yet' }),
    trainer: z.string(),
    barrier: z.number().int(),
  })
  .openapi('Runner');
const hit = z.object({ id: z.number().int(), runner_name: z.string(), country: z.string() }).openapi('SearchHit');

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

const routes = [
  createRoute({
    method: 'get',
    path: '/form/api/dates/',
    summary: 'All race dates (trial meetings excluded), newest first',
    security: session,
    responses: {
      200: json(z.object({ dates: z.array(z.string().openapi({ example: '2026-05-02' })) }), 'The dates'),
      302: redirectToLogin,
      ...common,
    },
  }),
  createRoute({
    method: 'get',
    path: '/form/api/meetings/',
    summary: 'The meetings of a date',
    security: session,
    request: { query: z.object({ date: looseDate.optional() }) },
    responses: { 200: json(z.object({ meetings: z.array(meeting) }), 'The meetings, by course name'), 302: redirectToLogin, ...common },
  }),
  createRoute({
    method: 'get',
    path: '/form/api/races/',
    summary: 'The races of a date, optionally of one meeting',
    security: session,
    request: {
      query: z.object({
        date: looseDate.optional(),
        meeting: looseId.optional().openapi({ description: 'a `meeting_id`; one that is given but not an id matches nothing' }),
      }),
    },
    responses: { 200: json(z.object({ races: z.array(race) }), 'The races, by course and race number'), 302: redirectToLogin, ...common },
  }),
  createRoute({
    method: 'get',
    path: '/form/api/runners/',
    summary: 'The runners of a race, scratchings left out, by tab number',
    security: session,
    request: { query: z.object({ race_id: looseId.optional() }) },
    responses: { 200: json(z.object({ runners: z.array(runner) }), 'The runners'), 302: redirectToLogin, ...common },
  }),
  createRoute({
    method: 'get',
    path: '/form/api/search/',
    summary: 'Horse-name search (public)',
    description: `At most ${SEARCH_LIMIT} horses, names starting with \`q\` first, then names containing it; case-insensitive, \`%\` and \`_\` literal. Under ${MIN_SEARCH_CHARS} characters the answer has \`min_chars\` instead of \`count\`.`,
    request: {
      query: z.object({
        q: z
          .string()
          .optional()
          .openapi({ description: `the search text (trimmed), at most ${MAX_QUERY_LENGTH} characters, no NUL` }),
      }),
    },
    responses: {
      200: json(
        z.union([
          z.object({ horses: z.array(hit), query: z.string(), count: z.number().int().min(0).max(SEARCH_LIMIT) }),
          z.object({ horses: z.array(hit).max(0), query: z.string(), min_chars: z.literal(MIN_SEARCH_CHARS) }),
        ]),
        'The matching horses',
      ),
      400: json(error, `\`q\` is longer than ${MAX_QUERY_LENGTH} characters or holds a NUL character`),
      ...common,
    },
  }),
  createRoute({
    method: 'get',
    path: OPENAPI_PATH,
    summary: 'This document',
    security: session,
    responses: { 200: json(z.object({ openapi: z.string() }).passthrough(), 'The OpenAPI 3.1 document'), 302: redirectToLogin, ...common },
  }),
];

/** The OpenAPI 3.1 document of the form service's JSON routes. */
export function formApiDocument() {
  const describer = new OpenAPIHono();
  for (const route of routes) describer.openAPIRegistry.registerPath(route);
  describer.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'form_session' });
  return describer.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Runner form lookups',
      version: '1.0.0',
      description:
        "The JSON lookups of the runner form service. All but the horse search need the session cookie of a login at `POST /form/`; without one the answer is a 302 to `/form/`. Unusable query values are not errors: they give an empty array under the answer's key.",
    },
  });
}

let document: ReturnType<typeof formApiDocument> | undefined;

/** Serves the document (under /form/api/, so behind the session like the lookups). */
export const apiDocument: Hono<FormEnv> = new Hono<FormEnv>().get(OPENAPI_PATH, (c) => c.json((document ??= formApiDocument())));
