import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv, findConfiguration, listConfigurations } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import * as engine from '../engine/index.ts';
import { guard } from '../guard.ts';
import { checkbox, formBody, identifier, many, parsed, text, type FormBody } from '../input.ts';
import { buildPlans, migrationJob } from '../runs.ts';
import {
  configurationCustomForeignKeys,
  createSyncJob,
  deleteSyncJob,
  INTERVAL_MINUTES,
  listSyncJobs,
  MAX_SYNC_TABLES,
  recordSyncFailure,
  refreshActiveSyncJobs,
  refreshSyncJob,
  runActive,
  saveSyncMappingDocument,
  startSyncRun,
  syncJobOr404,
  syncMappingDocument,
  syncStatus,
  tableForeignKeys,
  toggleSyncJob,
  updateSyncJob,
  type SyncJob,
} from '../sync-jobs.ts';
import { SyncFormPage, SyncListPage, SyncPreviewPage, type PreviewTable, type SyncFormValues } from '../views/sync.tsx';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';
import { syncIncremental } from './sync-incremental.tsx';

/** Sync: stored, scheduled sync jobs, their pages and their JSON routes (spec 002 A, Sync). */
export const sync = jsonRoutes();

// Each job's incremental settings (change detection, deletes, marks).
sync.route('/', syncIncremental);

/** An integer id as a path or query text: digits only (no signs, spaces, exponents or hex). */
const idText = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().positive('must be a positive integer').max(2_147_483_647));
const pathId = (c: MigrateContext) => parsed(idText, c.req.param('id'), 'path.id');
const IdParam = z.object({ id: idText.openapi({ param: { name: 'id', in: 'path' }, type: 'string', example: '1' }) });
const ConfigQuery = z.object({ configId: idText.openapi({ type: 'string', example: '1' }) });
const TableQuery = ConfigQuery.extend({ table: identifier });

// ---- pages ----

sync.get('/Sync', guard.read('any'), async (c) => {
  await refreshActiveSyncJobs(c);
  return c.html(<SyncListPage csrf={c.var.csrfToken} user={c.var.user} jobs={await listSyncJobs(c.var.db)} />);
});
sync.get('/Sync/Index', guard.read('any'), (c) => c.redirect('/Sync', 302));

