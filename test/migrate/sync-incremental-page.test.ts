import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, legacyConfigurationForm, signIn } from './helpers';

// The sync job's incremental settings page (/Sync/Incremental/{id}) and its JSON routes: the
// proposal and its reason, what the next run does (a full pass said so), names checked against the
// schemas, anti-forgery and roles.

const CONFIG_ID = 7302;
let operator: Client;
let viewer: Client;
let jobId: number;

type Tables = {
  tables: {
    sourceTable: string;
    method: string;
    column: string | null;
    deletes: string;
    softDeleteColumn: string | null;
    proposal: { method: string; column: string | null; reason: string } | null;
    nextRun: { method: string; column: string | null; fullBecause: string | null };
    mark: { of: string | null; value: string | null; runId: string | null };
    markColumns: string[];
    softColumns: string[];
  }[];
};

beforeAll(async () => {
  // One after the other: the one local authentication service is slow under load.
  operator = await signIn('incrementalOperator');
  viewer = await signIn('incrementalViewer');
  const config = legacyConfigurationForm('Legacy for incremental sync');
  await operator.page('/Configuration/Create');
  expect((await operator.post('/Configuration/Create', config)).status).toBe(302);
  await env.DB.prepare('UPDATE configurations SET id = ? WHERE name = ?').bind(CONFIG_ID, config.Name).run();
  await operator.page('/Sync/Create');
  const saved = await operator.post('/Sync/Save', {
    Name: 'Trainers, incrementally',
    ConfigId: String(CONFIG_ID),
    Tables: 'trainer',
    IntervalMinutes: '5',
  });
  expect(saved.status, await saved.clone().text()).toBe(302);
  jobId = (await env.DB.prepare('SELECT id FROM sync_jobs WHERE name = ?').bind('Trainers, incrementally').first<{ id: number }>())!.id;
  await viewer.page('/Sync');
}, 120_000);

const settings = async (client: Client) => (await (await client.get(`/api/sync/${jobId}/incremental`)).json<Tables>()).tables[0]!;
const postJson = (client: Client, body: unknown, csrf = true) =>
  client.fetch(`/api/sync/${jobId}/incremental`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(csrf ? { RequestVerificationToken: client.csrf } : {}) },
  });

