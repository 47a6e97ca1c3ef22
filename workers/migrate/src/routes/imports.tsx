import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext } from '../context.ts';
import { destinationReads, openDestination, withSql } from '../engine/db.ts';
import { engineEnv } from '../configurations.ts';
import { analyseSheet } from '../imports/analyse.ts';
import { areaDef, destinationCount, fkConfig, type ImportArea, type ImportAreaDef } from '../imports/areas.ts';
import {
  AUTO_SYNC_INTERVAL,
  findAutoSync,
  hasSheet,
  recentEvents,
  recordEvent,
  refreshAutoSync,
  saveAutoSync,
  startAutoSyncRun,
  toggleAutoSync,
} from '../imports/auto-sync.ts';
import { compileSheetFilter, SHEET_FILTER_MAX_LENGTH, SheetFilterError } from '../imports/filter.ts';
import {
  areaBusy,
  findUpload,
  importJob,
  importProgress,
  latestUpload,
  recentImportJobs,
  recordUpload,
  startImport,
} from '../imports/jobs.ts';
import { readRecords } from '../imports/records.ts';
import { readSheet, SheetError } from '../imports/sheet.ts';
import {
  EXAMPLES_PREFIX,
  exampleSheets,
  fetchSheet,
  isSheetUrl,
  SheetUnavailableError,
  sheetUrlRefusal,
  storeAutoSyncSheet,
  storeUpload,
  TEMP_PATH,
} from '../imports/storage.ts';
import { guard } from '../guard.ts';
import { type FormBody, GUID, formBody, parsed, query, sessionId } from '../input.ts';
import { ImportAutoSyncPage, ImportIndexPage, ImportPreviewPage, ImportProgressPage } from '../views/imports.tsx';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';

// Barrier trials and sectional times (spec 002 A, "Barrier trials and Sectional"): the same
// thirteen routes for each area, from one definition. See README, "Spreadsheet imports".

export const imports = jsonRoutes();

const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
const one = (body: FormBody, name: string): string => {
  const v = last(body[name]);
  return typeof v === 'string' ? v : '';
};
const fkOf = (def: ImportAreaDef, body: FormBody) =>
  Object.fromEntries(def.fk.map((f) => [f.key, one(body, `fk.${f.key}`) || def.defaultFk[f.key]!]));
const withError = (path: string, message: string) => `${path}?error=${encodeURIComponent(message.slice(0, 600))}`;

/** A file field of the form: its bytes and name, or null when none was chosen. */
async function fileField(body: FormBody, name: string): Promise<{ bytes: Uint8Array; name: string } | null> {
  const v = last(body[name]);
  if (!(v instanceof File) || (v.size === 0 && !v.name)) return null;
  return { bytes: new Uint8Array(await v.arrayBuffer()), name: v.name || 'sheet' };
}

/** An example sheet kept in R2 under `examples/<area>/` (the dev runner puts some there), as an upload. */
async function exampleSheet(c: MigrateContext, area: ImportArea, name: string): Promise<{ bytes: Uint8Array; name: string } | null> {
  if (!/^[A-Za-z0-9._ -]{1,100}$/.test(name) || name.startsWith('.')) return null;
  const object = await c.env.SHEETS.get(`${EXAMPLES_PREFIX}${area}/${name}`);
  return object ? { bytes: new Uint8Array(await object.arrayBuffer()), name } : null;
}

/** The filter as typed (''), or a SheetFilterError's message. */
function checkedFilter(def: ImportAreaDef, text: string): { filter: string } | { error: string } {
  const filter = text.trim();
  if (!filter) return { filter: '' };
  try {
    compileSheetFilter(
      filter,
      def.columns.map((c) => c.key),
    );
    return { filter };
  } catch (error) {
    return { error: error instanceof SheetFilterError ? error.message : String(error) };
  }
}

/** What a user can do about a sheet the import cannot use; other errors propagate. */
function sheetProblem(error: unknown): string | null {
  if (error instanceof SheetError || error instanceof SheetFilterError || error instanceof SheetUnavailableError) return error.message;
  return null;
}

const JobQuery = z.object({ jobId: z.preprocess(last, sessionId) });
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

