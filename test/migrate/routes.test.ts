import { describe, expect, it } from 'vitest';
import { createMigrateApp } from '../../workers/migrate/src/app';
import type { Access } from '../../workers/migrate/src/guards.ts';
import { accessTable, routeGuards, unprotectedBrowserWrites } from '../support/route-guards';
import { signIn } from './helpers';

const app = createMigrateApp();

/**
 * Who may call each route: the spec's table, with Viewer made read-only (anything that changes
 * data or starts work needs Admin or Operator) and Admin-only kept Admin-only.
 */
const EXPECTED: Record<string, Access> = {
  'GET /openapi.json': 'anonymous',
  'GET /Account/Login': 'anonymous',
  'POST /Account/Login': 'anonymous',
  'GET /Account/Verify': 'anonymous',
  'POST /Account/Verify': 'anonymous',
  'POST /Account/Logout': 'anonymous',
  'GET /': 'any',
  'GET /Home': 'any',
  'GET /Home/Index': 'any',
  'GET /Home/Error': 'any',
  'GET /Configuration': 'any',
  'GET /Configuration/Index': 'any',
  'GET /Configuration/Create': 'operator',
  'POST /Configuration/Create': 'operator',
  'GET /Configuration/Edit/:id': 'operator',
  'POST /Configuration/Edit': 'operator',
  'GET /Configuration/Delete/:id': 'admin',
  'POST /Configuration/Delete': 'admin',
  'POST /Configuration/SetActive': 'operator',
  'GET /Migration/TableSelection': 'operator',
  'POST /Migration/TableSelection': 'operator',
  'GET /Migration/SchemaImport': 'any',
  'POST /Migration/SchemaImport': 'operator',
  'POST /Migration/SchemaImportUseSaved': 'operator',
  'GET /Migration/ReviewMappings': 'any',
  'POST /Migration/ReviewMappings': 'operator',
  'POST /Migration/AcceptSuggestions': 'operator',
  'GET /Migration/ValidateSchema': 'any',
  'GET /Migration/FilterConfig': 'any',
  'POST /Migration/FilterConfig': 'operator',
  'GET /Migration/RelationshipConfig': 'any',
  'POST /Migration/RelationshipConfig': 'operator',
  'GET /Migration/RunConfig': 'any',
  'POST /Migration/RunConfig': 'operator',
  'GET /Migration/Progress': 'any',
  'GET /Migration/Results': 'any',
  'POST /Migration/ValidateAgain': 'operator',
  'GET /Migration/Rejects.csv': 'any',
  'POST /Migration/DryRun': 'operator',
  'POST /Migration/BackfillForeignKeys': 'operator',
  'POST /Migration/BackfillBooleanColumns': 'operator',
  'POST /Migration/ClearMigrationHistory': 'operator',
  'POST /Migration/SyncIdMappingsToDestination': 'operator',
  'GET /Migration/FieldMapping': 'any',
  'POST /Migration/FieldMappingPost': 'operator',
  'POST /Migration/FindNaturalKeyMatches': 'operator',
  'GET /Migration/PendingMappings': 'any',
  'POST /Migration/ConfirmMapping': 'operator',
  'POST /Migration/RejectMapping': 'operator',
  'POST /Migration/AddManualMapping': 'operator',
  'GET /Migration/Summary': 'any',
  'POST /Migration/StartMigration': 'operator',
  'GET /Migration/FkPatch': 'any',
  'POST /Migration/FkPatch': 'operator',
  'GET /Migration/GetDestinationTableColumns': 'any',
  'POST /Migration/AddCustomRelationship': 'operator',
  'POST /Migration/DeleteRelationship': 'operator',
  'POST /Migration/ClearHistoryAjax': 'operator',
  'POST /Migration/CancelMigration': 'operator',
  'GET /Session': 'any',
  'GET /Session/Index': 'any',
  'POST /Session/Delete': 'operator',
  'GET /Meetings': 'any',
  'GET /Meetings/Races': 'any',
  'GET /Meetings/Runners': 'any',
  'POST /api/configuration/test-connection': 'operator',
  'GET /api/migration/progress/:sessionId': 'any',
  'GET /api/migration/logs/:sessionId': 'any',
  'POST /api/table/test-filter': 'operator',
  'GET /api/table/info/:tableName': 'any',
  'GET /Sync': 'any',
  'GET /Sync/Index': 'any',
  'GET /Sync/Create': 'any',
  'GET /Sync/Edit/:id': 'any',
  'POST /Sync/Save': 'operator',
  'POST /Sync/Delete/:id': 'operator',
  'POST /Sync/UploadSchema': 'operator',
  'GET /Sync/Preview/:id': 'any',
  'POST /api/sync/:id/toggle': 'operator',
  'POST /api/sync/:id/run-now': 'operator',
  'GET /api/sync/:id/session-status': 'any',
  'GET /api/sync/status': 'any',
  'GET /api/sync/tables': 'any',
  'GET /api/sync/columns': 'any',
  'GET /api/sync/destination-tables': 'any',
  'GET /api/sync/destination-columns': 'any',
  'GET /api/sync/schema-status': 'any',
  'GET /api/sync/table-mappings': 'any',
  'GET /api/sync/table-fks': 'any',
  'GET /Sync/Incremental/:id': 'any',
  'POST /Sync/Incremental/:id': 'operator',
  'GET /api/sync/:id/incremental': 'any',
  'POST /api/sync/:id/incremental': 'operator',
  'GET /DisciplineRepair': 'any',
  'POST /DisciplineRepair/Start': 'operator',
  'GET /DisciplineRepair/Progress': 'any',
  'POST /DisciplineRepair/Cancel': 'operator',
  'GET /api/discipline-repair/progress/:jobId': 'any',
  'GET /BarrierTrials': 'any',
  'GET /BarrierTrials/Index': 'any',
  'POST /BarrierTrials/Preview': 'operator',
  'POST /BarrierTrials/Start': 'operator',
  'GET /BarrierTrials/Progress': 'any',
  'POST /BarrierTrials/Cancel': 'operator',
  'POST /BarrierTrials/ClearData': 'admin',
  'GET /BarrierTrials/AutoSync': 'operator',
  'POST /BarrierTrials/SaveAutoSync': 'operator',
  'POST /api/barriertrials/autosync/toggle': 'operator',
  'POST /api/barriertrials/autosync/run-now': 'operator',
  'GET /api/barriertrials/livecounts': 'any',
  'GET /api/barriertrials/testfilter': 'any',
  'GET /api/barriertrials/progress/:jobId': 'any',
  'GET /Sectional': 'any',
  'GET /Sectional/Index': 'any',
  'POST /Sectional/Preview': 'operator',
  'POST /Sectional/Start': 'operator',
  'GET /Sectional/Progress': 'any',
  'POST /Sectional/Cancel': 'operator',
  'POST /Sectional/ClearData': 'admin',
  'GET /Sectional/AutoSync': 'operator',
  'POST /Sectional/SaveAutoSync': 'operator',
  'POST /api/sectional/autosync/toggle': 'operator',
  'POST /api/sectional/autosync/run-now': 'operator',
  'GET /api/sectional/livecounts': 'any',
  'GET /api/sectional/testfilter': 'any',
  'GET /api/sectional/progress/:jobId': 'any',
};

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const concrete = (path: string) => path.replace(':id', '1').replace(':sessionId', SAMPLE_ID).replace(':tableName', 'horses');

