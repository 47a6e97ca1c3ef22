import { createExecutionContext, createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { servicesOf } from '../../workers/migrate/src/context';
import worker from '../../workers/migrate/src/index';
import { migrationJobStub } from '../../workers/migrate/src/jobs/stubs';
import { findSyncJob, nextRunAfter, type SyncJob } from '../../workers/migrate/src/data/sync-jobs';
import { runSchedule, scheduleDecisions } from '../../workers/migrate/src/sync-jobs';
import { BASE, Client, signIn, legacyConfigurationForm } from './helpers';

const LEGACY = legacyConfigurationForm('Legacy for sync');
/**
 * The racing database is shared by every test file and holds the id mappings per configuration
 * id: this file's configuration takes an id no other file uses.
 */
const CONFIG_ID = 7301;
/** Every legacy trainer already exists in the racing database (matched by name): runs add no rows. */
const TABLE = 'trainer';
const FINAL = ['completed', 'failed', 'cancelled'];

let admin: Client;
let operator: Client;
let viewer: Client;

beforeAll(async () => {
  [admin, operator, viewer] = await Promise.all([signIn('syncAdmin'), signIn('syncOperator'), signIn('syncViewer')]);
  await admin.page('/Configuration/Create');
  expect((await admin.post('/Configuration/Create', LEGACY)).status).toBe(302);
  await env.DB.prepare('UPDATE configurations SET id = ? WHERE name = ?').bind(CONFIG_ID, LEGACY.Name).run();
  await operator.page('/Sync');
  await viewer.page('/Sync');
});

function upload(client: Client, configId: string, content: string | null, options: { csrf?: boolean } = {}) {
  const form = new FormData();
  if (content !== null) form.append('schemaFile', new Blob([content], { type: 'application/json' }), 'mapping.json');
  const headers: Record<string, string> = options.csrf === false ? {} : { RequestVerificationToken: client.csrf };
  return client.fetch(`/Sync/UploadSchema?configId=${configId}`, { method: 'POST', body: form, headers });
}

type Fields = { Name: string; Tables?: string[]; IntervalMinutes?: string; Enabled?: boolean; Id?: string; ConfigId?: string };
function save(client: Client, fields: Fields) {
  const form: Record<string, string | string[]> = {
    Name: fields.Name,
    ConfigId: fields.ConfigId ?? String(CONFIG_ID),
    Tables: fields.Tables ?? [TABLE],
    IntervalMinutes: fields.IntervalMinutes ?? '5',
  };
  if (fields.Enabled) form.Enabled = 'true';
  if (fields.Id) form.Id = fields.Id;
  return client.post('/Sync/Save', form);
}

async function jobNamed(name: string): Promise<SyncJob> {
  const row = await env.DB.prepare('SELECT id FROM sync_jobs WHERE name = ?').bind(name).first<{ id: number }>();
  expect(row, name).not.toBeNull();
  return (await findSyncJob(servicesOf(env).var.db, row!.id))!;
}

async function createJob(name: string, options: Partial<Fields> = {}): Promise<SyncJob> {
  const res = await save(operator, { Name: name, ...options });
  expect(res.status, await res.clone().text()).toBe(302);
  expect(res.headers.get('location')).toBe('/Sync');
  return jobNamed(name);
}

async function untilFinished(client: Client, id: number): Promise<{ currentSessionGuid: string | null; status: string | null }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await client.get(`/api/sync/${id}/session-status`);
    expect(res.status).toBe(200);
    const body = await res.json<{ currentSessionGuid: string | null; status: string | null }>();
    if (body.status && FINAL.includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`run still ${body.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the mapping document (UploadSchema and look-ups)', () => {
  it('stores a good document and answers the schema look-ups from it', async () => {
    const missing = await operator.get(`/api/sync/schema-status?configId=${CONFIG_ID}`);
    expect(await missing.json()).toEqual({ exists: false });
    const notFound = await operator.get(`/api/sync/table-mappings?configId=${CONFIG_ID}&table=${TABLE}`);
    expect(await notFound.json()).toEqual({ found: false, destTable: null, columns: [] });

    const res = await upload(operator, String(CONFIG_ID), JSON.stringify(LEGACY_MAPPING));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: expect.stringContaining(`${LEGACY_MAPPING.tables.length} table(s)`) });
    expect(await (await operator.get(`/api/sync/schema-status?configId=${CONFIG_ID}`)).json()).toEqual({ exists: true });
    const mapping = await operator.get(`/api/sync/table-mappings?configId=${CONFIG_ID}&table=${TABLE}`);
    expect(await mapping.json()).toEqual({
      found: true,
      destTable: 'trainers',
      columns: [
        { source: 'full_name', dest: 'name', transform: null },
        { source: 'home_state', dest: 'state', transform: null },
      ],
    });
    const venue = await viewer.get(`/api/sync/table-mappings?configId=${CONFIG_ID}&table=venue`);
    expect(await venue.json()).toMatchObject({
      found: true,
      destTable: 'courses',
      columns: expect.arrayContaining([{ source: 'country_code', dest: 'country', transform: 'map' }]),
    });
  });

  it('refuses a missing, malformed or invalid file, and bad or unknown configuration ids', async () => {
    const none = await upload(operator, String(CONFIG_ID), null);
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: 'no_file' });
    const notJson = await upload(operator, String(CONFIG_ID), '{"version": 1, "tables": [');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: 'invalid_schema_file' });
    const wrongShape = await upload(operator, String(CONFIG_ID), JSON.stringify({ version: 2, tables: [] }));
    expect(wrongShape.status).toBe(400);
    const nul = await upload(
      operator,
      String(CONFIG_ID),
      JSON.stringify({ version: 1, tables: [{ ...LEGACY_MAPPING.tables[0], sourceTable: 'ven\u0000ue' }] }),
    );
    expect(nul.status).toBe(400);
    const badId = await upload(operator, 'abc', JSON.stringify(LEGACY_MAPPING));
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ error: 'invalid_request' });
    expect((await upload(operator, '1.5', JSON.stringify(LEGACY_MAPPING))).status).toBe(400);
    const unknown = await upload(operator, '999999', JSON.stringify(LEGACY_MAPPING));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    // Still the good document.
    expect(await (await operator.get(`/api/sync/table-mappings?configId=${CONFIG_ID}&table=${TABLE}`)).json()).toMatchObject({
      found: true,
    });
  });

  it('lists source and destination tables and columns, and merged foreign keys', async () => {
    const tables = await viewer.get(`/api/sync/tables?configId=${CONFIG_ID}`);
    expect(tables.status).toBe(200);
    expect(await tables.json()).toEqual(expect.arrayContaining(['venue', 'trainer', 'race_entry']));
    const columns = await viewer.get(`/api/sync/columns?configId=${CONFIG_ID}&table=trainer`);
    expect(await columns.json()).toEqual(expect.arrayContaining([{ ColumnName: 'full_name', DataType: expect.any(String) }]));
    const destTables = await viewer.get(`/api/sync/destination-tables?configId=${CONFIG_ID}`);
    expect(await destTables.json()).toEqual(expect.arrayContaining(['trainers', 'runners']));
    const destColumns = await viewer.get(`/api/sync/destination-columns?configId=${CONFIG_ID}&table=trainers`);
    expect(await destColumns.json()).toEqual(expect.arrayContaining([{ ColumnName: 'id', DataType: 'integer' }]));
    const fks = await viewer.get(`/api/sync/table-fks?configId=${CONFIG_ID}&table=race_entry`);
    expect(fks.status).toBe(200);
    const list = await fks.json<{ childTable: string; parentTable: string; custom: boolean }[]>();
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((fk) => fk.childTable === 'runners' && fk.custom === false)).toBe(true);
    expect(list.map((fk) => fk.parentTable)).toEqual(expect.arrayContaining(['races', 'horses']));
    expect(await (await viewer.get(`/api/sync/table-fks?configId=${CONFIG_ID}&table=trainer`)).json()).toEqual([]);
  });

  it('answers 400 for bad input and 404 for unknown configurations and tables, always as JSON', async () => {
    const cases: [string, number][] = [
      ['/api/sync/tables', 400],
      ['/api/sync/tables?configId=abc', 400],
      ['/api/sync/tables?configId=-1', 400],
      ['/api/sync/tables?configId=0x10', 400],
      ['/api/sync/tables?configId=999999', 404],
      ['/api/sync/destination-tables?configId=999999', 404],
      ['/api/sync/schema-status?configId=999999', 404],
      ['/api/sync/schema-status?configId=1e3', 400],
      [`/api/sync/columns?configId=${CONFIG_ID}`, 400],
      [`/api/sync/columns?configId=${CONFIG_ID}&table=no_such_table`, 404],
      [`/api/sync/columns?configId=${CONFIG_ID}&table=trai%00ner`, 400],
      [`/api/sync/columns?configId=${CONFIG_ID}&table=${'a'.repeat(200)}`, 400],
      [`/api/sync/columns?configId=${CONFIG_ID}&table=trainer;drop`, 400],
      [`/api/sync/destination-columns?configId=${CONFIG_ID}&table=no_such_table`, 404],
      ['/api/sync/destination-columns?configId=999999&table=trainers', 404],
      [`/api/sync/table-mappings?configId=${CONFIG_ID}&table=%00`, 400],
      ['/api/sync/table-mappings?configId=999999&table=trainer', 404],
      [`/api/sync/table-fks?configId=${CONFIG_ID}&table=no_such_table`, 404],
      ['/api/sync/table-fks?configId=999999&table=trainer', 404],
      ['/api/sync/abc/session-status', 400],
      ['/api/sync/999999/session-status', 404],
    ];
    for (const [path, status] of cases) {
      const res = await viewer.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toContain('application/json');
      expect(await res.json(), path).toMatchObject({ error: expect.any(String) });
    }
  });
});

describe('jobs: Save, Edit, Delete and the pages (happy path and errors)', () => {
  it('creates, lists, edits, previews and deletes a job', async () => {
    const create = await operator.page('/Sync/Create');
    expect(create.res.status).toBe(200);
    expect(create.html).toContain('value="trainer"');
    const job = await createJob('Round trip', { IntervalMinutes: '30' });
    expect(job).toMatchObject({
      configId: CONFIG_ID,
      tables: [TABLE],
      intervalMinutes: 30,
      enabled: false,
      nextRunAt: null,
      lastRunId: null,
    });

    const list = await viewer.page('/Sync');
    expect(list.res.status).toBe(200);
    expect(list.html).toContain(`data-sync-job="${job.id}"`);
    expect(list.html).toContain('Round trip');
    expect(list.html).toContain('never run');
    expect(list.html).toContain('/static/sync.js');

    const edit = await viewer.page(`/Sync/Edit/${job.id}`);
    expect(edit.res.status).toBe(200);
    expect(edit.html).toContain('value="Round trip"');
    expect(edit.html).toContain(`name="Id" value="${job.id}"`);

    const before = Date.now();
    const saved = await save(operator, {
      Id: String(job.id),
      Name: 'Round trip, edited',
      Tables: ['trainer', 'venue'],
      IntervalMinutes: '60',
      Enabled: true,
    });
    expect(saved.status).toBe(302);
    const edited = await jobNamed('Round trip, edited');
    expect(edited).toMatchObject({ id: job.id, tables: ['trainer', 'venue'], intervalMinutes: 60, enabled: true });
    expect(edited.nextRunAt).toBeGreaterThanOrEqual(nextRunAfter(before, 60));
    expect(edited.nextRunAt).toBeLessThanOrEqual(nextRunAfter(Date.now(), 60));

    const preview = await viewer.page(`/Sync/Preview/${job.id}`);
    expect(preview.res.status).toBe(200);
    expect(preview.html).toContain('data-preview-table="trainer"');
    expect(preview.html).toContain('trainer → trainers');
    expect(preview.html).toContain('venue → courses');
    expect(preview.html).toContain('From the mapping document.');

    const deleted = await operator.post(`/Sync/Delete/${job.id}`);
    expect(deleted.status).toBe(302);
    expect(deleted.headers.get('location')).toBe('/Sync');
    expect((await viewer.get(`/Sync/Edit/${job.id}`)).status).toBe(404);
    expect((await viewer.get(`/Sync/Preview/${job.id}`)).status).toBe(404);
    expect((await operator.post(`/Sync/Delete/${job.id}`)).status).toBe(404);
  });

  it('re-renders the form with errors (400) for invalid fields and never saves them', async () => {
    const cases: [Fields, string][] = [
      [{ Name: '' }, 'Name is required'],
      [{ Name: 'x'.repeat(101) }, 'Name must be at most 100 characters'],
      [{ Name: 'Bad\u0000name' }, 'Name must not contain NUL characters'],
      [{ Name: 'Short interval', IntervalMinutes: '1' }, 'Interval must be at least 5'],
      [{ Name: 'Long interval', IntervalMinutes: '10081' }, 'Interval must be at most 10080'],
      [{ Name: 'Word interval', IntervalMinutes: 'soon' }, 'Interval must be a whole number of minutes'],
      [{ Name: 'No tables', Tables: [] }, 'Tables choose at least one table'],
      [{ Name: 'Unknown table', Tables: ['no_such_table'] }, 'Tables are not tables of the source: no_such_table'],
      [{ Name: 'Bad table name', Tables: ['trainer; drop'] }, 'field-error'],
      [{ Name: 'Unknown configuration', ConfigId: '999999' }, 'Configuration is not a configuration'],
      [{ Name: 'Bad configuration', ConfigId: 'abc' }, 'Configuration must be a positive integer'],
    ];
    for (const [fields, message] of cases) {
      const res = await save(operator, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const html = await res.text();
      expect(html, JSON.stringify(fields)).toContain('data-sync-form');
      expect(html, JSON.stringify(fields)).toContain(message);
    }
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM sync_jobs WHERE name IN ('Short interval', 'Long interval', 'No tables', 'Unknown table')",
    ).first<{ n: number }>();
    expect(count?.n).toBe(0);
    expect((await save(operator, { Name: 'Unknown id', Id: '999999' })).status).toBe(404);
    expect((await save(operator, { Name: 'Bad id', Id: 'abc' })).status).toBe(400);
  });

  it('answers 400 for a malformed id and 404 for an unknown one on every page', async () => {
    for (const path of ['/Sync/Edit', '/Sync/Preview']) {
      expect((await viewer.get(`${path}/abc`)).status, path).toBe(400);
      expect((await viewer.get(`${path}/1.5`)).status, path).toBe(400);
      expect((await viewer.get(`${path}/0`)).status, path).toBe(400);
      expect((await viewer.get(`${path}/99999999999`)).status, path).toBe(400);
      expect((await viewer.get(`${path}/999999`)).status, path).toBe(404);
    }
    expect((await operator.post('/Sync/Delete/abc')).status).toBe(400);
    expect((await viewer.get('/Sync/Create?configId=abc')).status).toBe(400);
    expect((await viewer.get('/Sync/Index')).headers.get('location')).toBe('/Sync');
  });
});

describe('toggle, run-now, session-status and status', () => {
  it('toggles a job: enabling schedules the next run one interval from now, disabling clears it', async () => {
    const job = await createJob('Toggled', { IntervalMinutes: '15' });
    const before = Date.now();
    const on = await operator.postJson(`/api/sync/${job.id}/toggle`, {});
    expect(on.status).toBe(200);
    const onBody = await on.json<{ enabled: boolean; nextRunAt: string }>();
    expect(onBody.enabled).toBe(true);
    expect(Date.parse(onBody.nextRunAt)).toBeGreaterThanOrEqual(nextRunAfter(before, 15));
    expect(Date.parse(onBody.nextRunAt)).toBeLessThanOrEqual(nextRunAfter(Date.now(), 15));
    const off = await operator.postJson(`/api/sync/${job.id}/toggle`, {});
    expect(await off.json()).toEqual({ enabled: false, nextRunAt: null });
    const missing = await operator.postJson('/api/sync/999999/toggle', {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    const bad = await operator.postJson('/api/sync/abc/toggle', {});
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('runs a job now in its MigrationJob, to completion against the legacy source', async () => {
    const job = await createJob('Run now');
    expect(await (await viewer.get(`/api/sync/${job.id}/session-status`)).json()).toEqual({ currentSessionGuid: null, status: null });
    const res = await operator.postJson(`/api/sync/${job.id}/run-now`, {});
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ message: expect.stringContaining('started') });
    const started = await jobNamed('Run now');
    expect(started.lastRunId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await operator.postJson(`/api/sync/${job.id}/run-now`, {});
    // The first run may already have ended on a fast machine; otherwise the second is refused.
    if (again.status !== 200) {
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ error: 'already_running' });
    }
    const done = await untilFinished(viewer, job.id);
    expect(done.status).toBe('completed');
    const progress = await migrationJobStub(env, done.currentSessionGuid!).progress();
    expect(progress?.tables.map((t) => t.table)).toEqual(['trainers']);
    expect(progress?.validation?.every((v) => v.ok)).toBe(true);
    const status = await (await viewer.get('/api/sync/status')).json<{
      running: number;
      errored: number;
      enabled: number;
      total: number;
    }>();
    expect(status.running).toBe(0);
    expect(status.total).toBeGreaterThanOrEqual(1);
    expect((await operator.postJson('/api/sync/999999/run-now', {})).status).toBe(404);
    expect((await operator.postJson('/api/sync/x/run-now', {})).status).toBe(400);
  });

  it('starts one run of two concurrent run-nows (the other 409 naming it); the job records its end; a stale status does not hold the job', async () => {
    const job = await createJob('Run twice');
    const [a, b] = await Promise.all([
      operator.postJson(`/api/sync/${job.id}/run-now`, {}),
      operator.postJson(`/api/sync/${job.id}/run-now`, {}),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const started = await jobNamed('Run twice');
    const refused = await (a.status === 409 ? a : b).json<{ error: string; message: string; runId: string }>();
    expect(refused).toMatchObject({ error: 'already_running', runId: started.lastRunId });
    expect(refused.message).toContain(started.lastRunId!);
    // Nothing reads the progress: the MigrationJob writes the end on the job.
    const row = () => env.DB.prepare('SELECT last_status FROM sync_jobs WHERE id = ?').bind(job.id).first<{ last_status: string }>();
    const deadline = Date.now() + 90_000;
    while (!['completed', 'failed', 'cancelled'].includes((await row())!.last_status) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
    expect((await row())!.last_status).toBe('completed');
    // A status left at running by a run that has ended is settled from the job, and the run starts.
    await env.DB.prepare("UPDATE sync_jobs SET last_status = 'running' WHERE id = ?").bind(job.id).run();
    const again = await operator.postJson(`/api/sync/${job.id}/run-now`, {});
    expect(again.status, await again.clone().text()).toBe(200);
    expect((await jobNamed('Run twice')).lastRunId).not.toBe(started.lastRunId);
    expect((await untilFinished(viewer, job.id)).status).toBe('completed');
  }, 200_000);

  it('records a run-now whose plan no longer fits on the job, as errored', async () => {
    const job = await createJob('Gone table', { Tables: ['sale_lot'] });
    await env.DB.prepare('UPDATE sync_jobs SET tables = \'["no_longer_there"]\' WHERE id = ?').bind(job.id).run();
    const res = await operator.postJson(`/api/sync/${job.id}/run-now`, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_plan' });
    expect((await jobNamed('Gone table')).lastError).toContain('no_longer_there');
    expect((await (await viewer.get('/api/sync/status')).json<{ errored: number }>()).errored).toBeGreaterThanOrEqual(1);
    await env.DB.prepare('DELETE FROM sync_jobs WHERE id = ?').bind(job.id).run();
  });
});

describe('the schedule (a controlled clock)', () => {
  const services = () => servicesOf(env);
  const job = (over: Partial<SyncJob>): SyncJob => ({
    id: 1,
    name: 'j',
    configId: CONFIG_ID,
    tables: [TABLE],
    patchMode: false,
    intervalMinutes: 5,
    enabled: true,
    nextRunAt: 1_000,
    lastRunId: null,
    lastRunAt: null,
    lastStatus: null,
    lastError: null,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  });

  it('decides purely from the clock and the current run', () => {
    const decisions = scheduleDecisions(
      [
        { job: job({ id: 1 }), runState: null },
        { job: job({ id: 2, nextRunAt: 1_001 }), runState: null },
        { job: job({ id: 3, enabled: false, nextRunAt: null }), runState: null },
        { job: job({ id: 4 }), runState: 'running' },
        { job: job({ id: 5 }), runState: 'queued' },
        { job: job({ id: 6 }), runState: 'completed' },
        { job: job({ id: 7 }), runState: 'failed' },
      ],
      1_000,
    );
    expect(decisions.map((d) => [d.job.id, d.action])).toEqual([
      [1, 'start'],
      [2, 'not-due'],
      [3, 'not-due'],
      [4, 'skip-running'],
      [5, 'skip-running'],
      [6, 'start'],
      [7, 'start'],
    ]);
    expect(nextRunAfter(1_000, 5)).toBe(301_000);
  });

  it('starts a due job from the Cron Trigger, not before, and runs it to completion', async () => {
    await env.DB.prepare('UPDATE sync_jobs SET enabled = 0, next_run_at = NULL').run();
    const created = await createJob('Scheduled', { Enabled: true });
    const due = created.nextRunAt!;
    const early = await runSchedule(services(), due - 1);
    expect(early.started).not.toContain(created.id);
    expect((await jobNamed('Scheduled')).lastRunId).toBeNull();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: due, cron: '* * * * *' }), env, ctx);
    const started = await jobNamed('Scheduled');
    expect(started.lastRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.lastRunAt).toBe(due);
    expect(started.nextRunAt).toBe(nextRunAfter(due, 5));
    expect(started.lastError).toBeNull();
    const done = await untilFinished(viewer, created.id);
    expect(done).toEqual({ currentSessionGuid: started.lastRunId, status: 'completed' });

    // The same tick again starts nothing: the job's next run moved on.
    expect((await runSchedule(services(), due)).started).not.toContain(created.id);
  });

  it('never starts a job while its current run is in progress, and leaves its next run', async () => {
    await env.DB.prepare('UPDATE sync_jobs SET enabled = 0, next_run_at = NULL').run();
    const created = await createJob('Overlapping', { Enabled: true });
    // A run the job's object still reports as queued (it has no plan yet: the state stays as recorded).
    await env.DB.prepare("UPDATE sync_jobs SET last_run_id = ?, last_status = 'running' WHERE id = ?")
      .bind(crypto.randomUUID(), created.id)
      .run();
    const due = created.nextRunAt! + 60_000;
    const report = await runSchedule(services(), due);
    expect(report.skipped).toContain(created.id);
    expect(report.started).not.toContain(created.id);
    const after = await jobNamed('Overlapping');
    expect(after.nextRunAt).toBe(created.nextRunAt);
    expect(after.lastStatus).toBe('running');
    expect((await (await viewer.get('/api/sync/status')).json<{ running: number }>()).running).toBeGreaterThanOrEqual(1);
    await env.DB.prepare('DELETE FROM sync_jobs WHERE id = ?').bind(created.id).run();
  });

  it('records a failing start (plan no longer fits, source not reachable) and keeps the job scheduled', async () => {
    await env.DB.prepare('UPDATE sync_jobs SET enabled = 0, next_run_at = NULL').run();
    const unfit = await createJob('Unfit', { Enabled: true });
    await env.DB.prepare('UPDATE sync_jobs SET tables = \'["no_longer_there"]\' WHERE id = ?').bind(unfit.id).run();
    // A configuration whose host is off the allowed list: refused before any connection.
    await env.DB.prepare(
      "INSERT INTO configurations (id, name, host, port, database, username, password_sealed) SELECT 7302, 'Unreachable', 'unreachable.invalid', port, database, username, password_sealed FROM configurations WHERE id = ?",
    )
      .bind(CONFIG_ID)
      .run();
    await env.DB.prepare(
      "INSERT INTO sync_jobs (name, config_id, tables, interval_minutes, enabled, next_run_at) VALUES ('Unreachable source', 7302, '[\"trainer\"]', 10, 1, ?)",
    )
      .bind(unfit.nextRunAt)
      .run();
    const unreachable = await jobNamed('Unreachable source');
    const now = unfit.nextRunAt! + 1_000;
    const report = await runSchedule(services(), now);
    expect(report.failed.map((f) => f.id).sort()).toEqual([unfit.id, unreachable.id].sort());
    const a = await jobNamed('Unfit');
    expect(a).toMatchObject({ enabled: true, nextRunAt: nextRunAfter(now, 5), lastRunId: null });
    expect(a.lastError).toContain('no_longer_there');
    const b = await jobNamed('Unreachable source');
    expect(b).toMatchObject({ enabled: true, nextRunAt: nextRunAfter(now, 10) });
    expect(b.lastError).toContain('allowed hosts');
    const status = await (await viewer.get('/api/sync/status')).json<{
      running: number;
      errored: number;
      enabled: number;
      total: number;
    }>();
    expect(status.errored).toBeGreaterThanOrEqual(2);
    expect(status.enabled).toBe(2);
    // The next tick before their next run leaves them be; at it, they are tried again.
    expect((await runSchedule(services(), now + 60_000)).failed).toEqual([]);
    expect((await runSchedule(services(), nextRunAfter(now, 5))).failed.map((f) => f.id)).toEqual([unfit.id]);
  });
});

describe('access (security)', () => {
  it('redirects a signed-out visitor to the login page, pages and JSON alike', async () => {
    const anonymous = new Client();
    for (const path of [
      '/Sync',
      '/Sync/Create',
      '/Sync/Edit/1',
      '/Sync/Preview/1',
      '/api/sync/status',
      '/api/sync/1/session-status',
      `/api/sync/tables?configId=${CONFIG_ID}`,
    ]) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/Account/Login');
    }
    for (const path of [
      '/Sync/Save',
      '/Sync/Delete/1',
      `/Sync/UploadSchema?configId=${CONFIG_ID}`,
      '/api/sync/1/toggle',
      '/api/sync/1/run-now',
    ]) {
      const res = await anonymous.post(path, {}, { csrf: false });
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/Account/Login');
    }
  });

  it('lets a Viewer read but not change anything (403, JSON on JSON routes)', async () => {
    const job = await createJob('Viewer cannot touch');
    expect((await viewer.get('/Sync/Create')).status).toBe(200);
    expect((await viewer.get(`/api/sync/${job.id}/session-status`)).status).toBe(200);
    for (const path of [`/api/sync/${job.id}/toggle`, `/api/sync/${job.id}/run-now`]) {
      const res = await viewer.postJson(path, {});
      expect(res.status, path).toBe(403);
      expect(await res.json(), path).toMatchObject({ error: 'forbidden' });
    }
    expect((await upload(viewer, String(CONFIG_ID), JSON.stringify(LEGACY_MAPPING))).status).toBe(403);
    expect((await save(viewer, { Name: 'By a viewer' })).status).toBe(403);
    expect((await viewer.post(`/Sync/Delete/${job.id}`)).status).toBe(403);
    const after = await jobNamed('Viewer cannot touch');
    expect(after).toMatchObject({ enabled: false, lastRunId: null });
  });

  it('checks anti-forgery on every POST, toggle and run-now included', async () => {
    const job = await createJob('Forged');
    for (const path of [`/api/sync/${job.id}/toggle`, `/api/sync/${job.id}/run-now`]) {
      const bare = await admin.postJson(path, {}, { csrf: false });
      expect(bare.status, path).toBe(403);
      expect(await bare.json(), path).toMatchObject({ error: 'antiforgery_failed' });
      const foreign = await admin.postJson(path, {}, { headers: { origin: 'https://evil.example' } });
      expect(foreign.status, path).toBe(403);
    }
    expect((await upload(admin, String(CONFIG_ID), JSON.stringify(LEGACY_MAPPING), { csrf: false })).status).toBe(403);
    expect(
      (
        await admin.post(
          '/Sync/Save',
          { Name: 'Forged save', ConfigId: String(CONFIG_ID), Tables: TABLE, IntervalMinutes: '5' },
          { csrf: false },
        )
      ).status,
    ).toBe(403);
    expect((await admin.post(`/Sync/Delete/${job.id}`, {}, { csrf: false })).status).toBe(403);
    expect(await jobNamed('Forged')).toMatchObject({ enabled: false, lastRunId: null });
    expect(await env.DB.prepare("SELECT id FROM sync_jobs WHERE name = 'Forged save'").first()).toBeNull();
  });

  it('publishes the JSON routes in the OpenAPI document', async () => {
    const res = await worker.fetch(new Request(`${BASE}/openapi.json`), env, createExecutionContext());
    expect(res.status).toBe(200);
    const doc = await res.json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/Sync/UploadSchema',
        '/api/sync/{id}/toggle',
        '/api/sync/{id}/run-now',
        '/api/sync/{id}/session-status',
        '/api/sync/status',
        '/api/sync/table-fks',
      ]),
    );
  });
});
