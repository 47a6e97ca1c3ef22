import { createRoute, z } from '@hono/zod-openapi';
import { activeConnection, connectionOf, engineEnv, hostAllowed } from '../configurations.ts';
import type { Connection } from '../engine/types.ts';
import * as engine from '../engine/index.ts';
import { FilterError } from '../engine/types.ts';
import { guard } from '../guards.ts';
import { identifier, intId, text } from '../input.ts';
import type { JobState } from '../jobs/step.ts';
import { migrationJob } from '../runs.ts';
import { recordRunState, wizardSession, withinRateLimit } from '../wizard-sessions.ts';
import { hostName } from './configuration.ts';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';

/** The three dedicated API controllers (spec 002 A, Dedicated API controllers). */
export const api = jsonRoutes();

const TEST_CONNECTION_PER_MINUTE = 10;

const TestConnectionBody = z.object({
  Host: hostName,
  Port: z.coerce.number().int().min(1).max(65_535),
  Database: text(63).min(1),
  Username: text(63).min(1),
  Password: text(1024).default(''),
  /** An existing configuration whose stored password is used when Password is empty. */
  Id: intId.optional(),
});
const TestConnectionAnswer = z.object({ success: z.boolean(), message: z.string() }).openapi('TestConnectionAnswer');

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/configuration/test-connection',
    summary: 'Tries a connection; always 200 with the outcome in `success`',
    security,
    middleware: [guard.write('operator', { json: true })],
    request: {
      body: {
        content: {
          'application/json': {
            schema: z.unknown().openapi({ type: 'object', description: '{Host, Port, Database, Username, Password, Id?}' }),
          },
        },
        required: true,
      },
    },
    responses: {
      200: json(TestConnectionAnswer, 'The outcome'),
      429: json(ErrorBody, 'Too many attempts this minute'),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const limit = await withinRateLimit(c.var.db, `test-connection:${c.var.user.id}`, TEST_CONNECTION_PER_MINUTE);
    if (!limit.ok) {
      c.header('Retry-After', String(limit.retryAfter));
      return c.json(
        { error: 'too_many_requests', message: `At most ${TEST_CONNECTION_PER_MINUTE} connection tests a minute; try again shortly.` },
        429,
      );
    }
    // The spec answers 200 whatever happens: bad input too is a failed test, said in `message`.
    const input = TestConnectionBody.safeParse(await c.req.json().catch(() => undefined));
    if (!input.success) {
      return c.json(
        { success: false, message: `Invalid ${input.error.issues.map((i) => `${i.path.join('.') || 'body'} (${i.message})`).join(', ')}` },
        200,
      );
    }
    const { Host, Port, Database, Username, Password, Id } = input.data;
    if (!hostAllowed(c.var.config.MIGRATE_ALLOWED_HOSTS, Host, Port)) {
      return c.json({ success: false, message: `The host ${Host}:${Port} is not on the allowed hosts list.` }, 200);
    }
    let password = Password;
    if (!password && Id !== undefined) {
      const stored = await connectionOf(c, Id).catch(() => undefined);
      if (!stored) return c.json({ success: false, message: `There is no configuration ${Id} to take the password from.` }, 200);
      password = stored.password;
    }
    const conn: Connection = { host: Host.toLowerCase(), port: Port, database: Database, username: Username, password };
    const outcome = await engine
      .testConnection(engineEnv(c), conn)
      .catch((err: unknown) => ({ success: false, message: err instanceof Error ? err.message : String(err) }));
    return c.json({ success: outcome.success, message: outcome.message }, 200);
  },
);

const SessionParam = z.object({
  sessionId: z
    .string()
    .regex(/^[0-9a-fA-F-]{36}$/, 'must be a GUID')
    .openapi({ param: { name: 'sessionId', in: 'path' } }),
});

const Progress = z
  .object({
    sessionId: z.string(),
    status: z.string(),
    state: z.string(),
    tables: z.array(
      z.object({
        table: z.string(),
        done: z.number(),
        total: z.number(),
        inserted: z.number(),
        updated: z.number(),
        skipped: z.number(),
        state: z.string(),
      }),
    ),
    rowsPerSecond: z.number(),
    etaSeconds: z.number().nullable(),
    errors: z.array(z.string()),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    validation: z
      .array(
        z.object({
          table: z.string(),
          sourceCount: z.number(),
          destCount: z.number(),
          sourceChecksum: z.string(),
          destChecksum: z.string(),
          ok: z.boolean(),
        }),
      )
      .nullable(),
  })
  .openapi('MigrationProgress');

