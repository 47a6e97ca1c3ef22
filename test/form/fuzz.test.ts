import { describe, expect, it } from 'vitest';
import worker from '../../workers/form/src/index';
import { createFormApp } from '../../workers/form/src/app';
import { formApiDocument, OPENAPI_PATH } from '../../workers/form/src/openapi';
import { FUZZ_TIMEOUT_MS, fuzzDocument, fuzzRuns, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { BASE, fetchForm, sessionCookie } from './helpers';

describe('the JSON lookups against their OpenAPI document', () => {
  it('the document lists exactly the JSON routes the app serves', () => {
    const served = createFormApp()
      .routes.filter((r) => r.path.startsWith('/form/api/') && r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`);
    const described = operationsOf(formApiDocument() as unknown as OpenApiDocument).map((op) => op.key);
    expect(new Set(described)).toEqual(new Set(served));
    expect(described.sort()).toEqual(
      [
        'GET /form/api/dates/',
        'GET /form/api/meetings/',
        `GET ${OPENAPI_PATH}`,
        'GET /form/api/races/',
        'GET /form/api/runners/',
        'GET /form/api/search/',
      ].sort(),
    );
  });

  it('is served behind the session like the lookups', async () => {
    const anonymous = await fetchForm(OPENAPI_PATH);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/form/');
    const res = await fetchForm(OPENAPI_PATH, { cookie: await sessionCookie() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(formApiDocument())));
  });

  it(
    'answers generated valid and invalid requests, with and without a session, as documented',
    async () => {
      const cookie = await sessionCookie();
      const doc = await (await fetchForm(OPENAPI_PATH, { cookie })).json<OpenApiDocument>();
      const report = await fuzzDocument({
        doc,
        base: BASE,
        send: workerHandler(worker),
        credentials: [{ name: 'session', headers: { cookie } }],
      });
      expect(report.operations).toHaveLength(operationsOf(doc).length);
      expect(report.operations).toHaveLength(6);
      expect(report.requests).toBe(6 * fuzzRuns());
    },
    FUZZ_TIMEOUT_MS,
  );
});
