import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { engineEnv } from '../configurations.ts';
import type { MigrateContext, MigrateEnv } from '../context.ts';
import * as engine from '../engine/index.ts';
import { destinationReads } from '../engine/db.ts';
import { rejectCounts } from '../engine/rejects.ts';
import { guard } from '../guards.ts';
import { checkbox, formBody, identifier, many, parsed } from '../input.ts';
import { migrationJob, planForeignKeys, runOrder, runPlanOf, startRun } from '../runs.ts';
import { ProgressPage, ResultsPage, RunConfigPage } from '../views/wizard/index.ts';
import { recordRunState, updateWizardSession, type WizardSession } from '../wizard-sessions.ts';
import { revalidate, runTables } from '../wizard-runs.ts';
import { duplicateRisks } from '../wizard-suggestions.ts';
import { schemas } from './mapping-edits.ts';
import { checkedFilters, progressUrl, sessionFromForm, sessionFromQuery } from './migration-forms.ts';
import { rejectLimitField } from './rejects.ts';
import { parallelTablesField } from './run-settings.ts';

/** The wizard's run: its settings and start, its progress and results, and the actions on what it copied. */
export const migrationRun = new Hono<MigrateEnv>();

async function runConfigView(
  c: MigrateContext,
  session: WizardSession,
  errors: Record<string, string>,
  status: 200 | 400 = 200,
  error?: string,
) {
  const { source, dest } = await schemas(c, session);
  const fks = await planForeignKeys(c, session, dest);
  const { order, deferred } = runOrder(session, fks);
  const issues = engine.validatePlan(
    session.plans.filter((p) => p.destTable),
    source,
    dest,
  );
  const [risks, tables] = await Promise.all([duplicateRisks(c, session), runTables(c, session)]);
  return c.html(
    RunConfigPage({ csrf: c.var.csrfToken, user: c.var.user, session, order, deferred, issues, errors, risks, tables, source, fks, error }),
    status,
  );
}

migrationRun.get('/Migration/RunConfig', guard.read('any'), async (c) => runConfigView(c, await sessionFromQuery(c), {}));

/** Why a start is refused for rows that would be inserted again (null: nothing at risk, or confirmed). */
export async function duplicateRefusal(
  c: MigrateContext,
  session: WizardSession,
  confirmed: boolean,
): Promise<{ message: string; risks: Awaited<ReturnType<typeof duplicateRisks>> } | null> {
  const risks = await duplicateRisks(c, session);
  if (risks.length === 0 || confirmed) return null;
  const total = risks.reduce((n, r) => n + r.rowsAtRisk, 0);
  return {
    risks,
    message: `Not started: about ${total} rows of ${risks.map((r) => r.destTable).join(', ')} would be inserted again (no natural key, rows already in the destination). Choose a natural key, or tick the confirmation and start again.`,
  };
}

migrationRun.post('/Migration/RunConfig', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const { patchMode, confirmDuplicates, rejectLimit, parallelTables } = parsed(
    z.object({ patchMode: checkbox, confirmDuplicates: checkbox, rejectLimit: rejectLimitField, parallelTables: parallelTablesField }),
    await formBody(c),
    'form',
  );
  const { filters, errors } = await checkedFilters(c, session);
  const updated = { ...session, filters, patchMode, rejectLimit, parallelTables };
  if (Object.keys(errors).length) return runConfigView(c, updated, errors, 400);
  await updateWizardSession(c.var.db, session.id, { filters, patchMode });
  const refusal = await duplicateRefusal(c, updated, confirmDuplicates);
  if (refusal) return runConfigView(c, updated, {}, 400, refusal.message);
  await startRun(c, updated);
  return c.redirect(progressUrl(session.id), 302);
});

migrationRun.get('/Migration/Progress', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const job = session.runId ? migrationJob(c, session.runId) : undefined;
  const [progress, logs] = job ? await Promise.all([job.progress(), job.logs(50)]) : [null, []];
  if (progress) await recordRunState(c.var.db, session, progress);
  return c.html(ProgressPage({ csrf: c.var.csrfToken, user: c.var.user, session, progress, logs }));
});

migrationRun.get('/Migration/Results', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const progress = session.runId ? await migrationJob(c, session.runId).progress() : null;
  if (progress) await recordRunState(c.var.db, session, progress);
  // The page stays usable when the destination cannot be read just now; the section says so.
  const rejects =
    session.runId && progress ? await rejectCounts(destinationReads(engineEnv(c)), session.runId).catch(() => null) : undefined;
  const notice = c.req.query('notice');
  const count = c.req.query('count');
  return c.html(
    ResultsPage({
      csrf: c.var.csrfToken,
      user: c.var.user,
      session,
      progress,
      notice,
      count: count && /^\d{1,12}$/.test(count) ? count : undefined,
      summaries: session.matchSummaries,
      rejects,
    }),
  );
});

migrationRun.post('/Migration/ValidateAgain', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const progress = session.runId ? await migrationJob(c, session.runId).progress() : null;
  if (!session.runId || !progress) throw new HttpError(409, 'not_started', 'This session has not run yet.');
  // A copy still under way would be compared half-done: validate once it has ended.
  if (progress.state === 'queued' || progress.state === 'running' || progress.state === 'cancelling')
    throw new HttpError(409, 'run_in_progress', 'The run is still going: validate again once it has ended.');
  const { plan } = await runPlanOf(c, session, session.runId);
  const { validation, mismatches } = await revalidate(c, plan);
  return c.html(
    ResultsPage({
      csrf: c.var.csrfToken,
      user: c.var.user,
      session,
      progress: { ...progress, validation },
      summaries: session.matchSummaries,
      mismatches,
      revalidated: true,
    }),
  );
});

const resultsUrl = (id: string, notice: string, n: number) => `/Migration/Results?sessionId=${id}&notice=${notice}&count=${n}`;

/** The plan of the session's last run (Results actions work on what was copied). */
async function lastRunPlan(c: MigrateContext, session: WizardSession) {
  if (!session.runId) throw new HttpError(409, 'not_started', 'This session has not run yet.');
  return (await runPlanOf(c, session, session.runId)).plan;
}

/** A backfill over what the session's last run copied, then back to Results with the rows it updated. */
const backfill = (run: typeof engine.backfillForeignKeys, notice: string) => async (c: MigrateContext) => {
  const session = await sessionFromForm(c);
  const done = await run(engineEnv(c), await lastRunPlan(c, session));
  return c.redirect(
    resultsUrl(
      session.id,
      notice,
      done.reduce((n, d) => n + d.updated, 0),
    ),
    302,
  );
};

migrationRun.post('/Migration/BackfillForeignKeys', guard.write('operator'), backfill(engine.backfillForeignKeys, 'fk'));
migrationRun.post('/Migration/BackfillBooleanColumns', guard.write('operator'), backfill(engine.backfillBooleanColumns, 'bool'));

migrationRun.post('/Migration/ClearMigrationHistory', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const { tableNames } = parsed(z.object({ tableNames: many(identifier) }), await formBody(c), 'form');
  const tables = tableNames.length ? tableNames : session.plans.map((p) => p.destTable).filter(Boolean);
  const { deleted } = await engine.clearHistory(engineEnv(c), session.configId, tables);
  return c.redirect(resultsUrl(session.id, 'cleared', deleted), 302);
});

migrationRun.post('/Migration/SyncIdMappingsToDestination', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const { synced } = await engine.syncIdMappingsToDestination(engineEnv(c), session.configId);
  return c.redirect(resultsUrl(session.id, 'synced', synced), 302);
});
