import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { activeConnection, connectionOf, engineEnv } from '../configurations.ts';
import type { MigrateContext, MigrateEnv } from '../context.ts';
import * as engine from '../engine/index.ts';
import type { MappingDocument } from '../engine/types.ts';
import { guard } from '../guards.ts';
import { formBody, identifier, indexedList, many, parsed, text } from '../input.ts';
import { buildPlans } from '../runs.ts';
import {
  FilterConfigPage,
  RelationshipConfigPage,
  ReviewMappingsPage,
  SchemaImportPage,
  TableSelectionPage,
  ValidateSchemaPage,
} from '../views/wizard/index.ts';
import {
  createWizardSession,
  customForeignKeys,
  savedSchemaFile,
  updateWizardSession,
  wizardSession,
  type WizardSession,
} from '../wizard-sessions.ts';
import { proposeKeys, readSamples, suggestPlans, withProposedKeys } from '../wizard-suggestions.ts';
import { fieldMapping } from './field-mapping.ts';
import { applyMappingEditsFrom, schemas, withSuggestedColumns } from './mapping-edits.ts';
import { MAX_TABLES, checkedFilters, sessionFromForm, sessionFromQuery, stepUrl } from './migration-forms.ts';
import { migrationRun } from './migration-run.ts';

/**
 * The Migration controller: the wizard pages and their redirects (spec 002 A, Migration): here the
 * steps that build the plan, in migration-run.ts the run and its results.
 */
export const migration = new Hono<MigrateEnv>();

migration.get('/Migration/TableSelection', guard.read('operator'), async (c) => {
  // No session is created here: the first post creates it (a visit alone leaves nothing behind).
  const id = c.req.query('sessionId');
  const session = id ? await wizardSession(c, id) : null;
  const conn = session ? await connectionOf(c, session.configId) : (await activeConnection(c)).conn;
  const tables = await engine.listTables(engineEnv(c), conn);
  return c.html(TableSelectionPage({ csrf: c.var.csrfToken, user: c.var.user, session, tables }));
});

migration.post('/Migration/TableSelection', guard.write('operator'), async (c) => {
  const body = await formBody(c);
  const session = body.sessionId !== undefined && body.sessionId !== '' ? await wizardSession(c, body.sessionId) : null;
  const { selectedTables } = parsed(z.object({ selectedTables: many(identifier) }), body, 'form');
  const unique = [...new Set(selectedTables)];
  const { config, conn } = session
    ? { config: { id: session.configId }, conn: await connectionOf(c, session.configId) }
    : await activeConnection(c);
  const tables = await engine.listTables(engineEnv(c), conn);
  if (unique.length === 0 || unique.length > MAX_TABLES) {
    return c.html(
      TableSelectionPage({ csrf: c.var.csrfToken, user: c.var.user, session, tables, error: `Select between 1 and ${MAX_TABLES} tables.` }),
      400,
    );
  }
  const missing = unique.filter((t) => !tables.some((s) => s.name === t));
  if (missing.length) {
    return c.html(
      TableSelectionPage({
        csrf: c.var.csrfToken,
        user: c.var.user,
        session,
        tables,
        error: `Not tables of the source: ${missing.join(', ')}.`,
      }),
      400,
    );
  }
  const id = session ? session.id : await createWizardSession(c.var.db, config.id, c.var.user.email, unique);
  if (session)
    await updateWizardSession(c.var.db, session.id, {
      selectedTables: unique,
      status: session.status === 'Created' ? 'Configuring' : session.status,
    });
  return c.redirect(stepUrl('SchemaImport', id), 302);
});

migration.get('/Migration/SchemaImport', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const saved = await savedSchemaFile(c.var.db, session);
  return c.html(SchemaImportPage({ csrf: c.var.csrfToken, user: c.var.user, session, hasSaved: saved !== null }));
});

/**
 * Plans for the session from a schema file where it names a table, else suggested from names,
 * types and sampled values, each with a natural key proposed where it has none; stored, then on to
 * ReviewMappings.
 */
async function importSchema(c: MigrateContext, session: WizardSession, doc: MappingDocument | null) {
  const { source, dest } = await schemas(c, session);
  const samples = await readSamples(c, session.configId, session.selectedTables, source, dest);
  const suggested = suggestPlans(session.selectedTables, source, dest, samples);
  const plans = buildPlans(session.selectedTables, doc, source, dest, (table) => suggested.get(table)?.plan ?? null);
  const keys = await proposeKeys(c, plans, dest, samples);
  await updateWizardSession(c.var.db, session.id, { plans: withProposedKeys(plans, keys), ...(doc ? { schemaFile: doc } : {}) });
  return c.redirect(stepUrl('ReviewMappings', session.id), 302);
}