describe('every route declares its guard', () => {
  const routes = routeGuards(app);

  it('has exactly one access guard on each registered route, with the expected access', () => {
    expect(accessTable(routes)).toEqual(EXPECTED);
  });

  it('checks anti-forgery on every POST and on nothing else', () => {
    expect(unprotectedBrowserWrites(routes)).toEqual([]);
    for (const route of routes) expect(route.antiForgery, route.key).toBe(route.method === 'POST');
  });
});

describe('roles (security)', () => {
  it('refuses every Admin/Operator route to a Viewer with 403, GETs and POSTs alike', async () => {
    const viewer = await signIn('routesViewer');
    for (const [key, access] of Object.entries(EXPECTED)) {
      if (access !== 'operator' && access !== 'admin') continue;
      const [method, path] = key.split(' ') as [string, string];
      const res =
        method === 'GET' ? await viewer.get(concrete(path)) : await viewer.post(concrete(path), { sessionId: SAMPLE_ID, id: '1' });
      expect(res.status, key).toBe(403);
    }
  });

  it('refuses the Admin-only delete to an Operator', async () => {
    const operator = await signIn('routesOperator');
    const res = await operator.post('/Configuration/Delete', { id: '1' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Admin');
  });

  it('answers a role refusal of a JSON route with a JSON body', async () => {
    const viewer = await signIn('routesViewer');
    const res = await viewer.postJson('/api/table/test-filter', { TableName: 'horse', Filter: 'true', OriginalCount: 0 });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ error: 'forbidden' });
  });
});