describe('the incremental settings page', () => {
  it('proposes xmin for a table without an updated-at column, and says the first run reads every row', async () => {
    const { res, html } = await viewer.page(`/Sync/Incremental/${jobId}`);
    expect(res.status).toBe(200);
    expect(html).toContain('Proposed: PostgreSQL&#39;s xmin, because no updated-at column');
    expect(html).toContain('No mark yet');
    const table = await settings(viewer);
    expect(table).toMatchObject({
      sourceTable: 'trainer',
      method: 'auto',
      deletes: 'ignore',
      nextRun: { method: 'xmin', fullBecause: null },
    });
    expect(table.markColumns).toContain('trainer_id');
    expect(table.markColumns).not.toContain('full_name');
  });

  it('saves a column the source has, refuses one it has not or of the wrong type, with the reason on the page', async () => {
    await operator.page(`/Sync/Incremental/${jobId}`);
    const wrongType = await operator.post(`/Sync/Incremental/${jobId}`, {
      'trainer.method': 'column',
      'trainer.column': 'full_name',
      'trainer.deletes': 'ignore',
    });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.text()).toContain('is not a timestamp, date or number column of trainer');
    const unknown = await operator.post(`/Sync/Incremental/${jobId}`, {
      'trainer.method': 'column',
      'trainer.column': 'x; DROP TABLE trainer',
      'trainer.deletes': 'ignore',
    });
    expect(unknown.status).toBe(400);
    const nul = await operator.post(`/Sync/Incremental/${jobId}`, { 'trainer.method': 'column\u0000', 'trainer.deletes': 'ignore' });
    expect(nul.status).toBe(400);
    expect((await settings(operator)).method).toBe('auto');
    const ok = await operator.post(`/Sync/Incremental/${jobId}`, {
      'trainer.method': 'column',
      'trainer.column': 'trainer_id',
      'trainer.deletes': 'delete',
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe(`/Sync/Incremental/${jobId}`);
    expect(await settings(operator)).toMatchObject({
      method: 'column',
      column: 'trainer_id',
      deletes: 'delete',
      nextRun: { method: 'column', column: 'trainer_id' },
    });
  });

  it('says so when the next run is a full pass, and why', async () => {
    await operator.page(`/Sync/Incremental/${jobId}`);
    expect((await operator.post(`/Sync/Incremental/${jobId}`, { 'trainer.method': 'full', 'trainer.deletes': 'ignore' })).status).toBe(302);
    const { html } = await operator.page(`/Sync/Incremental/${jobId}`);
    expect(html).toContain('The next run reads the whole table (full pass): the operator chose a full pass.');
    expect((await settings(operator)).nextRun).toEqual({ method: 'full', column: null, fullBecause: 'the operator chose a full pass' });
  });

  it('soft deletes need a boolean, timestamp or date column of the destination table', async () => {
    await operator.page(`/Sync/Incremental/${jobId}`);
    const res = await operator.post(`/Sync/Incremental/${jobId}`, {
      'trainer.method': 'xmin',
      'trainer.deletes': 'soft',
      'trainer.softDeleteColumn': 'name',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('is not a boolean, timestamp or date column of');
    const missing = await operator.post(`/Sync/Incremental/${jobId}`, { 'trainer.method': 'xmin', 'trainer.deletes': 'soft' });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('choose the column that marks a deleted row');
  });

  it('refuses a Viewer, a post without the anti-forgery token, and an unknown job', async () => {
    await viewer.page(`/Sync/Incremental/${jobId}`);
    expect((await viewer.post(`/Sync/Incremental/${jobId}`, { 'trainer.method': 'xmin', 'trainer.deletes': 'ignore' })).status).toBe(403);
    expect(
      (await operator.post(`/Sync/Incremental/${jobId}`, { 'trainer.method': 'xmin', 'trainer.deletes': 'ignore' }, { csrf: false }))
        .status,
    ).toBe(403);
    expect((await operator.get('/Sync/Incremental/999999')).status).toBe(404);
    expect((await operator.get('/Sync/Incremental/abc')).status).toBe(400);
  });
});

describe('the incremental settings JSON routes', () => {
  it('POST saves every table once, checked; a bad name or method is 400 naming the field', async () => {
    await operator.page(`/Sync/Incremental/${jobId}`);
    const bad = await postJson(operator, {
      tables: [{ sourceTable: 'trainer', method: 'column', column: 'full_name', deletes: 'ignore' }],
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', issues: [{ field: 'body.trainer.column' }] });
    const other = await postJson(operator, { tables: [{ sourceTable: 'jockey', method: 'xmin', deletes: 'ignore' }] });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { issues: { field: string }[] }).issues.map((i) => i.field).sort()).toEqual([
      'body.jockey.table',
      'body.trainer.method',
    ]);
    expect((await postJson(operator, { tables: [{ sourceTable: 'trainer', method: 'sql', deletes: 'ignore' }] })).status).toBe(400);
    const ok = await postJson(operator, { tables: [{ sourceTable: 'trainer', method: 'checksum', deletes: 'ignore' }] });
    expect(ok.status).toBe(200);
    expect((await ok.json<Tables>()).tables[0]).toMatchObject({ method: 'checksum', nextRun: { method: 'checksum', fullBecause: null } });
    expect((await postJson(viewer, { tables: [{ sourceTable: 'trainer', method: 'xmin', deletes: 'ignore' }] })).status).toBe(403);
    expect((await postJson(operator, { tables: [{ sourceTable: 'trainer', method: 'xmin', deletes: 'ignore' }] }, false)).status).toBe(403);
  });
});
