import { describe, expect, it } from 'vitest';
import worker from '../../workers/cms/src/index';
import { FUZZ_TIMEOUT_MS, fuzzDocument, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { api, BASE, signIn } from './helpers';

describe('the CMS API against its OpenAPI document', () => {
  it(
    'answers generated valid and invalid requests, with and without a session, as documented',
    async () => {
      const doc = await (await api('/openapi.json')).json<OpenApiDocument>();
      const cookie = await signIn('fuzz');
      const report = await fuzzDocument({
        doc,
        base: BASE,
        send: workerHandler(worker),
        credentials: [{ name: 'session', headers: { cookie } }],
        // Logging out ends the session the other operations use: last.
        last: ['POST /api/v1/auth/logout'],
      });
      expect(operationsOf(doc).length).toBeGreaterThan(20);
      expect(report.operations).toHaveLength(operationsOf(doc).length);
    },
    FUZZ_TIMEOUT_MS,
  );
});
