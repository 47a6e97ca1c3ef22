import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { destCount } from './engine-support';
import { signIn, type Client, legacyConfigurationForm } from './helpers';

const LEGACY = legacyConfigurationForm('Legacy');

/** Tables whose every legacy row already exists in the racing database (matched by natural key), so the run adds nothing other test projects could see. */
const TABLES = ['venue', 'trainer', 'jockey'];

let operator: Client;

beforeAll(async () => {
  operator = await signIn('wizardOperator');
  await operator.page('/Configuration/Create');
  const created = await operator.post('/Configuration/Create', LEGACY);
  expect(created.status).toBe(302);
});

/**
 * A new session through TableSelection: the page creates nothing, its first post creates the
 * session (with `tables`) and redirects to SchemaImport with the new id.
 */
async function newSession(client: Client, tables: string[] = ['venue']): Promise<string> {
  const { res, html } = await client.page('/Migration/TableSelection');
  expect(res.status).toBe(200);
  expect(html).not.toContain('name="sessionId"');
  for (const table of TABLES) expect(html).toContain(`value="${table}"`);
  const created = await client.post('/Migration/TableSelection', { selectedTables: tables });
  expect(created.status).toBe(302);
  const id = /^\/Migration\/SchemaImport\?sessionId=([0-9a-f-]{36})$/.exec(created.headers.get('location') ?? '')?.[1];
  expect(id).toBeDefined();
  return id!;
}

async function uploadSchema(client: Client, sessionId: string, content: string) {
  const form = new FormData();
  form.append('sessionId', sessionId);
  form.append('schemaFile', new Blob([content], { type: 'application/json' }), 'mapping.json');
  return client.fetch('/Migration/SchemaImport', { method: 'POST', body: form, headers: { RequestVerificationToken: client.csrf } });
}

