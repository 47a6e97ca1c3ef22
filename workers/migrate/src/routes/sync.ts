import { z } from '@hono/zod-openapi';
import { connectionOf, engineEnv, findConfiguration, listConfigurations } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import {
  createSyncJob,
  deleteSyncJob,
  listSyncJobs,
  runActive,
  syncMappingDocument,
  updateSyncJob,
  type SyncJob,
} from '../data/sync-jobs.ts';
import * as engine from '../engine/index.ts';
import { guard } from '../guards.ts';
import { checkbox, formBody, identifier, many, parsed, text, type FormBody } from '../input.ts';
import { buildPlans, migrationJob } from '../runs.ts';
import { INTERVAL_MINUTES, MAX_SYNC_TABLES, refreshActiveSyncJobs, syncJobOr404, syncPlanInputs, tableForeignKeys } from '../sync-jobs.ts';
import { SyncFormPage, SyncListPage, SyncPreviewPage, type PreviewTable, type SyncFormValues } from '../views/sync.tsx';
import { jsonRoutes } from './json.ts';
import { syncApi } from './sync-api.ts';
import { syncIncremental } from './sync-incremental.ts';
import { idText, pathId } from './sync-params.ts';

/** Sync: stored, scheduled sync jobs, their pages and their JSON routes (spec 002 A, Sync). */
export const sync = jsonRoutes();

// Each job's incremental settings (change detection, deletes, marks).
sync.route('/', syncIncremental);

// ---- pages ----

sync.get('/Sync', guard.read('any'), async (c) => {
  await refreshActiveSyncJobs(c);
  return c.html(SyncListPage({ csrf: c.var.csrfToken, user: c.var.user, jobs: await listSyncJobs(c.var.db) }));
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
    SyncFormPage({
      csrf: c.var.csrfToken,
      user: c.var.user,
      values: chosen,
      configurations,
      sourceTables: source.tables,
      sourceError: source.error,
      hasDocument: doc !== null,
      errors,
    }),
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
  const { sourceSchema, dest, doc, custom } = await syncPlanInputs(c, job.configId);
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
    SyncPreviewPage({ csrf: c.var.csrfToken, user: c.var.user, job, configName: config?.name ?? String(job.configId), tables, issues }),
  );
});

// The JSON routes (sync-api.ts).
sync.route('/', syncApi);
