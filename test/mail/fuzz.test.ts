import { describe, expect, it } from 'vitest';
import worker from '../../workers/mail/src/index';
import { FUZZ_TIMEOUT_MS, fuzzDocument, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { BASE, directSession, send } from './helpers';

describe('the mail assistant’s JSON routes against its OpenAPI document', () => {
  it(
    'answers generated valid and invalid requests, with and without a session, as documented',
    async () => {
      const doc = await (await send('/openapi.json')).json<OpenApiDocument>();
      const session = await directSession('fuzz@racing.test');
      const report = await fuzzDocument({
        doc,
        base: BASE,
        send: workerHandler(worker),
        credentials: [{ name: 'session', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } }],
      });
      expect(operationsOf(doc).length).toBeGreaterThan(30);
      expect(report.operations).toHaveLength(operationsOf(doc).length);
    },
    FUZZ_TIMEOUT_MS,
  );
});
