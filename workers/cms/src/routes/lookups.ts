import { OpenAPIHono, z } from '@hono/zod-openapi';
import { createSelectSchema } from 'drizzle-zod';
import { authors, contributors, newsTypes, sites } from '#d1/cms/schema.ts';
import { racingReads } from '#shared/pg.ts';
import { plainIntegers } from '#shared/table-schemas.ts';
import { isoDate } from '#shared/dates.ts';
import { racingToday } from '#shared/racing-day.ts';
import type { CmsEnv } from '../context.ts';
import { BOOTSTRAP_KEYS, bootstrapLists, listAuthors, listContributors, listSites, newsTypesOfSites } from '../data/lookups.ts';
import { reader } from '../guards.ts';
import { courses, racesOfCourse, searchHorses, searchJockeys, searchTrainers } from '../racing-lookups.ts';
import { errorResponses, idList, idText, json, sessionRoutes } from './openapi.ts';
import { text } from '#shared/text.ts';

/** Read-only pick lists for the editing forms. */
export const lookups = new OpenAPIHono<CmsEnv>();

// The lists are rows of their tables: the answers' schemas come from the tables (drizzle-zod).
const Site = plainIntegers(createSelectSchema(sites).pick({ id: true, name: true, url: true })).openapi('Site');
const Author = plainIntegers(createSelectSchema(authors).pick({ id: true, name: true })).openapi('Author');
const Contributor = plainIntegers(createSelectSchema(contributors).pick({ id: true, name: true })).openapi('Contributor');
const NewsType = plainIntegers(createSelectSchema(newsTypes).pick({ id: true, name: true, siteId: true })).openapi('NewsType');

const route = sessionRoutes('Lookups');

lookups.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/bootstrap',
    summary: 'Several lists in one call',
    description: 'Comma-separated `keys` from `sites`, `authors`, `contributors`; unknown keys are left out of the answer, not rejected.',
    request: { query: z.object({ keys: text().max(500, 'is too long').default('').openapi({ example: 'sites,authors' }) }) },
    responses: {
      200: json(
        z.object({ sites: z.array(Site).optional(), authors: z.array(Author).optional(), contributors: z.array(Contributor).optional() }),
        'The lists asked for',
      ),
      ...errorResponses(400, 401),
    },
  }),
  async (c) => {
    const asked = new Set(
      c.req
        .valid('query')
        .keys.split(',')
        .map((key) => key.trim()),
    );
    const keys = BOOTSTRAP_KEYS.filter((key) => asked.has(key));
    if (keys.length === 0) return c.json({}, 200);
    // One D1 round trip for all of them.
    return c.json(await bootstrapLists(c.var.db, keys), 200);
  },
);

/** A dropdown's route: every row of one table, by name. */
const dropdownRoute = <T extends z.ZodType>(path: string, item: T, summary: string, description: string) =>
  route({
    method: 'get',
    middleware: [reader] as const,
    path,
    summary,
    responses: { 200: json(z.array(item), description), ...errorResponses(401) },
  });

lookups.openapi(dropdownRoute('/sites', Site, 'Site dropdown', 'Sites by name'), async (c) => c.json(await listSites(c.var.db), 200));
lookups.openapi(dropdownRoute('/authors', Author, 'Author dropdown', 'Authors by name'), async (c) =>
  c.json(await listAuthors(c.var.db), 200),
);
lookups.openapi(dropdownRoute('/contributors', Contributor, 'Contributor dropdown', 'Contributors by name'), async (c) =>
  c.json(await listContributors(c.var.db), 200),
);

lookups.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/news-types',
    summary: 'News types of the given sites',
    request: { query: z.object({ siteIds: idList.optional().openapi({ example: '1,2', type: 'string' }) }) },
    responses: { 200: json(z.array(NewsType), 'News types by name; [] when siteIds is empty or missing'), ...errorResponses(400, 401) },
  }),
  async (c) => {
    const siteIds = c.req.valid('query').siteIds ?? [];
    if (siteIds.length === 0) return c.json([], 200);
    return c.json(await newsTypesOfSites(c.var.db, siteIds), 200);
  },
);

