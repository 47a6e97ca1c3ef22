import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { guard } from '../guards.ts';
import { type FormBody, formBody, identifier, parsed, text } from '../input.ts';
import { type IncrementalInput, checkIncrementalInput, incrementalView } from '../sync-incremental.ts';
import { MAX_SYNC_TABLES, syncJobOr404 } from '../sync-jobs.ts';
import { saveSyncTableSettings } from '../sync-marks.ts';
import { SyncIncrementalPage } from '../views/sync-incremental.tsx';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';
import { IdParam, pathId } from './sync-params.ts';

/** A sync job's incremental settings: its page and its JSON routes (engine/incremental.ts). */
export const syncIncremental = jsonRoutes();

syncIncremental.get('/Sync/Incremental/:id', guard.read('any'), async (c) => {
  const job = await syncJobOr404(c.var.db, pathId(c));
  const tables = await incrementalView(c, job);
  return c.html(SyncIncrementalPage({ csrf: c.var.csrfToken, user: c.var.user, job, tables, errors: {} }));
});

/** The posted form's fields `<table>.<field>` as one input per table of the job (text bounded, NUL refused). */
function formInput(body: FormBody, tables: string[]): { input: IncrementalInput[]; values: Record<string, string> } {
  const values: Record<string, string> = {};
  const field = (name: string) => {
    const v = body[name];
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (last === undefined) return '';
    const checked = parsed(text(128), typeof last === 'string' ? last : '', `form.${name}`);
    values[name] = checked;
    return checked;
  };
  const input = tables.map((table) => ({
    sourceTable: table,
    method: field(`${table}.method`),
    column: field(`${table}.column`),
    deletes: field(`${table}.deletes`),
    softDeleteColumn: field(`${table}.softDeleteColumn`),
  }));
  return { input, values };
}

syncIncremental.post('/Sync/Incremental/:id', guard.write('operator'), async (c) => {
  const job = await syncJobOr404(c.var.db, pathId(c));
  const { input, values } = formInput(await formBody(c), job.tables);
  const tables = await incrementalView(c, job);
  const checked = checkIncrementalInput(tables, input);
  if (!checked.ok) {
    return c.html(SyncIncrementalPage({ csrf: c.var.csrfToken, user: c.var.user, job, tables, errors: checked.errors, values }), 400);
  }
  await saveSyncTableSettings(c.var.db, job.id, checked.settings, Date.now());
  return c.redirect(`/Sync/Incremental/${job.id}`, 302);
});

// ---- JSON ----

const Method = z.enum(['auto', 'column', 'xmin', 'checksum', 'full']);
const Deletes = z.enum(['ignore', 'delete', 'soft']);
const TableSetting = z
  .object({
    sourceTable: identifier,
    method: Method,
    column: identifier.nullable().optional(),
    deletes: Deletes,
    softDeleteColumn: identifier.nullable().optional(),
  })
  .openapi('SyncIncrementalSetting');
const TableState = z
  .object({
    sourceTable: z.string(),
    destTable: z.string().nullable(),
    method: Method,
    column: z.string().nullable(),
    deletes: Deletes,
    softDeleteColumn: z.string().nullable(),
    proposal: z.object({ method: z.string(), column: z.string().nullable(), reason: z.string() }).nullable(),
    nextRun: z.object({ method: z.string(), column: z.string().nullable(), fullBecause: z.string().nullable() }),
    mark: z.object({ of: z.string().nullable(), value: z.string().nullable(), runId: z.string().nullable() }),
    markColumns: z.array(z.string()),
    softColumns: z.array(z.string()),
  })
  .openapi('SyncIncrementalTable');
const States = z.object({ tables: z.array(TableState) }).openapi('SyncIncremental');

const states = (tables: Awaited<ReturnType<typeof incrementalView>>) => ({
  tables: tables.map((t) => ({
    sourceTable: t.setting.sourceTable,
    destTable: t.destTable,
    method: t.setting.method,
    column: t.setting.column,
    deletes: t.setting.deletes,
    softDeleteColumn: t.setting.softDeleteColumn,
    proposal: t.proposal ? { method: t.proposal.method, column: t.proposal.column ?? null, reason: t.proposal.reason } : null,
    nextRun: { method: t.method, column: t.column, fullBecause: t.fullBecause },
    mark: { of: t.setting.markOf, value: t.setting.mark, runId: t.setting.markRunId },
    markColumns: t.markColumns,
    softColumns: t.softColumns,
  })),
});

syncIncremental.openapi(
  createRoute({
    method: 'get',
    path: '/api/sync/{id}/incremental',
    summary: "A sync job's incremental settings per table: the choice, the proposal and why, what the next run does, the mark",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: IdParam },
    responses: { 200: json(States, 'The settings'), 404: json(ErrorBody, 'No such sync job'), ...guardedResponses },
  }),
  async (c) => {
    const job = await syncJobOr404(c.var.db, c.req.valid('param').id);
    return c.json(states(await incrementalView(c, job)), 200);
  },
);

syncIncremental.openapi(
  createRoute({
    method: 'post',
    path: '/api/sync/{id}/incremental',
    summary: "Sets a sync job's incremental settings: every table of the job once; names are checked against the schemas",
    security,
    middleware: [guard.write('operator', { json: true })],
    request: {
      params: IdParam,
      body: { content: { 'application/json': { schema: z.object({ tables: z.array(TableSetting).max(MAX_SYNC_TABLES) }) } } },
    },
    responses: { 200: json(States, 'The settings as saved'), 404: json(ErrorBody, 'No such sync job'), ...guardedResponses },
  }),
  async (c) => {
    const job = await syncJobOr404(c.var.db, c.req.valid('param').id);
    const view = await incrementalView(c, job);
    const checked = checkIncrementalInput(view, c.req.valid('json').tables);
    if (!checked.ok) {
      const issues = Object.entries(checked.errors).map(([field, message]) => ({ field: `body.${field}`, message }));
      throw new HttpError(400, 'invalid_request', `Invalid ${issues.map((i) => `${i.field} (${i.message})`).join(', ')}`, { issues });
    }
    await saveSyncTableSettings(c.var.db, job.id, checked.settings, Date.now());
    return c.json(states(await incrementalView(c, job)), 200);
  },
);