migration.post('/Migration/SchemaImport', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const file = (await formBody(c)).schemaFile;
  if (!(file instanceof File) || file.size === 0) return importSchema(c, session, null);
  let doc;
  try {
    doc = engine.parseMappingDocumentText(await file.text());
  } catch (err) {
    const error = `The schema file is not a valid mapping document: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2000);
    const saved = await savedSchemaFile(c.var.db, session);
    return c.html(SchemaImportPage({ csrf: c.var.csrfToken, user: c.var.user, session, hasSaved: saved !== null, error }), 400);
  }
  return importSchema(c, session, doc);
});

migration.post('/Migration/SchemaImportUseSaved', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  return importSchema(c, session, await savedSchemaFile(c.var.db, session));
});

/**
 * The suggestions for a session's tables, from both schemas and the sampled values: for a plan with
 * a destination table, the columns suggested for that table (a table the operator chose is kept);
 * for a table not copied yet, the table suggested.
 */
async function sessionSuggestions(c: MigrateContext, session: WizardSession) {
  const { source, dest } = await schemas(c, session);
  const tables = session.plans.map((p) => p.sourceTable);
  const samples = await readSamples(c, session.configId, tables, source, dest);
  const chosen = Object.fromEntries(session.plans.filter((p) => p.destTable).map((p) => [p.sourceTable, p.destTable]));
  return { source, dest, samples, suggestions: suggestPlans(tables, source, dest, samples, chosen) };
}

async function reviewView(c: MigrateContext, session: WizardSession, notice?: string) {
  const { source, dest, samples, suggestions } = await sessionSuggestions(c, session);
  // A table not copied yet shows the table suggested for it.
  for (const plan of session.plans.filter((p) => !p.destTable)) {
    const s = suggestPlans([plan.sourceTable], source, dest, samples).get(plan.sourceTable);
    if (s) suggestions.set(plan.sourceTable, s);
  }
  return c.html(ReviewMappingsPage({ csrf: c.var.csrfToken, user: c.var.user, session, source, dest, suggestions, notice }));
}

migration.get('/Migration/ReviewMappings', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const notice =
    c.req.query('notice') === 'table'
      ? 'A destination table changed: its columns are filled from the suggestions; review them.'
      : undefined;
  return reviewView(c, session, notice);
});

migration.post('/Migration/ReviewMappings', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const body = await formBody(c);
  const list = indexedList(body, 'Mappings') as Record<string, unknown>[];
  // The page says which destination its column choices were made for: choices made for another table are dropped.
  const changed = list
    .filter((m) => m && typeof m === 'object' && typeof m.ColumnsFor === 'string' && m.ColumnsFor !== m.DestTable)
    .map((m) => String(m.SourceTable));
  const edits = list.map((m) =>
    m && typeof m === 'object' && changed.includes(String(m.SourceTable))
      ? { SourceTable: m.SourceTable, DestTable: m.DestTable }
      : m && typeof m === 'object'
        ? { SourceTable: m.SourceTable, DestTable: m.DestTable, Columns: m.Columns }
        : m,
  );
  const applied = await applyMappingEditsFrom(c, session, edits, 'form.Mappings');
  const plans = await withSuggestedColumns(c, session, applied, changed);
  await updateWizardSession(c.var.db, session.id, { plans });
  if (body.next === 'FilterConfig') {
    return c.redirect(
      changed.some((t) => plans.find((p) => p.sourceTable === t)?.destTable)
        ? `${stepUrl('ReviewMappings', session.id)}&notice=table`
        : stepUrl('FilterConfig', session.id),
      302,
    );
  }
  return c.redirect(stepUrl('RelationshipConfig', session.id), 302);
});

migration.post('/Migration/AcceptSuggestions', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  // The suggestions the page showed.
  const { dest, samples, suggestions: suggested } = await sessionSuggestions(c, session);
  const plans = session.plans.map((p) => {
    const s = suggested.get(p.sourceTable);
    if (!s?.plan.destTable) return p;
    return {
      ...s.plan,
      naturalKey: s.plan.destTable === p.destTable ? p.naturalKey?.filter((k) => s.plan.columns.some((m) => m.dest === k)) : undefined,
    };
  });
  const keys = await proposeKeys(
    c,
    plans.filter((p) => !p.naturalKey?.length),
    dest,
    samples,
  );
  await updateWizardSession(c.var.db, session.id, { plans: withProposedKeys(plans, keys) });
  return c.redirect(stepUrl('ReviewMappings', session.id), 302);
});

migration.get('/Migration/ValidateSchema', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const { source, dest } = await schemas(c, session);
  const issues = engine.validatePlan(session.plans, source, dest);
  return c.html(ValidateSchemaPage({ csrf: c.var.csrfToken, user: c.var.user, session, issues }));
});

migration.get('/Migration/FilterConfig', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  return c.html(FilterConfigPage({ csrf: c.var.csrfToken, user: c.var.user, session, errors: {} }));
});

migration.post('/Migration/FilterConfig', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const { filters, errors } = await checkedFilters(c, session);
  if (Object.keys(errors).length) {
    return c.html(FilterConfigPage({ csrf: c.var.csrfToken, user: c.var.user, session: { ...session, filters }, errors }), 400);
  }
  await updateWizardSession(c.var.db, session.id, { filters });
  return c.redirect(stepUrl('RelationshipConfig', session.id), 302);
});

migration.get('/Migration/RelationshipConfig', guard.read('any'), async (c) => {
  const session = await sessionFromQuery(c);
  const { source, dest } = await schemas(c, session);
  const samples = await readSamples(
    c,
    session.configId,
    session.plans.map((p) => p.sourceTable),
    source,
    dest,
  );
  const proposals = await proposeKeys(c, session.plans, dest, samples);
  const tables = new Set(session.plans.map((p) => p.destTable).filter(Boolean));
  const detected = dest.foreignKeys.filter((fk) => tables.has(fk.childTable) && tables.has(fk.parentTable));
  const custom = (await customForeignKeys(c.var.db, session.id)).map((r) => ({ ...r, custom: true }));
  return c.html(
    RelationshipConfigPage({
      csrf: c.var.csrfToken,
      user: c.var.user,
      session,
      fks: [...detected, ...custom],
      destTables: dest.tables.map((t) => t.name),
      proposals,
    }),
  );
});

const keyList = text(500).transform((v, ctx) => {
  const names = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names)
    if (!identifier.safeParse(name).success) ctx.addIssue({ code: 'custom', message: `${name} is not a column name` });
  return [...new Set(names)];
});

migration.post('/Migration/RelationshipConfig', guard.write('operator'), async (c) => {
  const session = await sessionFromForm(c);
  const body = { ...(await formBody(c)) };
  // The page's key checkboxes post a column each (after an empty one): one comma-separated list.
  for (const [name, value] of Object.entries(body)) {
    if (/^columnConfigs\[\d{1,4}\]\.NaturalKey$/.test(name) && Array.isArray(value))
      body[name] = value.filter((v) => typeof v === 'string' && v).join(',');
  }
  const configs = parsed(
    z.array(z.object({ Table: identifier, NaturalKey: keyList.default([]) })).max(MAX_TABLES),
    indexedList(body, 'columnConfigs'),
    'form.columnConfigs',
  );
  const order = parsed(z.array(identifier).max(MAX_TABLES), indexedList(body, 'tableOrder'), 'form.tableOrder');
  const dest = await engine.introspect(engineEnv(c), 'destination');
  const plans = session.plans.map((plan) => {
    const config = configs.find((cfg) => cfg.Table === plan.sourceTable);
    if (!config) return plan;
    const columns = dest.tables.find((t) => t.name === plan.destTable)?.columns ?? [];
    const unknown = config.NaturalKey.filter((k) => !columns.some((col) => col.ColumnName === k));
    if (unknown.length)
      throw new HttpError(400, 'invalid_request', `The destination table ${plan.destTable} has no column ${unknown.join(', ')}.`);
    return { ...plan, naturalKey: config.NaturalKey.length ? config.NaturalKey : undefined };
  });
  const known = new Set(plans.map((p) => p.destTable));
  const unknownTables = order.filter((t) => !known.has(t));
  if (unknownTables.length)
    throw new HttpError(400, 'invalid_request', `Not a destination table of this session: ${unknownTables.join(', ')}.`);
  await updateWizardSession(c.var.db, session.id, { plans, tableOrder: [...new Set(order)] });
  return c.redirect(stepUrl('RunConfig', session.id), 302);
});
migration.route('/', migrationRun);
migration.route('/', fieldMapping);