/** A configuration's source tables for the form, or why they could not be read. */
async function sourceTablesOf(c: MigrateContext, configId: number | undefined): Promise<{ tables: string[]; error?: string }> {
  if (configId === undefined) return { tables: [], error: 'Create a configuration first.' };
  try {
    const tables = await engine.listTables(engineEnv(c), await connectionOf(c, configId));
    return { tables: tables.map((t) => t.name) };
  } catch (err) {
    return {
      tables: [],
      error: `The source tables could not be listed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500),
    };
  }
}

async function formView(c: MigrateContext, values: SyncFormValues, errors: Record<string, string>, status: 200 | 400 = 200) {
  const configurations = await listConfigurations(c.var.db);
  const configId = configurations.find((cfg) => String(cfg.id) === values.ConfigId)?.id;
  const chosen = { ...values, ConfigId: configId !== undefined ? values.ConfigId : String(configurations[0]?.id ?? '') };
  const id = configId ?? configurations[0]?.id;
  const [source, doc] = await Promise.all([sourceTablesOf(c, id), id === undefined ? null : syncMappingDocument(c.var.db, id)]);
  return c.html(
    <SyncFormPage
      csrf={c.var.csrfToken}
      user={c.var.user}
      values={chosen}
      configurations={configurations}
      sourceTables={source.tables}
      sourceError={source.error}
      hasDocument={doc !== null}
      errors={errors}
    />,
    status,
  );
}

const formValuesOf = (job: SyncJob): SyncFormValues => ({
  Id: String(job.id),
  Name: job.name,
  ConfigId: String(job.configId),
  Tables: job.tables,
  IntervalMinutes: String(job.intervalMinutes),
  Enabled: job.enabled,
  PatchMode: job.patchMode,
});

sync.get('/Sync/Create', guard.read('any'), async (c) => {
  const configId = c.req.query('configId');
  const preferred = configId !== undefined ? parsed(idText, configId, 'query.configId') : undefined;
  const active = (await listConfigurations(c.var.db)).find((cfg) => cfg.isActive);
  const values = {
    Name: '',
    ConfigId: String(preferred ?? active?.id ?? ''),
    Tables: [],
    IntervalMinutes: '60',
    Enabled: true,
    PatchMode: false,
  };
  return formView(c, values, {});
});

sync.get('/Sync/Edit/:id', guard.read('any'), async (c) => {
  const job = await syncJobOr404(c.var.db, pathId(c));
  return formView(c, formValuesOf(job), {});
});

const SaveForm = z.object({
  Name: text(100)
    .transform((v) => v.trim())
    .pipe(z.string().min(1, 'is required')),
  ConfigId: idText,
  Tables: many(identifier).pipe(
    z.array(z.string()).min(1, 'choose at least one table').max(MAX_SYNC_TABLES, `at most ${MAX_SYNC_TABLES} tables`),
  ),
  IntervalMinutes: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of minutes')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(INTERVAL_MINUTES.min, `must be at least ${INTERVAL_MINUTES.min}`)
        .max(INTERVAL_MINUTES.max, `must be at most ${INTERVAL_MINUTES.max}`),
    ),
  Enabled: checkbox,
  PatchMode: checkbox,
});

/** The posted values as the form shows them again (strings only, bounded). */
function postedValues(body: FormBody, id: number | undefined): SyncFormValues {
  const one = (name: string) => {
    const v = body[name];
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    return typeof last === 'string' ? last.replace(/\u0000/g, '').slice(0, 200) : '';
  };
  const tables = ([] as unknown[])
    .concat(body.Tables ?? [])
    .filter((t): t is string => typeof t === 'string' && identifier.safeParse(t).success);
  return {
    ...(id !== undefined ? { Id: String(id) } : {}),
    Name: one('Name'),
    ConfigId: one('ConfigId'),
    Tables: tables.slice(0, 200),
    IntervalMinutes: one('IntervalMinutes'),
    Enabled: checkbox.parse(body.Enabled),
    PatchMode: checkbox.parse(body.PatchMode),
  };
}

sync.post('/Sync/Save', guard.write('operator'), async (c) => {
  const body = await formBody(c);
  const rawId = Array.isArray(body.Id) ? body.Id[body.Id.length - 1] : body.Id;
  const id = rawId === undefined || rawId === '' ? undefined : parsed(idText, rawId, 'form.Id');
  if (id !== undefined) await syncJobOr404(c.var.db, id);
  const values = postedValues(body, id);
  const result = SaveForm.safeParse(body);
  const errors: Record<string, string> = {};
  if (!result.success) {
    for (const issue of result.error.issues) errors[String(issue.path[0] ?? 'form')] ??= issue.message;
    return formView(c, values, errors, 400);
  }
  const input = result.data;
  if (!(await findConfiguration(c.var.db, input.ConfigId))) return formView(c, values, { ConfigId: 'is not a configuration' }, 400);
  const source = await sourceTablesOf(c, input.ConfigId);
  const tables = [...new Set(input.Tables)];
  const missing = tables.filter((t) => !source.tables.includes(t));
  if (source.error) return formView(c, values, { Tables: `could not be checked: ${source.error}` }, 400);
  if (missing.length) return formView(c, values, { Tables: `are not tables of the source: ${missing.join(', ')}` }, 400);
  const job = {
    name: input.Name,
    configId: input.ConfigId,
    tables,
    patchMode: input.PatchMode,
    intervalMinutes: input.IntervalMinutes,
    enabled: input.Enabled,
  };
  if (id === undefined) await createSyncJob(c.var.db, job, Date.now());
  else await updateSyncJob(c.var.db, id, job, Date.now());
  return c.redirect('/Sync', 302);
});

sync.post('/Sync/Delete/:id', guard.write('operator'), async (c) => {
  const job = await syncJobOr404(c.var.db, pathId(c));
  // A run in progress is asked to stop; what it copied stays.
  if (job.lastRunId && runActive(job.lastStatus)) await migrationJob(c, job.lastRunId).cancel();
  await deleteSyncJob(c.var.db, job.id);
  return c.redirect('/Sync', 302);
});

sync.get('/Sync/Preview/:id', guard.read('any'), async (c) => {
  const job = await syncJobOr404(c.var.db, pathId(c));
  const config = await findConfiguration(c.var.db, job.configId);
  const env = engineEnv(c);
  const source = await connectionOf(c, job.configId);
  const [sourceSchema, dest, doc, custom] = await Promise.all([
    engine.introspect(env, source),
    engine.introspect(env, 'destination'),
    syncMappingDocument(c.var.db, job.configId),
    configurationCustomForeignKeys(c.var.db, job.configId),
  ]);
  const present = job.tables.filter((t) => sourceSchema.tables.some((info) => info.name === t));
  const tables: PreviewTable[] = buildPlans(present, doc, sourceSchema, dest).map((plan) => ({
    plan,
    origin: doc?.tables.some((t) => t.sourceTable === plan.sourceTable) ? 'document' : plan.destTable ? 'suggested' : 'none',
    foreignKeys: plan.destTable ? tableForeignKeys(plan.destTable, dest, custom) : [],
  }));
  const mapped = tables.filter((t) => t.plan.destTable).map((t) => ({ ...t.plan, foreignKeys: t.foreignKeys }));
  const issues = [
    ...job.tables
      .filter((t) => !present.includes(t))
      .map((t) => ({ table: t, column: null, level: 'error' as const, message: 'The source no longer has this table' })),
    ...tables
      .filter((t) => !t.plan.destTable)
      .map((t) => ({
        table: t.plan.sourceTable,
        column: null,
        level: 'error' as const,
        message: 'No destination table: upload a mapping document that names it',
      })),
    ...engine.validatePlan(mapped, sourceSchema, dest),
  ];
  return c.html(
    <SyncPreviewPage
      csrf={c.var.csrfToken}
      user={c.var.user}
      job={job}
      configName={config?.name ?? String(job.configId)}
      tables={tables}
      issues={issues}
    />,
  );
});

// ---- JSON ----

const Message = z.object({ message: z.string() }).openapi('SyncMessage');

sync.openapi(
  createRoute({
    method: 'post',
    path: '/Sync/UploadSchema',
    summary: "Stores a mapping document (the wizard's schema file) for the configuration's sync jobs",
    description: "multipart/form-data with the file in `schemaFile`; replaces the configuration's document.",
    security,
    middleware: [guard.write('operator', { json: true })],
    request: { query: ConfigQuery },
    responses: {
      200: json(Message, 'Stored'),
      404: json(ErrorBody, 'No such configuration'),
      415: json(ErrorBody, 'Not a form'),
      ...guardedResponses,
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

sync.openapi(
  createRoute({
    method: 'post',
    path: '/api/sync/{id}/toggle',
    summary: 'Enables or disables a sync job; enabling schedules its next run one interval from now',
    security,
    middleware: [guard.write('operator', { json: true })],
    request: { params: IdParam },
    responses: { 200: json(Toggle, 'The new state'), 404: json(ErrorBody, 'No such sync job'), ...guardedResponses },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const toggled = await toggleSyncJob(c.var.db, id, Date.now());
    if (!toggled) throw new HttpError(404, 'not_found', `There is no sync job ${id}.`);
    return c.json({ enabled: toggled.enabled, nextRunAt: iso(toggled.nextRunAt) }, 200);
  },
);

sync.openapi(
  createRoute({
    method: 'post',
    path: '/api/sync/{id}/run-now',
    summary: 'Starts a run of the sync job now, in its own MigrationJob (409 while a run is in progress)',
    security,
    middleware: [guard.write('operator', { json: true })],
    request: { params: IdParam },
    responses: {
      200: json(Message, 'Started'),
      404: json(ErrorBody, 'No such sync job'),
      409: json(ErrorBody, 'A run of the job is in progress'),
      ...guardedResponses,
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

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/{id}/session-status',
    summary: "The job's current or last run and its state (nulls when it never ran)",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: IdParam },
    responses: { 200: json(SessionStatus, 'The run'), 404: json(ErrorBody, 'No such sync job'), ...guardedResponses },
  }),
  async (c) => {
    const job = await refreshSyncJob(c, await syncJobOr404(c.var.db, c.req.valid('param').id));
    return c.json({ currentSessionGuid: job.lastRunId, status: job.lastStatus }, 200);
  },
);

const Status = z
  .object({ running: z.number().int(), errored: z.number().int(), enabled: z.number().int(), total: z.number().int() })
  .openapi('SyncStatus');

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/status',
    summary: 'Counts of sync jobs: with a run in progress, whose last start or run failed, enabled, all',
    security,
    middleware: [guard.read('any', { json: true })],
    responses: { 200: json(Status, 'The counts'), ...guardedResponses },
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

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/tables',
    summary: "The configuration's source tables",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: ConfigQuery },
    responses: { 200: json(Names, 'Table names'), 404: json(ErrorBody, 'No such configuration'), ...guardedResponses },
  }),
  async (c) => {
    const source = await connectionOf(c, c.req.valid('query').configId);
    return c.json(
      (await engine.listTables(engineEnv(c), source)).map((t) => t.name),
      200,
    );
  },
);

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/columns',
    summary: 'Columns of a source table of the configuration',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: TableQuery },
    responses: { 200: json(z.array(Column), 'The columns'), 404: json(ErrorBody, 'No such configuration or table'), ...guardedResponses },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    return c.json(await columnsOf(c, await connectionOf(c, configId), 'source', table), 200);
  },
);

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/destination-tables',
    summary: 'The destination tables',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: ConfigQuery },
    responses: { 200: json(Names, 'Table names'), 404: json(ErrorBody, 'No such configuration'), ...guardedResponses },
  }),
  async (c) => {
    await configurationOr404(c, c.req.valid('query').configId);
    return c.json(
      (await engine.listTables(engineEnv(c), 'destination')).map((t) => t.name),
      200,
    );
  },
);

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/destination-columns',
    summary: 'Columns of a destination table',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: TableQuery },
    responses: { 200: json(z.array(Column), 'The columns'), 404: json(ErrorBody, 'No such configuration or table'), ...guardedResponses },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    await configurationOr404(c, configId);
    return c.json(await columnsOf(c, 'destination', 'destination', table), 200);
  },
);

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/schema-status',
    summary: 'Whether the configuration has a mapping document (uploaded here, or saved by the wizard)',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: ConfigQuery },
    responses: {
      200: json(z.object({ exists: z.boolean() }).openapi('SyncSchemaStatus'), 'Whether it exists'),
      404: json(ErrorBody, 'No such configuration'),
      ...guardedResponses,
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

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/table-mappings',
    summary: "A source table's mapping in the configuration's mapping document",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: TableQuery },
    responses: {
      200: json(TableMappings, 'The mapping (found: false when the document does not name the table)'),
      404: json(ErrorBody, 'No such configuration'),
      ...guardedResponses,
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

sync.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/table-fks',
    summary:
      'Foreign keys of the destination table a source table maps to: detected in the destination, and custom ones of the configuration',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: TableQuery },
    responses: {
      200: json(z.array(SyncForeignKey), 'The foreign keys'),
      404: json(ErrorBody, 'No such configuration or source table'),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const { configId, table } = c.req.valid('query');
    const env = engineEnv(c);
    const source = await connectionOf(c, configId);
    const [sourceSchema, dest, doc, custom] = await Promise.all([
      engine.introspect(env, source),
      engine.introspect(env, 'destination'),
      syncMappingDocument(c.var.db, configId),
      configurationCustomForeignKeys(c.var.db, configId),
    ]);
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
