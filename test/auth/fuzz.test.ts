import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../workers/auth/src/index';
import { FUZZ_TIMEOUT_MS, fuzzDocument, operationsOf, type OpenApiDocument } from '../support/openapi-fuzz';
import { workerHandler } from '../support/worker-handler';
import { CLIENT_SECRET, createAccount, signIn, uniqueIp } from './helpers';

describe('the authentication API against its OpenAPI document', () => {
  it(
    'answers generated valid and invalid requests, with and without the client secret and a token, as documented',
    async () => {
      const doc = await (await exports.default.fetch('https://auth.test/api/docs/openapi.json')).json<OpenApiDocument>();
      const tokens = await signIn(await createAccount({}));
      const report = await fuzzDocument({
        doc,
        base: 'https://auth.test',
        send: workerHandler(worker),
        credentials: [
          { name: 'client secret', headers: { 'x-auth-client-secret': CLIENT_SECRET } },
          {
            name: 'client secret and token',
            headers: { 'x-auth-client-secret': CLIENT_SECRET, authorization: `Bearer ${tokens.access_token}` },
          },
          { name: 'wrong secret and token', headers: { 'x-auth-client-secret': 'wrong', authorization: 'Bearer x.y.z' } },
        ],
        // Each request from an address of its own, as many clients: wrong secrets are counted per address.
        headers: () => ({ 'cf-connecting-ip': uniqueIp() }),
      });
      expect(report.operations).toHaveLength(operationsOf(doc).length);
      expect(report.operations).toHaveLength(5);
    },
    FUZZ_TIMEOUT_MS,
  );
});