// Search-as-you-type over the racing database. An empty query answers [] before any connection
// is opened: the pool is created lazily by the middleware and connects on its first query.
const SearchQuery = z.object({
  query: text().max(100, 'must be at most 100 characters').default('').openapi({ example: 'win' }),
});

function searchRoute(path: string, item: z.ZodType, summary: string) {
  return route({
    method: 'get',
    path,
    summary,
    description:
      'Names starting with the query first, then names containing it; at most 20. An empty query answers [] without a database call.',
    middleware: [reader, racingReads()] as const,
    request: { query: SearchQuery },
    responses: { 200: json(z.array(item), 'Matches'), ...errorResponses(400, 401, 503) },
  });
}

const Horse = z
  .object({ id: z.number().int(), name: z.string(), country: z.string(), foalingYear: z.number().int(), sex: z.string() })
  .openapi('Horse');
const Trainer = z.object({ id: z.number().int(), name: z.string(), state: z.string() }).openapi('Trainer');
const Jockey = z.object({ id: z.number().int(), name: z.string(), state: z.string(), apprentice: z.boolean() }).openapi('Jockey');

lookups.openapi(searchRoute('/horses', Horse, 'Horses by name'), async (c) => {
  const query = c.req.valid('query').query.trim();
  return c.json(query ? await searchHorses(c.var.racing, query) : [], 200);
});
lookups.openapi(searchRoute('/trainers', Trainer, 'Trainers by name'), async (c) => {
  const query = c.req.valid('query').query.trim();
  return c.json(query ? await searchTrainers(c.var.racing, query) : [], 200);
});
lookups.openapi(searchRoute('/jockeys', Jockey, 'Jockeys by name'), async (c) => {
  const query = c.req.valid('query').query.trim();
  return c.json(query ? await searchJockeys(c.var.racing, query) : [], 200);
});

const Course = z
  .object({
    id: z.number().int(),
    name: z.string(),
    state: z.string().nullable(),
    country: z.string(),
    meetingId: z.number().int().nullable().openapi({ description: 'The meeting on the date asked for; null without a date' }),
  })
  .openapi('Course');

lookups.openapi(
  route({
    method: 'get',
    path: '/courses',
    summary: 'Courses, optionally only those racing on a date',
    middleware: [reader, racingReads()] as const,
    request: { query: z.object({ date: isoDate.optional().openapi({ example: '2026-11-23' }) }) },
    responses: { 200: json(z.array(Course), 'Courses by name'), ...errorResponses(400, 401, 503) },
  }),
  async (c) => c.json(await courses(c.var.racing, c.req.valid('query').date), 200),
);

const Race = z
  .object({
    id: z.number().int(),
    meetingId: z.number().int(),
    date: z.string(),
    raceNumber: z.number().int(),
    name: z.string(),
    distance: z.number().int(),
    class: z.string(),
    startTime: z.string().nullable(),
  })
  .openapi('Race');

const RacesQuery = z.object({
  courseId: idText.openapi({ example: '12', type: 'integer' }),
  date: isoDate.optional().openapi({ example: '2026-11-23' }),
});

lookups.openapi(
  route({
    method: 'get',
    path: '/races',
    summary: 'Races of a course',
    description:
      'On `date`, or without it from 30 days ago onwards, latest meeting first (at most 200); [] for a course without races. `courseId` is required.',
    middleware: [reader, racingReads()] as const,
    request: { query: RacesQuery },
    responses: { 200: json(z.array(Race), 'Races'), ...errorResponses(400, 401, 503) },
  }),
  async (c) => {
    const { courseId, date } = c.req.valid('query');
    return c.json(await racesOfCourse(c.var.racing, courseId, date, racingToday(c.var.config.RACING_TIMEZONE)), 200);
  },
);
