import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv, findConfiguration } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import { recordSyncFailure, saveSyncMappingDocument, syncMappingDocument, syncStatus, toggleSyncJob } from '../data/sync-jobs.ts';
import * as engine from '../engine/index.ts';
import { guard } from '../guards.ts';
import { formBody } from '../input.ts';
import { buildPlans } from '../runs.ts';
import { refreshActiveSyncJobs, refreshSyncJob, startSyncRun, syncJobOr404, syncPlanInputs, tableForeignKeys } from '../sync-jobs.ts';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';
import { ConfigQuery, IdParam, TableQuery } from './sync-params.ts';

/** The sync jobs' JSON routes (spec 002 A, Sync): the mapping document, runs, state and the schemas' tables and columns. */
export const syncApi = jsonRoutes();

const Message = z.object({ message: z.string() }).openapi('SyncMessage');

/** What a route below states itself: where it is, what it does, its input and its own answers. */
type RouteParts = Pick<RouteConfig, 'path' | 'summary' | 'description' | 'request' | 'responses'>;

/** A GET route any signed-in role may call, with the answers every guarded JSON route can give. */
const readRoute = <R extends RouteParts>(parts: R) =>
  createRoute({
    ...parts,
    method: 'get',
    security,
    middleware: [guard.read('any', { json: true })] as const,
    responses: { ...parts.responses, ...guardedResponses },
  });

/** A POST route for operators (anti-forgery checked by the guard), with the answers every guarded JSON route can give. */
const operatorRoute = <R extends RouteParts>(parts: R) =>
  createRoute({
    ...parts,
    method: 'post',
    security,
    middleware: [guard.write('operator', { json: true })] as const,
    responses: { ...parts.responses, ...guardedResponses },
  });