/** The status word of a run's end state; every other state is `Running`. */
const RUN_STATUS: Partial<Record<JobState, string>> = { completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/migration/progress/{sessionId}',
    summary: "Progress of the session's run",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: SessionParam },
    responses: { 200: json(Progress, 'Progress'), 404: json(ErrorBody, 'No such session, or it has not started'), ...guardedResponses },
  }),
  async (c) => {
    const session = await wizardSession(c, c.req.valid('param').sessionId);
    const progress = session.runId ? await migrationJob(c, session.runId).progress() : null;
    if (!progress) return c.json({ error: 'not_found', message: 'This session has not started a run.' }, 404);
    await recordRunState(c.var.db, session, progress);
    const status = RUN_STATUS[progress.state] ?? 'Running';
    return c.json({ sessionId: session.id, status, ...progress }, 200);
  },
);

const LogEntry = z
  .object({
    level: z.enum(['Information', 'Warning', 'Error']),
    message: z.string(),
    tableName: z.string().nullable(),
    timestamp: z.string(),
  })
  .openapi('LogEntry');

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/migration/logs/{sessionId}',
    summary: "The newest log entries of the session's run, oldest first",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: SessionParam, query: z.object({ count: z.coerce.number().int().min(1).max(500).default(50) }) },
    responses: { 200: json(z.array(LogEntry), 'Log entries'), 404: json(ErrorBody, 'No such session'), ...guardedResponses },
  }),
  async (c) => {
    const session = await wizardSession(c, c.req.valid('param').sessionId);
    if (!session.runId) return c.json([], 200);
    return c.json(await migrationJob(c, session.runId).logs(c.req.valid('query').count), 200);
  },
);

const TestFilterBody = z.object({
  TableName: identifier,
  Filter: text(2000).min(1, 'is required'),
  OriginalCount: z.coerce.number().int().min(0).default(0),
});

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/table/test-filter',
    summary: 'Counts the rows of an active-configuration table that a filter keeps (read-only, time-limited)',
    security,
    middleware: [guard.write('operator', { json: true })],
    request: { body: { content: { 'application/json': { schema: TestFilterBody } }, required: true } },
    responses: {
      200: json(
        z.union([
          z.object({ success: z.literal(true), count: z.number(), originalCount: z.number() }),
          z.object({ success: z.literal(false), error: z.string() }),
        ]),
        'The count, or why the filter was refused',
      ),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const { TableName, Filter, OriginalCount } = c.req.valid('json');
    const { conn } = await activeConnection(c);
    try {
      const { count } = await engine.testFilter(engineEnv(c), conn, TableName, Filter);
      return c.json({ success: true as const, count, originalCount: OriginalCount }, 200);
    } catch (err) {
      if (err instanceof FilterError) return c.json({ success: false as const, error: err.message }, 200);
      throw err;
    }
  },
);

const TableInfo = z
  .object({
    tableName: z.string(),
    estimatedRows: z.number(),
    columns: z.array(z.object({ ColumnName: z.string(), DataType: z.string(), IsPrimaryKey: z.boolean(), nullable: z.boolean() })),
  })
  .openapi('TableInfo');

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/table/info/{tableName}',
    summary: 'Columns and size of a table of the active configuration',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: z.object({ tableName: identifier.openapi({ param: { name: 'tableName', in: 'path' } }) }) },
    responses: { 200: json(TableInfo, 'The table'), 404: json(ErrorBody, 'No such table'), ...guardedResponses },
  }),
  async (c) => {
    const { tableName } = c.req.valid('param');
    const { conn } = await activeConnection(c);
    const env = engineEnv(c);
    // One read of the source's schema (one round trip) gives both the columns and the size.
    const table = (await engine.introspect(env, conn)).tables.find((t) => t.name === tableName);
    if (!table) return c.json({ error: 'not_found', message: `The source has no table ${tableName}.` }, 404);
    return c.json(
      {
        tableName,
        estimatedRows: table.estimatedRows,
        columns: table.columns.map(({ ColumnName, DataType, IsPrimaryKey, nullable }) => ({
          ColumnName,
          DataType,
          IsPrimaryKey,
          nullable,
        })),
      },
      200,
    );
  },
);