function registerArea(area: ImportArea): void {
  const def = areaDef(area);
  const page = `/${area}`;
  const progressUrl = (jobId: string) => `${page}/Progress?jobId=${jobId}`;

  const index = async (c: MigrateContext) => {
    const [jobs, upload, auto, events, examples] = await Promise.all([
      recentImportJobs(c, area),
      latestUpload(c.var.db, area),
      findAutoSync(c.var.db, area),
      recentEvents(c.var.db, area),
      exampleSheets(c.env.SHEETS, area),
    ]);
    return c.html(
      <ImportIndexPage
        csrf={c.var.csrfToken}
        user={c.var.user}
        def={def}
        jobs={jobs}
        upload={upload ?? null}
        autoSync={auto ?? null}
        events={events}
        examples={examples}
        error={c.req.query('error')}
      />,
    );
  };
  imports.get(page, guard.read('any'), index);
  imports.get(`${page}/Index`, guard.read('any'), index);

  imports.post(`${page}/Preview`, guard.write('operator'), async (c) => {
    const body = await formBody(c);
    const example = one(body, 'example');
    const file = example ? await exampleSheet(c, area, example) : await fileField(body, 'excelFile');
    if (!file)
      return c.redirect(
        withError(page, example ? `There is no example sheet ${example}.` : 'Choose a spreadsheet (.xlsx or .csv) to upload.'),
        302,
      );
    const fk = fkConfig(def, fkOf(def, body));
    let analysis;
    try {
      analysis = await analyseSheet(destinationReads(engineEnv(c)), def, file.bytes, file.name, fk);
    } catch (error) {
      const problem = sheetProblem(error);
      if (problem) return c.redirect(withError(page, `${file.name}: ${problem} Nothing was stored.`), 302);
      throw error;
    }
    const tempPath = await storeUpload(c.env.SHEETS, area, file.name, file.bytes);
    await recordUpload(
      c.var.db,
      {
        tempPath,
        area,
        fileName: file.name.slice(0, 200),
        bytes: file.bytes.byteLength,
        rows: analysis.rows,
        validRows: analysis.valid.length,
        fkCounts: JSON.stringify(analysis.fkCounts),
        uploadedBy: c.var.user.email,
      },
      Date.now(),
    );
    return c.html(
      <ImportPreviewPage
        csrf={c.var.csrfToken}
        user={c.var.user}
        def={def}
        tempPath={tempPath}
        fileName={file.name}
        analysis={analysis}
        fk={fk}
      />,
    );
  });

  imports.post(`${page}/Start`, guard.write('operator'), async (c) => {
    const body = await formBody(c);
    const tempPath = one(body, 'tempPath');
    const upload = TEMP_PATH.test(tempPath) ? await findUpload(c.var.db, area, tempPath) : undefined;
    if (!upload) return c.redirect(withError(page, 'That upload is unknown or expired: upload the sheet again.'), 302);
    const filter = checkedFilter(def, one(body, 'filter'));
    if ('error' in filter) return c.redirect(withError(page, `The filter was refused, so nothing was started: ${filter.error}`), 302);
    const raw = fkOf(def, body);
    const checked = def.fkSchema.safeParse(raw);
    if (!checked.success)
      throw new HttpError(
        400,
        'invalid_form',
        `Invalid foreign-key choice: ${checked.error.issues.map((i) => `fk.${i.path.join('.')} (${i.message})`).join(', ')}`,
      );
    const jobId = await startImport(c, {
      area,
      fileName: upload.fileName,
      source: { kind: 'r2', key: upload.tempPath },
      fk: checked.data,
      filter: filter.filter,
      startedBy: c.var.user.email,
      trigger: 'upload',
    });
    return c.redirect(progressUrl(jobId), 302);
  });

  imports.get(`${page}/Progress`, guard.read('any'), async (c) => {
    const { jobId } = query(c, JobQuery);
    const progress = await importProgress(c, area, jobId);
    return c.html(<ImportProgressPage csrf={c.var.csrfToken} user={c.var.user} def={def} progress={progress} />);
  });

  imports.post(`${page}/Cancel`, guard.write('operator'), async (c) => {
    const { jobId } = parsed(z.object({ jobId: z.preprocess(last, sessionId) }), await formBody(c), 'form');
    const progress = await importProgress(c, area, jobId);
    await importJob(c, progress.jobId).cancel();
    return c.redirect(progressUrl(progress.jobId), 302);
  });

  imports.post(`${page}/ClearData`, guard.write('admin'), async (c) => {
    if (await areaBusy(c, area))
      return c.redirect(withError(page, `An import is running: wait for it to end (or cancel it) before clearing ${def.table}.`), 302);
    const removed = await withSql(
      () => openDestination(engineEnv(c)),
      (dest) =>
        dest.transaction(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`import:${def.table}`]);
          const count = await destinationCount(tx, def.table);
          await tx.query(`TRUNCATE ${def.table}`);
          return count;
        }),
    );
    await recordEvent(c.var.db, area, 'ClearData', `${def.table} truncated: ${removed} rows removed`, c.var.user.email, Date.now());
    console.log(
      JSON.stringify({
        level: 'warn',
        service: 'migrate',
        event: 'import_clear_data',
        area,
        table: def.table,
        removed,
        user: c.var.user.email,
      }),
    );
    return c.redirect(page, 302);
  });

  imports.get(`${page}/AutoSync`, guard.read('operator'), async (c) => {
    const stored = await findAutoSync(c.var.db, area);
    const auto = stored ? await refreshAutoSync(c, stored) : null;
    let preview: { rows: number; valid: number; invalid: number; filteredOut: number; problemCounts: Record<string, number> } | null = null;
    let previewError: string | undefined;
    if (auto && hasSheet(auto)) {
      try {
        const source = auto.sourceUrl ? ({ kind: 'url', url: auto.sourceUrl } as const) : ({ kind: 'r2', key: auto.sheetPath! } as const);
        const bytes = await fetchSheet(c.env.SHEETS, source, c.var.config.MIGRATE_SHEET_HOSTS);
        const a = await analyseSheet(destinationReads(engineEnv(c)), def, bytes, auto.sheetName ?? 'sheet', auto.fk, auto.filter);
        preview = {
          rows: a.rows,
          valid: a.valid.length,
          invalid: a.invalid,
          filteredOut: a.filteredOut,
          problemCounts: a.problemCounts as Record<string, number>,
        };
      } catch (error) {
        const problem = sheetProblem(error);
        if (!problem) throw error;
        previewError = problem;
      }
    }
    return c.html(
      <ImportAutoSyncPage
        csrf={c.var.csrfToken}
        user={c.var.user}
        def={def}
        autoSync={auto}
        sheetHosts={c.var.config.MIGRATE_SHEET_HOSTS}
        preview={preview}
        previewError={previewError}
        error={c.req.query('error')}
        saved={c.req.query('saved') === '1'}
      />,
    );
  });

  imports.post(`${page}/SaveAutoSync`, guard.write('operator'), async (c) => {
    const back = `${page}/AutoSync`;
    const body = await formBody(c);
    const enabled = ['true', 'on', '1'].includes(one(body, 'enabled').toLowerCase());
    const interval = Number(one(body, 'intervalMinutes') || '60');
    if (!Number.isInteger(interval) || interval < AUTO_SYNC_INTERVAL.min || interval > AUTO_SYNC_INTERVAL.max) {
      return c.redirect(
        withError(
          back,
          `The interval must be a whole number of minutes from ${AUTO_SYNC_INTERVAL.min} to ${AUTO_SYNC_INTERVAL.max}. Nothing was saved.`,
        ),
        302,
      );
    }
    const url = one(body, 'sourceUrl').trim();
    if (url && (url.length > 2000 || !isSheetUrl(url)))
      return c.redirect(withError(back, 'The address must be an https:// address. Nothing was saved.'), 302);
    const refused = url ? sheetUrlRefusal(url, c.var.config.MIGRATE_SHEET_HOSTS) : null;
    if (refused) return c.redirect(withError(back, `${refused} Nothing was saved.`), 302);
    const checkedFk = def.fkSchema.safeParse(fkOf(def, body));
    if (!checkedFk.success) return c.redirect(withError(back, 'Choose one of the offered foreign-key matches. Nothing was saved.'), 302);
    const filter = checkedFilter(def, one(body, 'filter'));
    if ('error' in filter) return c.redirect(withError(back, `The filter was refused: ${filter.error} Nothing was saved.`), 302);
    const file = await fileField(body, 'excelFile');
    let sheet: { path: string; name: string } | undefined;
    if (file) {
      try {
        await analyseSheet(destinationReads(engineEnv(c)), def, file.bytes, file.name, checkedFk.data, filter.filter);
      } catch (error) {
        const problem = sheetProblem(error);
        if (problem) return c.redirect(withError(back, `${file.name}: ${problem} Nothing was saved.`), 302);
        throw error;
      }
      sheet = { path: await storeAutoSyncSheet(c.env.SHEETS, area, file.name, file.bytes), name: file.name.slice(0, 200) };
    }
    const existing = await findAutoSync(c.var.db, area);
    if (enabled && !url && !sheet && !existing?.sheetPath)
      return c.redirect(withError(back, 'An enabled auto-sync needs a spreadsheet or an https:// address. Nothing was saved.'), 302);
    await saveAutoSync(
      c.var.db,
      area,
      { enabled, intervalMinutes: interval, sourceUrl: url || null, fk: checkedFk.data, filter: filter.filter, sheet },
      c.var.user.email,
      Date.now(),
    );
    return c.redirect(`${back}?saved=1`, 302);
  });

  // ---- JSON ----

  imports.openapi(
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

  imports.openapi(
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

  imports.openapi(
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

  imports.openapi(
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

  imports.openapi(
    createRoute({
      method: 'get',
      path: `${def.prefix}/progress/{jobId}`,
      summary: `A ${def.title.toLowerCase()} import's progress, log, problems and summary`,
      security,
      middleware: [guard.read('any', { json: true })],
      request: {
        params: z.object({
          jobId: z
            .string()
            .regex(GUID, 'must be a GUID')
            .openapi({ param: { name: 'jobId', in: 'path' }, example: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }),
        }),
      },
      responses: { 200: json(ImportProgressBody, 'Progress'), 404: json(ErrorBody, 'No such job'), ...guardedResponses },
    }),
    async (c) => c.json(await importProgress(c, area, c.req.valid('param').jobId), 200),
  );
}

registerArea('BarrierTrials');
registerArea('Sectional');
