import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { activeConnection, connectionOf, engineEnv } from '../configurations.ts';
import type { MigrateContext, MigrateEnv } from '../context.ts';
import * as engine from '../engine/index.ts';
import { guard } from '../guards.ts';
import { checkbox, formBody, identifier, indexedList, intId, parsed, text } from '../input.ts';
import { startRun } from '../runs.ts';
import { FieldMappingPage, FkPatchPage, PendingMappingsPage, SummaryPage } from '../views/wizard/index.ts';
import { duplicateRisks } from '../wizard-suggestions.ts';
import {
  addManualPending,
  listPendingMappings,
  type MatchSummary,
  pendingCounts,
  pendingMapping,
  replacePendingMatches,
  setPendingState,
  updateWizardSession,
  wizardSession,
  type WizardSession,
} from '../wizard-sessions.ts';
import { applyMappingEditsFrom } from './mapping-edits.ts';

/** The FieldMapping flow (natural keys, matches to confirm) and the standalone FkPatch tool. */
export const fieldMapping = new Hono<MigrateEnv>();

const MATCH_LIMIT = 500;
const pendingUrl = (id: string) => `/Migration/PendingMappings?sessionId=${id}`;

const sessionFromQuery = (c: MigrateContext) => wizardSession(c, c.req.query('sessionId'));
const sessionFromForm = async (c: MigrateContext) => wizardSession(c, (await formBody(c)).sessionId);

fieldMapping.get('/Migration/FieldMapping', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  return c.html(FieldMappingPage({ csrf: c.var.csrfToken, user: c.var.user, session }));
});

const columnList = text(500).transform((v) => [
  ...new Set(
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
]);

fieldMapping.post('/Migration/FieldMappingPost', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const body = await formBody(c);
  const plans = await applyMappingEditsFrom(c, session, indexedList(body, 'mappings'), 'form.mappings');
  const keys = parsed(
    z.array(z.object({ Table: identifier, Columns: columnList.pipe(z.array(identifier)).default([]) })).max(200),
    indexedList(body, 'naturalKeys'),
    'form.naturalKeys',
  );
  for (const key of keys) {
    const plan = plans.find((p) => p.sourceTable === key.Table);
    if (!plan) throw new HttpError(400, 'invalid_request', `The table ${key.Table} is not part of this session.`);
    const unknown = key.Columns.filter((col) => !plan.columns.some((m) => m.dest === col));
    if (unknown.length)
      throw new HttpError(400, 'invalid_request', `A natural key of ${plan.destTable} names unmapped columns: ${unknown.join(', ')}.`);
    plan.naturalKey = key.Columns.length ? key.Columns : undefined;
  }
  await updateWizardSession(c.var.db, session.id, { plans });
  return c.redirect(`/Migration/Summary?sessionId=${session.id}`, 302);
});

fieldMapping.post('/Migration/FindNaturalKeyMatches', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const conn = await connectionOf(c, session.configId);
  const rows: { tableName: string; sourceId: string; destId: string; matchedOn: string }[] = [];
  const summaries: MatchSummary[] = [];
  for (const plan of session.plans.filter((p) => p.destTable && p.naturalKey?.length)) {
    const found = await engine.findNaturalKeyMatches(engineEnv(c), conn, session.configId, plan, MATCH_LIMIT);
    const matched = found.matched ?? found.matches.length;
    summaries.push({
      sourceTable: plan.sourceTable,
      destTable: plan.destTable,
      alreadyMapped: found.alreadyMapped,
      matched,
      unmatched: found.unmatched,
      scanned: found.scanned ?? found.alreadyMapped + matched + found.unmatched,
      scanLimit: found.scanLimit ?? 50_000,
      scanCapped: found.scanCapped ?? false,
      matchLimit: MATCH_LIMIT,
      matchCapped: matched > found.matches.length,
    });
    for (const match of found.matches) {
      const matchedOn = Object.entries(match.key)
        .map(([k, v]) => `${k}=${v ?? 'null'}`)
        .join(', ')
        .slice(0, 500);
      rows.push({ tableName: plan.sourceTable, sourceId: match.sourceId, destId: match.destId, matchedOn });
    }
  }
  await replacePendingMatches(c.var.db, session.id, rows, summaries);
  return c.redirect(pendingUrl(session.id), 302);
});

fieldMapping.get('/Migration/PendingMappings', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const rows = await listPendingMappings(c.var.db, session.id);
  return c.html(PendingMappingsPage({ csrf: c.var.csrfToken, user: c.var.user, session, rows, summaries: session.matchSummaries }));
});

async function reviewedMapping(c: MigrateContext, session: WizardSession) {
  const { mappingId } = parsed(z.object({ mappingId: intId }), await formBody(c), 'form');
  const row = await pendingMapping(c.var.db, session.id, mappingId);
  if (!row) throw new HttpError(404, 'not_found', `There is no pending mapping ${mappingId} in this session.`);
  return row;
}

