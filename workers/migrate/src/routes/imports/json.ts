// An import area's JSON routes (in the OpenAPI document): auto-sync, live counts, the filter test, progress.

import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { destinationReads } from '../../engine/db.ts';
import { engineEnv } from '../../configurations.ts';
import { areaDef, destinationCount, type ImportArea } from '../../imports/areas.ts';
import { findAutoSync, startAutoSyncRun, toggleAutoSync } from '../../imports/auto-sync.ts';
import { compileSheetFilter, SHEET_FILTER_MAX_LENGTH } from '../../imports/filter.ts';
import { findUpload, importProgress, latestUpload } from '../../imports/jobs.ts';
import { readRecords } from '../../imports/records.ts';
import { readSheet } from '../../imports/sheet/index.ts';
import { fetchSheet, TEMP_PATH } from '../../imports/storage.ts';
import { guard } from '../../guards.ts';
import { ErrorBody, guardedResponses, JobIdParam, json, security } from '../json.ts';
import { checkedFilter, type ImportRoutes, sheetProblem } from './forms.ts';

const LogEntry = z.object({ level: z.enum(['Information', 'Warning', 'Error']), message: z.string(), timestamp: z.string() });
const Problem = z.object({ line: z.number(), row: z.string(), column: z.string().nullable(), kind: z.string(), message: z.string() });
const ImportProgressBody = z
  .object({
    jobId: z.string(),
    area: z.enum(['BarrierTrials', 'Sectional']),
    state: z.enum(['queued', 'running', 'cancelling', 'cancelled', 'completed', 'failed']),
    processed: z.number().describe('Valid rows written so far'),
    total: z.number().describe('Valid rows to write (0 until the sheet has been read)'),
    inserted: z.number(),
    updated: z.number(),
    unchanged: z.number(),
    skipped: z.number().describe('Rows with problems: not written'),
    log: z.array(LogEntry),
    summary: z.object({
      fileName: z.string(),
      trigger: z.enum(['upload', 'auto-sync', 'run-now']),
      startedBy: z.string(),
      filter: z.string(),
      foreignKeys: z.record(z.string(), z.string()),
      sheetRows: z.number().nullable(),
      filteredOut: z.number(),
      problemCounts: z.record(z.string(), z.number()),
      problems: z.array(Problem).describe('The skipped rows and their problems (at most 1,000 listed)'),
      startedAt: z.string().nullable(),
      finishedAt: z.string().nullable(),
      errors: z.array(z.string()),
    }),
  })
  .openapi('ImportProgress');
const LiveCounts = z
  .object({
    sourceRowCount: z.number().describe("Data rows of the area's latest sheet (0 when none)"),
    destinationCounts: z.record(z.string(), z.number()).describe('Rows of the destination table now'),
    fkMappingCounts: z
      .record(z.string(), z.number())
      .describe('Rows of the latest sheet whose reference found its destination row, per reference'),
  })
  .openapi('ImportLiveCounts');
const FilterResult = z
  .union([z.object({ success: z.literal(true), count: z.number() }), z.object({ success: z.literal(false), error: z.string() })])
  .openapi('ImportFilterTest');
const Toggle = z
  .object({ enabled: z.boolean(), nextRunAt: z.number().nullable().describe('Epoch milliseconds of the next run; null while disabled') })
  .openapi('AutoSyncToggle');
const Message = z.object({ message: z.string(), jobId: z.string().optional() }).openapi('AutoSyncMessage');