syncApi.openapi(
  operatorRoute({
    path: '/Sync/UploadSchema',
    summary: "Stores a mapping document (the wizard's schema file) for the configuration's sync jobs",
    description: "multipart/form-data with the file in `schemaFile`; replaces the configuration's document.",
    request: { query: ConfigQuery },
    responses: {
      200: json(Message, 'Stored'),
      404: json(ErrorBody, 'No such configuration'),
      415: json(ErrorBody, 'Not a form'),
    },
  }),
  async (c) => {
    const { configId } = c.req.valid('query');
    const config = await findConfiguration(c.var.db, configId);
    if (!config) throw new HttpError(404, 'not_found', `There is no configuration ${configId}.`);
    const file = (await formBody(c)).schemaFile;
    if (!(file instanceof File) || file.size === 0)
      throw new HttpError(400, 'no_file', 'Choose a mapping document (JSON) to upload in schemaFile.');
    let doc;
    try {
      doc = engine.parseMappingDocumentText(await file.text());
    } catch (err) {
      throw new HttpError(
        400,
        'invalid_schema_file',
        `The schema file is not a valid mapping document: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2000),
      );
    }
    await saveSyncMappingDocument(c.var.db, configId, doc, c.var.user.email, Date.now());
    return c.json({ message: `Stored the mapping document for ${config.name}: ${doc.tables.length} table(s).` }, 200);
  },
);

const Toggle = z.object({ enabled: z.boolean(), nextRunAt: z.string().nullable() }).openapi('SyncToggle');
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

syncApi.openapi(
  operatorRoute({
    path: '/api/sync/{id}/toggle',
    summary: 'Enables or disables a sync job; enabling schedules its next run one interval from now',
    request: { params: IdParam },
    responses: { 200: json(Toggle, 'The new state'), 404: json(ErrorBody, 'No such sync job') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const toggled = await toggleSyncJob(c.var.db, id, Date.now());
    if (!toggled) throw new HttpError(404, 'not_found', `There is no sync job ${id}.`);
    return c.json({ enabled: toggled.enabled, nextRunAt: iso(toggled.nextRunAt) }, 200);
  },
);

syncApi.openapi(
  operatorRoute({
    path: '/api/sync/{id}/run-now',
    summary: 'Starts a run of the sync job now, in its own MigrationJob (409 while a run is in progress)',
    request: { params: IdParam },
    responses: {
      200: json(Message, 'Started'),
      404: json(ErrorBody, 'No such sync job'),
      409: json(ErrorBody, 'A run of the job is in progress'),
    },
  }),
  async (c) => {
    const job = await refreshSyncJob(c, await syncJobOr404(c.var.db, c.req.valid('param').id));
    let runId;
    try {
      runId = await startSyncRun(c, job, Date.now());
    } catch (err) {
      // A refused start (409) leaves the run in progress as it is.
      if (!(err instanceof HttpError && err.status === 409)) await recordSyncFailure(c.var.db, job.id, err);
      throw err;
    }
    return c.json({ message: `The sync job ${job.name} started: run ${runId}.` }, 200);
  },
);

const SessionStatus = z.object({ currentSessionGuid: z.string().nullable(), status: z.string().nullable() }).openapi('SyncSessionStatus');

syncApi.openapi(
  readRoute({
    path: '/api/sync/{id}/session-status',
    summary: "The job's current or last run and its state (nulls when it never ran)",
    request: { params: IdParam },
    responses: { 200: json(SessionStatus, 'The run'), 404: json(ErrorBody, 'No such sync job') },
  }),
  async (c) => {
    const job = await refreshSyncJob(c, await syncJobOr404(c.var.db, c.req.valid('param').id));
    return c.json({ currentSessionGuid: job.lastRunId, status: job.lastStatus }, 200);
  },
);

const Status = z
  .object({ running: z.number().int(), errored: z.number().int(), enabled: z.number().int(), total: z.number().int() })
  .openapi('SyncStatus');

syncApi.openapi(
  readRoute({
    path: '/api/sync/status',
    summary: 'Counts of sync jobs: with a run in progress, whose last start or run failed, enabled, all',
    responses: { 200: json(Status, 'The counts') },
  }),
  async (c) => {
    await refreshActiveSyncJobs(c);
    return c.json(await syncStatus(c.var.db), 200);
  },
);

async function configurationOr404(c: MigrateContext, configId: number) {
  const config = await findConfiguration(c.var.db, configId);
  if (!config) throw new HttpError(404, 'not_found', `There is no configuration ${configId}.`);
  return config;
}

/** A table's `{ColumnName, DataType}` list on either side; 404 when that side has no such table. */
async function columnsOf(
  c: MigrateContext,
  target: Parameters<typeof engine.tableColumns>[1],
  side: 'source' | 'destination',
  table: string,
) {
  const columns = await engine.tableColumns(engineEnv(c), target, table);
  if (!columns) throw new HttpError(404, 'not_found', `The ${side} has no table ${table}.`);
  return columns.map(({ ColumnName, DataType }) => ({ ColumnName, DataType }));
}

const Names = z.array(z.string());
const Column = z.object({ ColumnName: z.string(), DataType: z.string() }).openapi('SyncColumnInfo');

syncApi.openapi(
  readRoute({
    path: '/api/sync/tables',
    summary: "The configuration's source tables",
    request: { query: ConfigQuery },
    responses: { 200: json(Names, 'Table names'), 404: json(ErrorBody, 'No such configuration') },
  }),
  async (c) => {
    const source = await connectionOf(c, c.req.valid('query').configId);
    return c.json(
      (await engine.listTables(engineEnv(c), source)).map((t) => t.name),
      200,
    );
  },
);

syncApi.openapi(
  readRoute({
    path: '/api/sync/columns',
    summary: 'Columns of a source table of the configuration',
    request: { query: TableQuery },
    responses: { 200: json(z.array(Column), 'The columns'), 404: json(ErrorBody, 'No such configuration or table') },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    return c.json(await columnsOf(c, await connectionOf(c, configId), 'source', table), 200);
  },
);

syncApi.openapi(
  readRoute({
    path: '/api/sync/destination-tables',
    summary: 'The destination tables',
    request: { query: ConfigQuery },
    responses: { 200: json(Names, 'Table names'), 404: json(ErrorBody, 'No such configuration') },
  }),
  async (c) => {
    await configurationOr404(c, c.req.valid('query').configId);
    return c.json(
      (await engine.listTables(engineEnv(c), 'destination')).map((t) => t.name),
      200,
    );
  },
);

syncApi.openapi(
  readRoute({
    path: '/api/sync/destination-columns',
    summary: 'Columns of a destination table',
    request: { query: TableQuery },
    responses: { 200: json(z.array(Column), 'The columns'), 404: json(ErrorBody, 'No such configuration or table') },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    await configurationOr404(c, configId);
    return c.json(await columnsOf(c, 'destination', 'destination', table), 200);
  },
);

syncApi.openapi(
  readRoute({
    path: '/api/sync/schema-status',
    summary: 'Whether the configuration has a mapping document (uploaded here, or saved by the wizard)',
    request: { query: ConfigQuery },
    responses: {
      200: json(z.object({ exists: z.boolean() }).openapi('SyncSchemaStatus'), 'Whether it exists'),
      404: json(ErrorBody, 'No such configuration'),
    },
  }),
  async (c) => {
    const { configId } = c.req.valid('query');
    await configurationOr404(c, configId);
    return c.json({ exists: (await syncMappingDocument(c.var.db, configId)) !== null }, 200);
  },
);

const TableMappings = z
  .object({
    found: z.boolean(),
    destTable: z.string().nullable(),
    columns: z.array(z.object({ source: z.string(), dest: z.string(), transform: z.string().nullable() })),
  })
  .openapi('SyncTableMappings');

syncApi.openapi(
  readRoute({
    path: '/api/sync/table-mappings',
    summary: "A source table's mapping in the configuration's mapping document",
    request: { query: TableQuery },
    responses: {
      200: json(TableMappings, 'The mapping (found: false when the document does not name the table)'),
      404: json(ErrorBody, 'No such configuration'),
    },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    await configurationOr404(c, configId);
    const mapping = (await syncMappingDocument(c.var.db, configId))?.tables.find((t) => t.sourceTable === table);
    if (!mapping) return c.json({ found: false, destTable: null, columns: [] }, 200);
    return c.json(
      {
        found: true,
        destTable: mapping.destTable,
        columns: mapping.columns.map((col) => ({ source: col.source, dest: col.dest, transform: col.transform?.kind ?? null })),
      },
      200,
    );
  },
);

const SyncForeignKey = z
  .object({ childTable: z.string(), childColumn: z.string(), parentTable: z.string(), parentColumn: z.string(), custom: z.boolean() })
  .openapi('SyncForeignKey');

syncApi.openapi(
  readRoute({
    path: '/api/sync/table-fks',
    summary:
      'Foreign keys of the destination table a source table maps to: detected in the destination, and custom ones of the configuration',
    request: { query: TableQuery },
    responses: {
      200: json(z.array(SyncForeignKey), 'The foreign keys'),
      404: json(ErrorBody, 'No such configuration or source table'),
    },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    const { sourceSchema, dest, doc, custom } = await syncPlanInputs(c, configId);
    if (!sourceSchema.tables.some((t) => t.name === table)) throw new HttpError(404, 'not_found', `The source has no table ${table}.`);
    const [plan] = buildPlans([table], doc, sourceSchema, dest);
    const fks = plan?.destTable ? tableForeignKeys(plan.destTable, dest, custom) : [];
    return c.json(
      fks.map((fk) => ({
        childTable: fk.childTable,
        childColumn: fk.childColumn,
        parentTable: fk.parentTable,
        parentColumn: fk.parentColumn,
        custom: fk.custom === true,
      })),
      200,
    );
  },
);
