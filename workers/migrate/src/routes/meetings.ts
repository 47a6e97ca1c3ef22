import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { racingToday } from '#shared/racing-day.ts';
import { activeConnection, engineEnv, type ConfigurationView } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import { destinationReads, sourceReads } from '../engine/db.ts';
import { guard } from '../guards.ts';
import { query } from '../input.ts';
import { type MeetingsDb, sourceQuery } from '../meetings.ts';
import { meetingPair, recentMeetings } from '../meetings/meeting-pairs.ts';
import { raceComparison } from '../meetings/races.ts';
import { runnerComparison } from '../meetings/runners.ts';
import { MeetingListPage, MeetingPairPage } from '../views/meetings.tsx';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';

/** Meetings: a source meeting beside its destination meeting, its races and runners (spec 002 A, Meetings). */
export const meetings = jsonRoutes();

/** Racing days begin at midnight in Sydney (the racing data's own day). */
const RACING_TIMEZONE = 'Australia/Sydney';

const MAX_ID = 2_147_483_647;
const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);

/** A whole-number id in the query: required, or optional (absent or empty). */
const wholeNumber = z
  .string({ error: 'is required (a whole number)' })
  .trim()
  .regex(/^[0-9]{1,10}$/, 'must be a whole number')
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_ID, `must be between 1 and ${MAX_ID}`);
const optionalWholeNumber = z.preprocess((v) => (v === '' ? undefined : v), wholeNumber.optional());

/**
 * The active configuration's source and the destination for `work`: each statement one round trip
 * over the HTTP read path, no connection to open or end.
 */
async function withMeetingsDb<T>(c: MigrateContext, work: (db: MeetingsDb, config: ConfigurationView) => Promise<T>): Promise<T> {
  const { config, conn } = await activeConnection(c);
  const env = engineEnv(c);
  const dest = destinationReads(env);
  return work(
    { source: sourceQuery(sourceReads(env, conn), config), dest: (text, values) => dest.query(text, values), configId: config.id },
    config,
  );
}

const PageQuery = z.object({
  rsId: z.preprocess(last, optionalWholeNumber),
  qdgId: z.preprocess(last, optionalWholeNumber),
});

meetings.get('/Meetings', guard.read('any'), async (c) => {
  const { rsId, qdgId } = query(c, PageQuery);
  if (rsId === undefined && qdgId !== undefined) {
    throw new HttpError(400, 'invalid_request', 'qdgId needs rsId: name the source meeting to compare the destination meeting with.');
  }
  if (rsId === undefined) {
    const { config, listing } = await withMeetingsDb(c, async (db, config) => ({
      config,
      listing: await recentMeetings(db, racingToday(RACING_TIMEZONE)),
    }));
    return c.html(MeetingListPage({ csrf: c.var.csrfToken, user: c.var.user, configuration: config, listing }));
  }
  const { config, pair } = await withMeetingsDb(c, async (db, config) => ({ config, pair: await meetingPair(db, rsId, qdgId) }));
  return c.html(
    MeetingPairPage({ csrf: c.var.csrfToken, user: c.var.user, configuration: config, pair, namedDestination: qdgId !== undefined }),
  );
});

const Field = z.object({
  name: z.string(),
  source: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  destination: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  same: z.boolean(),
});
const Status = z.enum(['matched', 'source only', 'destination only']);

const RaceRow = z
  .object({
    rsRaceId: z.number().nullable(),
    qdgRaceId: z.number().nullable(),
    raceNumber: z.number(),
    status: Status,
    pairedBy: z.enum(['id mapping', 'race number']).nullable(),
    differs: z.boolean(),
    fields: z.array(Field),
  })
  .openapi('MeetingRaceComparison');

const RunnerRow = z
  .object({
    rsRunnerId: z.number().nullable(),
    qdgRunnerId: z.number().nullable(),
    tabNumber: z.number(),
    horse: z.string().nullable(),
    status: Status,
    pairedBy: z.enum(['id mapping', 'tab number', 'horse']).nullable(),
    differs: z.boolean(),
    fields: z.array(Field),
  })
  .openapi('MeetingRunnerComparison');

const idParam = (name: string, description: string) =>
  wholeNumber.openapi({ param: { name, in: 'query', required: true }, type: 'integer', description });
const optionalIdParam = (name: string, description: string) =>
  optionalWholeNumber.openapi({ param: { name, in: 'query', required: false }, type: 'integer', description });

const comparisonResponses = {
  404: json(ErrorBody, 'No such meeting or race'),
  502: json(ErrorBody, 'The source refused the connection, or lacks the legacy racing tables'),
  503: json(ErrorBody, 'The source or the racing database is unreachable'),
  ...guardedResponses,
};

meetings.openapi(
  createRoute({
    method: 'get',
    path: '/Meetings/Races',
    summary: "A source meeting's races beside its destination meeting's, field by field",
    description: 'Races pair by their id mappings, then by race number. 400 without an active configuration.',
    security,
    middleware: [guard.read('any', { json: true })],
    request: {
      query: z.object({
        rsMeetingId: idParam('rsMeetingId', 'The source meeting'),
        qdgMeetingId: optionalIdParam('qdgMeetingId', 'The destination meeting to compare with (default: the match of the source meeting)'),
      }),
    },
    responses: { 200: json(z.array(RaceRow), 'One row per race pairing'), ...comparisonResponses },
  }),
  async (c) => {
    const { rsMeetingId, qdgMeetingId } = c.req.valid('query');
    return c.json(await withMeetingsDb(c, (db) => raceComparison(db, rsMeetingId, qdgMeetingId)), 200);
  },
);

meetings.openapi(
  createRoute({
    method: 'get',
    path: '/Meetings/Runners',
    summary: "A source race's runners beside a destination race's, field by field",
    description:
      'The destination race is qdgRaceId, else the race id mapping, else the same race number at the meeting match. Runners pair by their id mappings, then tab number, then horse.',
    security,
    middleware: [guard.read('any', { json: true })],
    request: {
      query: z.object({
        rsRaceId: idParam('rsRaceId', 'The source race'),
        qdgRaceId: optionalIdParam('qdgRaceId', 'The destination race to compare with'),
      }),
    },
    responses: { 200: json(z.array(RunnerRow), 'One row per runner pairing'), ...comparisonResponses },
  }),
  async (c) => {
    const { rsRaceId, qdgRaceId } = c.req.valid('query');
    return c.json(await withMeetingsDb(c, (db) => runnerComparison(db, rsRaceId, qdgRaceId)), 200);
  },
);