function planOf(session: WizardSession, sourceTable: string) {
  const plan = session.plans.find((p) => p.sourceTable === sourceTable && p.destTable);
  if (!plan) throw new HttpError(400, 'invalid_request', `The table ${sourceTable} is not mapped in this session.`);
  return plan;
}

fieldMapping.post('/Migration/ConfirmMapping', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const row = await reviewedMapping(c, session);
  const plan = planOf(session, row.tableName);
  await engine.saveIdMappings(engineEnv(c), session.configId, plan.sourceTable, plan.destTable, [
    { sourceId: row.sourceId, destId: row.destId },
  ]);
  await setPendingState(c.var.db, row.id, 'Confirmed');
  return c.redirect(pendingUrl(session.id), 302);
});

fieldMapping.post('/Migration/RejectMapping', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const row = await reviewedMapping(c, session);
  await setPendingState(c.var.db, row.id, 'Rejected');
  return c.redirect(pendingUrl(session.id), 302);
});

const idText = text(200).trim().min(1, 'is required');

fieldMapping.post('/Migration/AddManualMapping', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const input = parsed(z.object({ tableName: identifier, sourceId: idText, destId: idText }), await formBody(c), 'form');
  const plan = planOf(session, input.tableName);
  await engine.saveIdMappings(engineEnv(c), session.configId, plan.sourceTable, plan.destTable, [
    { sourceId: input.sourceId, destId: input.destId },
  ]);
  await addManualPending(c.var.db, session.id, { tableName: plan.sourceTable, sourceId: input.sourceId, destId: input.destId });
  return c.redirect(pendingUrl(session.id), 302);
});

async function summaryView(c: MigrateContext, session: WizardSession, error?: string) {
  const pending = await pendingCounts(c.var.db, session.id);
  const risks = await duplicateRisks(c, session);
  return c.html(SummaryPage({ csrf: c.var.csrfToken, user: c.var.user, session, pending, risks, error }), error ? 400 : 200);
}

fieldMapping.get('/Migration/Summary', guard.read('any'), async (c) => summaryView(c, await sessionFromQuery(c)));

fieldMapping.post('/Migration/StartMigration', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const { confirmDuplicates } = parsed(z.object({ confirmDuplicates: checkbox }), await formBody(c), 'form');
  const risks = confirmDuplicates ? [] : await duplicateRisks(c, session);
  if (risks.length) {
    const total = risks.reduce((n, r) => n + r.rowsAtRisk, 0);
    return summaryView(
      c,
      session,
      `Not started: about ${total} rows of ${risks.map((r) => r.destTable).join(', ')} would be inserted again (no natural key, rows already in the destination). Choose a natural key, or tick the confirmation and start again.`,
    );
  }
  await startRun(c, session);
  return c.redirect(`/Migration/Progress?sessionId=${session.id}`, 302);
});

const FkPatchInput = z.object({ childSourceTable: identifier, fkSourceColumn: identifier, parentSourceTable: identifier });

fieldMapping.get('/Migration/FkPatch', guard.read('any'), (c) => {
  const values = Object.fromEntries(
    ['childSourceTable', 'fkSourceColumn', 'parentSourceTable'].map((k) => [
      k,
      (c.req.query(k) ?? '').replace(/\u0000/g, '').slice(0, 128),
    ]),
  );
  return c.html(FkPatchPage({ csrf: c.var.csrfToken, user: c.var.user, values }));
});

fieldMapping.post('/Migration/FkPatch', guard.write('operator'), async (c) => {
  const body = await formBody(c);
  const input = FkPatchInput.safeParse(body);
  const values = Object.fromEntries(
    ['childSourceTable', 'fkSourceColumn', 'parentSourceTable'].map((k) => [
      k,
      typeof body[k] === 'string'
        ? String(body[k])
            .replace(/\u0000/g, '')
            .slice(0, 128)
        : '',
    ]),
  );
  if (!input.success) {
    return c.html(
      FkPatchPage({
        csrf: c.var.csrfToken,
        user: c.var.user,
        values,
        error: 'Name the child source table, its foreign-key column and the parent source table.',
      }),
      400,
    );
  }
  const { config, conn } = await activeConnection(c);
  try {
    const result = await engine.patchForeignKey(engineEnv(c), conn, { configId: config.id, ...input.data });
    return c.html(FkPatchPage({ csrf: c.var.csrfToken, user: c.var.user, values, result }));
  } catch (err) {
    if (err instanceof HttpError || !(err instanceof Error) || err.name !== 'PlanError') throw err;
    return c.html(FkPatchPage({ csrf: c.var.csrfToken, user: c.var.user, values, error: err.message }), 400);
  }
});
