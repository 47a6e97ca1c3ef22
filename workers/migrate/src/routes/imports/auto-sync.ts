// An import area's auto-sync page and its form.

import { destinationReads } from '../../engine/db.ts';
import { engineEnv } from '../../configurations.ts';
import { analyseSheet } from '../../imports/analyse.ts';
import { areaDef, type ImportArea } from '../../imports/areas.ts';
import { AUTO_SYNC_INTERVAL, findAutoSync, hasSheet, refreshAutoSync, saveAutoSync } from '../../imports/auto-sync.ts';
import { fetchSheet, isSheetUrl, sheetUrlRefusal, storeAutoSyncSheet } from '../../imports/storage.ts';
import { guard } from '../../guards.ts';
import { formBody } from '../../input.ts';
import { ImportAutoSyncPage } from '../../views/imports/index.ts';
import { checkedFilter, fileField, fkOf, type ImportRoutes, one, sheetProblem, withError } from './forms.ts';

/** `/<area>/AutoSync` and `/<area>/SaveAutoSync`. */
export function autoSyncPages(app: ImportRoutes, area: ImportArea): void {
  const def = areaDef(area);
  const page = `/${area}`;

  app.get(`${page}/AutoSync`, guard.read('operator'), async (c) => {
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
      ImportAutoSyncPage({
        csrf: c.var.csrfToken,
        user: c.var.user,
        def,
        autoSync: auto,
        sheetHosts: c.var.config.MIGRATE_SHEET_HOSTS,
        preview,
        previewError,
        error: c.req.query('error'),
        saved: c.req.query('saved') === '1',
      }),
    );
  });

  app.post(`${page}/SaveAutoSync`, guard.write('operator'), async (c) => {
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
}
