import { describe, expect, it } from 'vitest';
import worker from '../../workers/stats/src/index';
import { FUZZ_TIMEOUT_MS, fuzzDocument, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { call, TOKEN } from './helpers';

describe('the statistics API against its OpenAPI document', () => {
  it(
    'answers generated valid and invalid requests, with and without the token, as documented',
    async () => {
      const doc = await (await call('/openapi.json')).json<OpenApiDocument>();
      const report = await fuzzDocument({
        doc,
        base: 'http://stats',
        send: workerHandler(worker),
        credentials: [
          { name: 'token', headers: { authorization: `Bearer ${TOKEN}` } },
          { name: 'wrong token', headers: { authorization: 'Bearer not-the-token' } },
        ],
      });
      expect(operationsOf(doc).length).toBeGreaterThan(0);
      expect(report.operations).toHaveLength(operationsOf(doc).length);
    },
    FUZZ_TIMEOUT_MS,
  );
});
