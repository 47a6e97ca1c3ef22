// An import area's pages: upload and preview a sheet, start, follow and cancel an import, clear the table.

import { z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext } from '../../context.ts';
import { clearImportTable } from '../../data/imports.ts';
import { destinationReads } from '../../engine/db.ts';
import { engineEnv } from '../../configurations.ts';
import { analyseSheet } from '../../imports/analyse.ts';
import { areaDef, fkConfig, type ImportArea } from '../../imports/areas.ts';
import { findAutoSync, recentEvents, recordEvent } from '../../imports/auto-sync.ts';
import {
  areaBusy,
  findUpload,
  importJob,
  importProgress,
  latestUpload,
  recentImportJobs,
  recordUpload,
  startImport,
} from '../../imports/jobs.ts';
import { exampleSheets, storeUpload, TEMP_PATH } from '../../imports/storage.ts';
import { guard } from '../../guards.ts';
import { formBody, parsed, query, sessionId } from '../../input.ts';
import { ImportIndexPage, ImportPreviewPage, ImportProgressPage } from '../../views/imports/index.ts';
import { checkedFilter, exampleSheet, fileField, fkOf, type ImportRoutes, JobQuery, last, one, sheetProblem, withError } from './forms.ts';

/** `/<area>`, `/<area>/Index`, Preview, Start, Progress, Cancel and ClearData. */
export function importPages(app: ImportRoutes, area: ImportArea): void {
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
      ImportIndexPage({
        csrf: c.var.csrfToken,
        user: c.var.user,
        def,
        jobs,
        upload: upload ?? null,
        autoSync: auto ?? null,
        events,
        examples,
        error: c.req.query('error'),
      }),
    );
  };
  app.get(page, guard.read('any'), index);
  app.get(`${page}/Index`, guard.read('any'), index);

  app.post(`${page}/Preview`, guard.write('operator'), async (c) => {
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
    return c.html(ImportPreviewPage({ csrf: c.var.csrfToken, user: c.var.user, def, tempPath, fileName: file.name, analysis, fk }));
  });

  app.post(`${page}/Start`, guard.write('operator'), async (c) => {
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

  app.get(`${page}/Progress`, guard.read('any'), async (c) => {
    const { jobId } = query(c, JobQuery);
    const progress = await importProgress(c, area, jobId);
    return c.html(ImportProgressPage({ csrf: c.var.csrfToken, user: c.var.user, def, progress }));
  });

  app.post(`${page}/Cancel`, guard.write('operator'), async (c) => {
    const { jobId } = parsed(z.object({ jobId: z.preprocess(last, sessionId) }), await formBody(c), 'form');
    const progress = await importProgress(c, area, jobId);
    await importJob(c, progress.jobId).cancel();
    return c.redirect(progressUrl(progress.jobId), 302);
  });

  app.post(`${page}/ClearData`, guard.write('admin'), async (c) => {
    if (await areaBusy(c, area))
      return c.redirect(withError(page, `An import is running: wait for it to end (or cancel it) before clearing ${def.table}.`), 302);
    const removed = await clearImportTable(engineEnv(c), def.table);
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
}