async function waitForRun(client: Client, sessionId: string) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await client.get(`/api/migration/progress/${sessionId}`);
    expect(res.status).toBe(200);
    const progress = await res.json<{
      state: string;
      tables: { table: string; done: number; total: number }[];
      validation: { ok: boolean }[] | null;
      errors: string[];
    }>();
    if (['completed', 'failed', 'cancelled'].includes(progress.state)) return progress;
    if (Date.now() > deadline) throw new Error(`run still ${progress.state}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the wizard end to end (happy path)', () => {
  it('selects tables, imports the schema file, reviews, filters, relates, runs and validates', async () => {
    const sessionId = await newSession(operator);
    const selected = await operator.post('/Migration/TableSelection', { sessionId, selectedTables: TABLES });
    expect(selected.status).toBe(302);
    expect(selected.headers.get('location')).toBe(`/Migration/SchemaImport?sessionId=${sessionId}`);

    const importPage = await operator.page(`/Migration/SchemaImport?sessionId=${sessionId}`);
    expect(importPage.res.status).toBe(200);
    const imported = await uploadSchema(operator, sessionId, JSON.stringify(LEGACY_MAPPING));
    expect(imported.status).toBe(302);
    expect(imported.headers.get('location')).toBe(`/Migration/ReviewMappings?sessionId=${sessionId}`);

    const review = await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`);
    expect(review.res.status).toBe(200);
    expect(review.html).toContain('name="Mappings[0].DestTable"');
    // Post the page's own choices back (one table spelled out), as the browser would.
    const reviewed = await operator.post('/Migration/ReviewMappings', {
      sessionId,
      'Mappings[0].SourceTable': 'trainer',
      'Mappings[0].DestTable': 'trainers',
      'Mappings[0].Columns[0].Source': 'full_name',
      'Mappings[0].Columns[0].Dest': 'name',
      'Mappings[0].Columns[1].Source': 'home_state',
      'Mappings[0].Columns[1].Dest': 'state',
    });
    expect(reviewed.status).toBe(302);
    expect(reviewed.headers.get('location')).toBe(`/Migration/RelationshipConfig?sessionId=${sessionId}`);

    const validate = await operator.page(`/Migration/ValidateSchema?sessionId=${sessionId}`);
    expect(validate.res.status).toBe(200);

    expect((await operator.page(`/Migration/FilterConfig?sessionId=${sessionId}`)).res.status).toBe(200);
    const badFilter = await operator.post('/Migration/FilterConfig', {
      sessionId,
      'filters[0].TableName': 'trainer',
      'filters[0].Filter': '1=1; delete from trainer',
    });
    expect(badFilter.status).toBe(400);
    expect(await badFilter.text()).toContain('field-error');
    const goodFilter = await operator.post('/Migration/FilterConfig', {
      sessionId,
      'filters[0].TableName': 'trainer',
      'filters[0].Filter': 'trainer_id > 0',
    });
    expect(goodFilter.status).toBe(302);
    expect(goodFilter.headers.get('location')).toBe(`/Migration/RelationshipConfig?sessionId=${sessionId}`);

    const relations = await operator.page(`/Migration/RelationshipConfig?sessionId=${sessionId}`);
    expect(relations.res.status).toBe(200);
    const columns = await operator.get('/Migration/GetDestinationTableColumns?tableName=trainers');
    expect(columns.status).toBe(200);
    expect(await columns.json()).toEqual(expect.arrayContaining([expect.objectContaining({ ColumnName: 'id', IsPrimaryKey: true })]));
    expect((await operator.get('/Migration/GetDestinationTableColumns?tableName=no_such_table')).status).toBe(404);
    const added = await operator.post('/Migration/AddCustomRelationship', {
      sessionId,
      parentTable: 'courses',
      parentColumn: 'id',
      childTable: 'trainers',
      childColumn: 'id',
    });
    expect(added.status).toBe(200);
    const addedBody = await added.json<{ success: boolean; id: number; message: string }>();
    expect(addedBody).toMatchObject({ success: true });
    const badAdd = await operator.post('/Migration/AddCustomRelationship', {
      sessionId,
      parentTable: 'courses',
      parentColumn: 'nope',
      childTable: 'trainers',
      childColumn: 'id',
    });
    expect(badAdd.status).toBe(400);
    const removed = await operator.post('/Migration/DeleteRelationship', { sessionId, relationshipId: String(addedBody.id) });
    expect(await removed.json()).toMatchObject({ success: true });
    const related = await operator.post('/Migration/RelationshipConfig', {
      sessionId,
      'columnConfigs[0].Table': 'trainer',
      'columnConfigs[0].NaturalKey': 'name',
      'tableOrder[0]': 'jockeys',
      'tableOrder[1]': 'trainers',
      'tableOrder[2]': 'courses',
    });
    expect(related.status).toBe(302);
    expect(related.headers.get('location')).toBe(`/Migration/RunConfig?sessionId=${sessionId}`);

    const runConfig = await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`);
    expect(runConfig.res.status).toBe(200);
    expect(runConfig.html).toContain('data-run-order');
    const started = await operator.post('/Migration/RunConfig', {
      sessionId,
      'filters[0].TableName': 'trainer',
      'filters[0].Filter': 'trainer_id > 0',
    });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toBe(`/Migration/Progress?sessionId=${sessionId}`);

    const progressPage = await operator.page(`/Migration/Progress?sessionId=${sessionId}`);
    expect(progressPage.res.status).toBe(200);
    expect(progressPage.html).toContain(`data-progress="${sessionId}"`);
    const done = await waitForRun(operator, sessionId);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    expect(done.validation?.length).toBe(TABLES.length);
    expect(done.validation!.every((v) => v.ok)).toBe(true);

    const logs = await operator.get(`/api/migration/logs/${sessionId}?count=5`);
    expect(logs.status).toBe(200);
    const entries = await logs.json<{ level: string; message: string; tableName: string | null; timestamp: string }[]>();
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(5);
    expect(Object.keys(entries[0]!).sort()).toEqual(['level', 'message', 'tableName', 'timestamp']);

    const results = await operator.page(`/Migration/Results?sessionId=${sessionId}`);
    expect(results.html).toContain('data-validated="all"');
    const synced = await operator.post('/Migration/SyncIdMappingsToDestination', { sessionId });
    expect(synced.status).toBe(302);
    expect(synced.headers.get('location')).toMatch(new RegExp(`^/Migration/Results\\?sessionId=${sessionId}&notice=synced&count=\\d+$`));
    const backfilled = await operator.post('/Migration/BackfillForeignKeys', { sessionId });
    expect(backfilled.status).toBe(302);
    const cleared = await operator.postJson(`/Migration/ClearHistoryAjax?sessionId=${sessionId}`, ['jockeys']);
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toMatchObject({ deleted: expect.any(Number) });

    const sessions = await operator.page('/Session?status=Completed');
    expect(sessions.html).toContain(sessionId);
    expect(sessions.html).toMatch(/data-status="Completed">[1-9]/);
  }, 150_000);
});

describe('the wizard: error cases', () => {
  it('refuses an empty or unknown table selection with the form again', async () => {
    const sessionId = await newSession(operator);
    expect((await operator.post('/Migration/TableSelection', { sessionId })).status).toBe(400);
    expect((await operator.post('/Migration/TableSelection', { sessionId, selectedTables: 'no_such_table' })).status).toBe(400);
    expect((await operator.post('/Migration/TableSelection', { sessionId, selectedTables: 'bad name;' })).status).toBe(400);
  });

  it('refuses a schema file that is not a mapping document (400) and keeps the session as it was', async () => {
    const sessionId = await newSession(operator);
    await operator.post('/Migration/TableSelection', { sessionId, selectedTables: ['venue'] });
    const words: Record<string, string[]> = {
      'not json': ['the file is not JSON'],
      '{"version": 2}': ['the version must be 1, the file says 2', 'field tables is missing'],
      [JSON.stringify({ version: 1, tables: [{ sourceTable: 'x' }] })]: [
        'table 1 (x), field destTable is missing',
        'table 1 (x), field columns is missing',
      ],
      [JSON.stringify({
        tables: [
          {
            sourceTable: 'horse',
            destTable: 'horses',
            destKey: 'id',
            sourceKey: ['horse_id'],
            columns: [{ source: 'horse_name', dest: '' }],
          },
        ],
      })]: ['the file has no version', 'table 1 (horse), column 1 (horse_name), field dest is empty'],
    };
    for (const [content, expected] of Object.entries(words)) {
      const res = await uploadSchema(operator, sessionId, content);
      expect(res.status, content).toBe(400);
      const html = await res.text();
      expect(html).toContain('not a valid mapping document');
      for (const text of expected) expect(html, content).toContain(text);
      expect(html).not.toContain('Invalid input');
    }
    // Without a file the mappings are suggested by name.
    const suggested = await operator.post('/Migration/SchemaImportUseSaved', { sessionId });
    expect(suggested.status).toBe(302);
  });

  it('refuses mapping edits naming tables or columns that do not exist', async () => {
    const sessionId = await newSession(operator);
    await operator.post('/Migration/TableSelection', { sessionId, selectedTables: ['venue'] });
    await uploadSchema(operator, sessionId, JSON.stringify(LEGACY_MAPPING));
    expect(
      (
        await operator.post('/Migration/ReviewMappings', {
          sessionId,
          'Mappings[0].SourceTable': 'venue',
          'Mappings[0].DestTable': 'no_table',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await operator.post('/Migration/ReviewMappings', {
          sessionId,
          'Mappings[0].SourceTable': 'other',
          'Mappings[0].DestTable': 'courses',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await operator.post('/Migration/ReviewMappings', {
          sessionId,
          'Mappings[0].SourceTable': 'venue',
          'Mappings[0].DestTable': 'courses',
          'Mappings[0].Columns[0].Source': 'venue_name',
          'Mappings[0].Columns[0].Dest': 'nope',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await operator.post('/Migration/RelationshipConfig', {
          sessionId,
          'columnConfigs[0].Table': 'venue',
          'columnConfigs[0].NaturalKey': 'nope',
        })
      ).status,
    ).toBe(400);
    expect((await operator.post('/Migration/RelationshipConfig', { sessionId, 'tableOrder[0]': 'horses' })).status).toBe(400);
  });

  it('answers test-filter with a count, or success false for anything but one read-only condition', async () => {
    const ok = await operator.postJson('/api/table/test-filter', { TableName: 'trainer', Filter: 'trainer_id > 0', OriginalCount: 7 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: true, count: expect.any(Number), originalCount: 7 });
    for (const Filter of ['1=1; delete from trainer', 'trainer_id > (select count(*) from pg_sleep(30))', 'no_such_column = 1']) {
      const res = await operator.postJson('/api/table/test-filter', { TableName: 'trainer', Filter, OriginalCount: 0 });
      expect(res.status, Filter).toBe(200);
      expect(await res.json(), Filter).toMatchObject({ success: false, error: expect.any(String) });
    }
    expect((await operator.postJson('/api/table/test-filter', { Filter: 'true' })).status).toBe(400);
  }, 30_000);

  it('answers table info for a source table, 404 for an unknown one', async () => {
    const info = await operator.get('/api/table/info/trainer');
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({
      tableName: 'trainer',
      columns: expect.arrayContaining([expect.objectContaining({ ColumnName: 'trainer_id', IsPrimaryKey: true })]),
    });
    expect((await operator.get('/api/table/info/no_such_table')).status).toBe(404);
  });

  it('answers CancelMigration for a session without a run with a message', async () => {
    const sessionId = await newSession(operator);
    const res = await operator.post('/Migration/CancelMigration', { sessionId });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'This session has no run to cancel.' });
    expect((await operator.get(`/api/migration/logs/${sessionId}`)).status).toBe(200);
    expect((await operator.get(`/api/migration/progress/${sessionId}`)).status).toBe(404);
  });

  it('lets a Viewer read a session but not change it', async () => {
    const sessionId = await newSession(operator);
    await operator.post('/Migration/TableSelection', { sessionId, selectedTables: ['venue'] });
    const viewer = await signIn('wizardViewer');
    expect((await viewer.page(`/Migration/SchemaImport?sessionId=${sessionId}`)).res.status).toBe(200);
    expect((await viewer.post('/Migration/SchemaImportUseSaved', { sessionId })).status).toBe(403);
    expect((await viewer.post('/Session/Delete', { sessionId })).status).toBe(403);
    const deleted = await operator.post('/Session/Delete', { sessionId });
    expect(deleted.status).toBe(302);
    expect((await operator.get(`/Migration/SchemaImport?sessionId=${sessionId}`)).status).toBe(404);
  });
});

describe('the field-mapping flow', () => {
  it('saves natural keys, finds matches, confirms, rejects and adds by hand', async () => {
    const sessionId = await newSession(operator);
    await operator.post('/Migration/TableSelection', { sessionId, selectedTables: ['jockey'] });
    await uploadSchema(operator, sessionId, JSON.stringify(LEGACY_MAPPING));
    expect((await operator.page(`/Migration/FieldMapping?sessionId=${sessionId}`)).res.status).toBe(200);
    const saved = await operator.post('/Migration/FieldMappingPost', {
      sessionId,
      'naturalKeys[0].Table': 'jockey',
      'naturalKeys[0].Columns': 'name',
    });
    expect(saved.status).toBe(302);
    expect(saved.headers.get('location')).toBe(`/Migration/Summary?sessionId=${sessionId}`);
    expect(
      (
        await operator.post('/Migration/FieldMappingPost', {
          sessionId,
          'naturalKeys[0].Table': 'jockey',
          'naturalKeys[0].Columns': 'not_mapped',
        })
      ).status,
    ).toBe(400);
    const found = await operator.post('/Migration/FindNaturalKeyMatches', { sessionId });
    expect(found.status).toBe(302);
    expect(found.headers.get('location')).toBe(`/Migration/PendingMappings?sessionId=${sessionId}`);
    const pending = await operator.page(`/Migration/PendingMappings?sessionId=${sessionId}`);
    const ids = [...pending.html.matchAll(/data-mapping="(\d+)"/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(1);
    expect((await operator.post('/Migration/ConfirmMapping', { sessionId, mappingId: ids[0]! })).status).toBe(302);
    expect((await operator.post('/Migration/RejectMapping', { sessionId, mappingId: ids[1]! })).status).toBe(302);
    expect((await operator.post('/Migration/ConfirmMapping', { sessionId, mappingId: '99999999' })).status).toBe(404);
    expect(
      (await operator.post('/Migration/AddManualMapping', { sessionId, tableName: 'jockey', sourceId: '1', destId: '1' })).status,
    ).toBe(302);
    expect((await operator.post('/Migration/AddManualMapping', { sessionId, tableName: 'horse', sourceId: '1', destId: '1' })).status).toBe(
      400,
    );
    const summary = await operator.page(`/Migration/Summary?sessionId=${sessionId}`);
    expect(summary.html).toMatch(/1 confirmed, 1 rejected, 1 added by hand/);
  }, 60_000);

  it('serves the foreign-key backfill tool and refuses incomplete input', async () => {
    expect((await operator.page('/Migration/FkPatch')).res.status).toBe(200);
    const res = await operator.post('/Migration/FkPatch', { childSourceTable: 'race_entry' });
    expect(res.status).toBe(400);
  });
});

/** A session with the legacy mapping document for TABLES, ready to run: its id. */
async function readySession(client: Client): Promise<string> {
  const sessionId = await newSession(client);
  expect((await client.post('/Migration/TableSelection', { sessionId, selectedTables: TABLES })).status).toBe(302);
  expect((await uploadSchema(client, sessionId, JSON.stringify(LEGACY_MAPPING))).status).toBe(302);
  await client.page(`/Migration/RunConfig?sessionId=${sessionId}`);
  return sessionId;
}

const sessionRow = (id: string) =>
  env.DB.prepare('select status, run_id from migration_sessions where id = ?').bind(id).first<{ status: string; run_id: string | null }>();

describe('runs that cannot collide', () => {
  it('starts one run of two concurrent RunConfig posts (the other 409 naming it), records its end from the job, then lets a new run start', async () => {
    const sessionId = await readySession(operator);
    const [a, b] = await Promise.all([
      operator.post('/Migration/RunConfig', { sessionId }),
      operator.post('/Migration/RunConfig', { sessionId }),
    ]);
    expect([a.status, b.status].sort()).toEqual([302, 409]);
    const refused = a.status === 409 ? a : b;
    const row = await sessionRow(sessionId);
    expect(row?.status).toBe('Running');
    expect(await refused.text()).toContain(`run ${row!.run_id}`);

    // Nothing reads the progress: the job itself records the end on the session.
    const deadline = Date.now() + 90_000;
    let status = row!.status;
    while (status === 'Running' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await sessionRow(sessionId))!.status;
    }
    expect(status).toBe('Completed');

    const [c, d] = await Promise.all([
      operator.post('/Migration/StartMigration', { sessionId }),
      operator.post('/Migration/StartMigration', { sessionId }),
    ]);
    expect([c.status, d.status].sort()).toEqual([302, 409]);
    const second = await sessionRow(sessionId);
    expect(second!.run_id).not.toBe(row!.run_id);
    expect(await (c.status === 409 ? c : d).text()).toContain(`run ${second!.run_id}`);
    expect((await waitForRun(operator, sessionId)).state).toBe('completed');

    // A status left at Running by a run that has ended does not hold the session.
    await env.DB.prepare("update migration_sessions set status = 'Running' where id = ?").bind(sessionId).run();
    const third = await operator.post('/Migration/StartMigration', { sessionId });
    expect(third.status).toBe(302);
    expect((await sessionRow(sessionId))!.run_id).not.toBe(second!.run_id);
    expect((await waitForRun(operator, sessionId)).state).toBe('completed');
  }, 240_000);

  it("refuses DeleteRelationship of another session's relationship (404) and keeps it", async () => {
    const mine = await newSession(operator);
    const theirs = await newSession(operator);
    const added = await operator.post('/Migration/AddCustomRelationship', {
      sessionId: theirs,
      parentTable: 'courses',
      parentColumn: 'id',
      childTable: 'trainers',
      childColumn: 'id',
    });
    const { id } = await added.json<{ id: number }>();
    const refused = await operator.post('/Migration/DeleteRelationship', { sessionId: mine, relationshipId: String(id) });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: 'not_found' });
    const kept = await env.DB.prepare('select session_id from custom_relationships where id = ?').bind(id).first<{ session_id: string }>();
    expect(kept?.session_id).toBe(theirs);
    // The spec's form (relationshipId alone) reaches only a relationship of a session the caller started.
    await env.DB.prepare('update migration_sessions set created_by = ? where id = ?').bind('someone-else@example.com', theirs).run();
    expect((await operator.post('/Migration/DeleteRelationship', { relationshipId: String(id) })).status).toBe(404);
    expect(await env.DB.prepare('select id from custom_relationships where id = ?').bind(id).first()).not.toBeNull();
    const removed = await operator.post('/Migration/DeleteRelationship', { sessionId: theirs, relationshipId: String(id) });
    expect(await removed.json()).toMatchObject({ success: true });
    const again = await operator.post('/Migration/AddCustomRelationship', {
      sessionId: mine,
      parentTable: 'courses',
      parentColumn: 'id',
      childTable: 'trainers',
      childColumn: 'id',
    });
    const own = (await again.json<{ id: number }>()).id;
    expect(await (await operator.post('/Migration/DeleteRelationship', { relationshipId: String(own) })).json()).toMatchObject({
      success: true,
    });
  });
});

const countRows = async (sql: string, ...values: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...values)
    .first<{ n: number }>())!.n;

describe('sessions begin at the first post', () => {
  it('creates no session on a visit, creates a named one on the post, and never lists one without tables', async () => {
    const before = await countRows('select count(*) as n from migration_sessions');
    await operator.page('/Migration/TableSelection');
    await operator.page('/Migration/TableSelection');
    expect(await countRows('select count(*) as n from migration_sessions')).toBe(before);
    const sessionId = await newSession(operator, ['venue', 'trainer']);
    expect(await countRows('select count(*) as n from migration_sessions')).toBe(before + 1);
    const page = await operator.page(`/Migration/SchemaImport?sessionId=${sessionId}`);
    expect(page.html).toMatch(/data-session-name="true">venue, trainer — \d{4}-\d{2}-\d{2}</);
    // A session left empty (as visits made them before) is not listed.
    const empty = crypto.randomUUID();
    await env.DB.prepare("insert into migration_sessions (id, config_id, created_by) values (?, 1, 'wizard-operator@example.com')")
      .bind(empty)
      .run();
    const list = await operator.page('/Session');
    expect(list.html).toContain(sessionId);
    expect(list.html).not.toContain(empty);
  });
});

describe('defaults that do not duplicate (venue into courses, already there)', () => {
  it('suggests courses and the known column pairs with reasons, proposes a key, runs, and leaves the row count', async () => {
    const sessionId = await newSession(operator, ['venue']);
    expect((await operator.post('/Migration/SchemaImportUseSaved', { sessionId })).status).toBe(302);
    const review = await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`);
    expect(review.res.status).toBe(200);
    expect(review.html).toContain('data-table-suggestion="courses"');
    for (const [source, dest] of [
      ['venue_name', 'name'],
      ['country_code', 'country'],
      ['category_code', 'category'],
      ['state_code', 'state'],
    ]) {
      expect(review.html, source).toMatch(new RegExp(`data-column="${source}"[\\s\\S]*?data-suggestion="${dest}"`));
    }
    expect(review.html).toContain('venue_name without the table&#39;s name venue');
    // Mapping drop-downs are labelled.
    expect(review.html).toContain('aria-label="Destination column for venue.venue_name"');
    const stored = await env.DB.prepare('select mappings from migration_sessions where id = ?')
      .bind(sessionId)
      .first<{ mappings: string }>();
    const plan = (
      JSON.parse(stored!.mappings) as {
        destTable: string;
        naturalKey?: string[];
        columns: { source: string; dest: string; transform?: { kind: string; values?: Record<string, string> } }[];
      }[]
    )[0]!;
    expect(plan.destTable).toBe('courses');
    expect(plan.naturalKey).toEqual(['name']);
    expect(plan.columns.find((c) => c.source === 'country_code')?.transform).toEqual({ kind: 'map', values: { AU: 'AUS', NZ: 'NZ' } });
    expect(plan.columns.find((c) => c.source === 'category_code')?.transform?.values).toEqual({
      M: 'Metropolitan',
      P: 'Provincial',
      C: 'Country',
    });

    const next = await operator.post('/Migration/ReviewMappings', {
      sessionId,
      next: 'FilterConfig',
      'Mappings[0].SourceTable': 'venue',
      'Mappings[0].DestTable': 'courses',
      'Mappings[0].ColumnsFor': 'courses',
    });
    expect(next.headers.get('location')).toBe(`/Migration/FilterConfig?sessionId=${sessionId}`);
    const relations = await operator.page(`/Migration/RelationshipConfig?sessionId=${sessionId}`);
    expect(relations.html).toMatch(
      /data-key-proposal="name"[^>]*>Proposed: name — venue_name is unique in \d+ sampled source rows and in courses \(\d+ rows\)/,
    );
    const run = await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`);
    expect(run.html).not.toContain('data-duplicate-risk');
    expect(run.html).toContain('Row filter for venue');

    const before = await destCount('courses');
    const started = await operator.post('/Migration/RunConfig', { sessionId, 'filters[0].TableName': 'venue', 'filters[0].Filter': '' });
    expect(started.status).toBe(302);
    const done = await waitForRun(operator, sessionId);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    expect(await destCount('courses')).toBe(before);
  }, 120_000);

  it('warns on the Run summary without a natural key and starts nothing until confirmed', async () => {
    const sessionId = await newSession(operator, ['venue']);
    await operator.post('/Migration/SchemaImportUseSaved', { sessionId });
    // Rows already in the id mappings are skipped, not inserted: forget them so every venue counts.
    expect((await operator.postJson(`/Migration/ClearHistoryAjax?sessionId=${sessionId}`, ['courses'])).status).toBe(200);
    // No key: the page's empty entry only.
    expect(
      (
        await operator.post('/Migration/RelationshipConfig', {
          sessionId,
          'columnConfigs[0].Table': 'venue',
          'columnConfigs[0].NaturalKey': '',
        })
      ).status,
    ).toBe(302);
    const run = await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`);
    expect(run.html).toContain('data-duplicate-risk');
    expect(run.html).toMatch(/data-risk-table="courses" data-rows-at-risk="[1-9]\d*"/);
    const refused = await operator.post('/Migration/RunConfig', { sessionId });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Not started');
    expect((await sessionRow(sessionId))!.run_id).toBeNull();
    const summary = await operator.post('/Migration/StartMigration', { sessionId });
    expect(summary.status).toBe(400);
    expect((await sessionRow(sessionId))!.run_id).toBeNull();
    // Choosing the key again through the page's checkboxes clears the warning.
    expect(
      (
        await operator.post('/Migration/RelationshipConfig', {
          sessionId,
          'columnConfigs[0].Table': 'venue',
          'columnConfigs[0].NaturalKey': ['', 'name'],
        })
      ).status,
    ).toBe(302);
    expect((await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`)).html).not.toContain('data-duplicate-risk');
  }, 60_000);

  it('reports what natural-key matching found, and Progress and Results say there is no run yet', async () => {
    const sessionId = await newSession(operator, ['jockey']);
    await operator.post('/Migration/SchemaImportUseSaved', { sessionId });
    const progress = await operator.page(`/Migration/Progress?sessionId=${sessionId}`);
    expect(progress.html).toContain('data-no-run');
    expect(progress.html).not.toContain('data-cancel');
    expect(progress.html).toMatch(/data-step="Progress" data-disabled="true"/);
    expect((await operator.page(`/Migration/Results?sessionId=${sessionId}`)).html).toContain('data-no-run');
    expect((await operator.post('/Migration/FindNaturalKeyMatches', { sessionId })).status).toBe(302);
    const pending = await operator.page(`/Migration/PendingMappings?sessionId=${sessionId}`);
    const row = /<tr data-match-table="jockey" data-scan-capped="(true|false)" data-match-capped="(true|false)">([\s\S]*?)<\/tr>/.exec(
      pending.html,
    );
    expect(row).not.toBeNull();
    const cells = [...row![3]!.matchAll(/<td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    const [alreadyMapped, matched, unmatched, scanned] = cells;
    expect(alreadyMapped! + matched! + unmatched!).toBe(scanned);
    expect(scanned).toBeGreaterThan(0);
    expect(row![2]).toBe(matched! > 500 ? 'true' : 'false');
  }, 60_000);
});