/** The JSON routes under the area's prefix. */
export function importJsonRoutes(app: ImportRoutes, area: ImportArea): void {
  const def = areaDef(area);
  const page = `/${area}`;

  app.openapi(
    createRoute({
      method: 'post',
      path: `${def.prefix}/autosync/toggle`,
      summary: `Enables or disables the ${def.title.toLowerCase()} auto-sync`,
      security,
      middleware: [guard.write('operator', { json: true })],
      responses: {
        200: json(Toggle, 'The new state'),
        ...guardedResponses,
        400: json(ErrorBody, 'Nothing to import yet, or a bad request'),
      },
    }),
    async (c) => c.json(await toggleAutoSync(c.var.db, area, c.var.user.email, Date.now()), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: `${def.prefix}/autosync/run-now`,
      summary: `Starts the ${def.title.toLowerCase()} auto-sync's import now (409 while its last run is in progress)`,
      security,
      middleware: [guard.write('operator', { json: true })],
      responses: {
        200: json(Message, 'Started'),
        409: json(ErrorBody, 'A run is in progress'),
        ...guardedResponses,
        400: json(ErrorBody, 'Nothing to import yet, or a bad request'),
      },
    }),
    async (c) => {
      const auto = await findAutoSync(c.var.db, area);
      if (!auto)
        throw new HttpError(
          400,
          'no_sheet',
          `The ${def.title.toLowerCase()} auto-sync has no saved sheet or address yet: save its settings with one first.`,
        );
      const jobId = await startAutoSyncRun(c, auto, 'run-now', c.var.user.email, Date.now());
      return c.json({ message: `The ${def.title.toLowerCase()} import started: job ${jobId}.`, jobId }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: `${def.prefix}/livecounts`,
      summary: `Rows of the latest ${def.title.toLowerCase()} sheet, of ${def.table}, and of the sheet's resolved references`,
      security,
      middleware: [guard.read('any', { json: true })],
      responses: { 200: json(LiveCounts, 'Counts'), ...guardedResponses },
    }),
    async (c) => {
      const [upload, destinationRows] = await Promise.all([
        latestUpload(c.var.db, area),
        destinationCount(destinationReads(engineEnv(c)), def.table),
      ]);
      let fk: Record<string, number> = {};
      try {
        fk = upload ? (JSON.parse(upload.fkCounts) as Record<string, number>) : {};
      } catch {
        fk = {};
      }
      return c.json({ sourceRowCount: upload?.rows ?? 0, destinationCounts: { [def.table]: destinationRows }, fkMappingCounts: fk }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: `${def.prefix}/testfilter`,
      summary: `Counts the rows of a ${def.title.toLowerCase()} sheet (the latest, or tempPath's) that a filter keeps`,
      security,
      middleware: [guard.read('any', { json: true })],
      request: {
        query: z.object({
          filter: z.string().max(SHEET_FILTER_MAX_LENGTH).optional().openapi({ example: "date >= '2026-11-01' and course = 'Randwick'" }),
          tempPath: z.string().max(300).optional(),
        }),
      },
      responses: { 200: json(FilterResult, '{success, count} or {success: false, error}'), ...guardedResponses },
    }),
    async (c) => {
      const { filter = '', tempPath } = c.req.valid('query');
      const checked = checkedFilter(def, filter);
      if ('error' in checked) return c.json({ success: false as const, error: checked.error }, 200);
      const upload = tempPath
        ? TEMP_PATH.test(tempPath)
          ? await findUpload(c.var.db, area, tempPath)
          : undefined
        : await latestUpload(c.var.db, area);
      if (!upload)
        return c.json(
          {
            success: false as const,
            error: tempPath ? 'That upload is unknown or expired.' : `No ${def.title.toLowerCase()} sheet has been uploaded yet.`,
          },
          200,
        );
      try {
        const bytes = await fetchSheet(c.env.SHEETS, { kind: 'r2', key: upload.tempPath }, c.var.config.MIGRATE_SHEET_HOSTS);
        const { records } = readRecords(await readSheet(bytes, upload.fileName), def.columns, new Set());
        if (!checked.filter) return c.json({ success: true as const, count: records.length }, 200);
        const keep = compileSheetFilter(
          checked.filter,
          def.columns.map((col) => col.key),
        );
        return c.json({ success: true as const, count: records.filter((r) => keep(r.values)).length }, 200);
      } catch (error) {
        const problem = sheetProblem(error);
        if (problem) return c.json({ success: false as const, error: problem }, 200);
        throw error;
      }
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: `${def.prefix}/progress/{jobId}`,
      summary: `A ${def.title.toLowerCase()} import's progress, log, problems and summary`,
      security,
      middleware: [guard.read('any', { json: true })],
      request: { params: JobIdParam },
      responses: { 200: json(ImportProgressBody, 'Progress'), 404: json(ErrorBody, 'No such job'), ...guardedResponses },
    }),
    async (c) => c.json(await importProgress(c, area, c.req.valid('param').jobId), 200),
  );
}
