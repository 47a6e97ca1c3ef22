import { describe, expect, it } from 'vitest';
import worker from '../../workers/migrate/src/index';
import { FUZZ_TIMEOUT_MS, fuzzDocument, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { BASE, signIn } from './helpers';

describe('the migration app’s JSON routes against its OpenAPI document', () => {
  it(
    'answers generated valid and invalid requests, with and without a session, as documented',
    async () => {
      const client = await signIn('fuzzAdmin');
      const doc = await (await client.get('/openapi.json')).json<OpenApiDocument>();
      const cookie = () => [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const report = await fuzzDocument({
        doc,
        base: BASE,
        send: workerHandler(worker),
        credentials: async () => [{ name: 'session', headers: { cookie: cookie(), requestverificationtoken: client.csrf } }],
        credentialHeaders: ['cookie', 'requestverificationtoken'],
      });
      expect(operationsOf(doc).length).toBeGreaterThan(10);
      expect(report.operations).toHaveLength(operationsOf(doc).length);
    },
    FUZZ_TIMEOUT_MS,
  );
});