describe('anti-forgery (security)', () => {
  it('refuses every POST without the token, or from another origin, before doing anything', async () => {
    const admin = await signIn('routesAdmin');
    for (const key of Object.keys(EXPECTED)) {
      if (!key.startsWith('POST ')) continue;
      const path = concrete(key.slice(5));
      const bare = await admin.post(path, { sessionId: SAMPLE_ID, id: '1' }, { csrf: false });
      expect(bare.status, `${key} without token`).toBe(403);
      const foreign = await admin.post(path, { sessionId: SAMPLE_ID, id: '1' }, { headers: { origin: 'https://evil.example' } });
      expect(foreign.status, `${key} cross-origin`).toBe(403);
      const json = await admin.postJson(path, {}, { csrf: false });
      expect(json.status, `${key} JSON without token`).toBe(403);
    }
    // Still signed in: nothing above ended the session.
    expect((await admin.get('/')).status).toBe(200);
  });
});

describe('not found and bad input (error cases)', () => {
  it('answers an unknown page with a 404 page and an unknown API path with JSON', async () => {
    const admin = await signIn('routesAdmin');
    const page = await admin.get('/Nothing/Here');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    const apiRes = await admin.get('/api/nothing');
    expect(apiRes.status).toBe(404);
    expect(await apiRes.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers 400 for a malformed session id and 404 for an unknown one', async () => {
    const admin = await signIn('routesAdmin');
    for (const path of [
      '/Migration/SchemaImport',
      '/Migration/ReviewMappings',
      '/Migration/RunConfig',
      '/Migration/Progress',
      '/Migration/Results',
      '/Migration/Summary',
    ]) {
      expect((await admin.get(`${path}?sessionId=not-a-guid`)).status, path).toBe(400);
      expect((await admin.get(`${path}`)).status, path).toBe(400);
      expect((await admin.get(`${path}?sessionId=${SAMPLE_ID}`)).status, path).toBe(404);
    }
    expect((await admin.get(`/api/migration/progress/${SAMPLE_ID}`)).status).toBe(404);
    expect((await admin.get(`/api/migration/logs/${SAMPLE_ID}`)).status).toBe(404);
    expect((await admin.get('/api/migration/progress/xyz')).status).toBe(400);
    expect((await admin.get(`/api/migration/logs/${SAMPLE_ID}?count=0`)).status).toBe(400);
    expect((await admin.get(`/api/migration/logs/${SAMPLE_ID}?count=abc`)).status).toBe(400);
    expect((await admin.post('/Session/Delete', { sessionId: SAMPLE_ID })).status).toBe(404);
    expect((await admin.post('/Session/Delete', { sessionId: 'x' })).status).toBe(400);
    expect((await admin.post('/Migration/CancelMigration', { sessionId: SAMPLE_ID })).status).toBe(404);
    expect((await admin.post('/Migration/DeleteRelationship', { sessionId: SAMPLE_ID, relationshipId: '999999' })).status).toBe(404);
    expect((await admin.post('/Migration/DeleteRelationship', { sessionId: SAMPLE_ID, relationshipId: 'abc' })).status).toBe(400);
    expect((await admin.post('/Migration/DeleteRelationship', { relationshipId: '999999' })).status).toBe(404);
  });

  it('answers 400 on a NUL or an overlong identifier', async () => {
    const admin = await signIn('routesAdmin');
    expect((await admin.get('/Migration/GetDestinationTableColumns?tableName=hor%00ses')).status).toBe(400);
    expect((await admin.get(`/Migration/GetDestinationTableColumns?tableName=${'a'.repeat(200)}`)).status).toBe(400);
    expect((await admin.postJson('/api/table/test-filter', { TableName: 'horse', Filter: 'x\u0000' })).status).toBe(400);
    expect((await admin.postJson('/api/table/test-filter', { TableName: 'horse; drop', Filter: 'true' })).status).toBe(400);
  });

  it('lists sessions with defaults and refuses unknown sort and status values', async () => {
    const admin = await signIn('routesAdmin');
    const list = await admin.page('/Session');
    expect(list.res.status).toBe(200);
    expect(list.html).toContain('data-sessions');
    expect((await admin.get('/Session?sortBy=nope')).status).toBe(400);
    expect((await admin.get('/Session?status=Weird')).status).toBe(400);
    expect((await admin.get('/Session?descending=maybe')).status).toBe(400);
    expect((await admin.get('/Session?status=Completed&sortBy=status&descending=false')).status).toBe(200);
  });

  it('serves the OpenAPI document of the JSON routes', async () => {
    const res = await app.request('https://migrate.test/openapi.json', {}, (await import('cloudflare:workers')).env);
    expect(res.status).toBe(200);
    const doc = await res.json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/configuration/test-connection',
        '/api/migration/progress/{sessionId}',
        '/api/table/test-filter',
        '/Migration/AddCustomRelationship',
      ]),
    );
  });
});
