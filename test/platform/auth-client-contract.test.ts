import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Failure, Pending, Revoked, Tokens, Verified, WhoAmI } from '#shared/auth-client.ts';
import authDocument from '../../workers/auth/openapi.json';

// The shared auth client (workers/shared/auth-client.ts) reads the authentication service's
// answers through zod schemas. Each field it reads must be one the service's published document
// (workers/auth/openapi.json, kept equal to the service's routes by test/auth) promises, of the
// same type: a field the client requires must be required there too.

type JsonSchema = {
  $ref?: string;
  type?: string;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

const document = authDocument as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
  components: { schemas: Record<string, JsonSchema> };
};

function resolve(schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  if (!target) throw new Error(`no component ${name}`);
  return resolve(target);
}

function responseSchema(path: string, method: string, status: string): JsonSchema {
  const schema = document.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${path} documents no JSON ${status}`);
  return resolve(schema);
}

/** Where the client's reading (`client`, as JSON Schema) differs from what the document promises. */
function contractGaps(client: JsonSchema, documented: JsonSchema, at = '$'): string[] {
  const doc = resolve(documented);
  const gaps: string[] = [];
  const docType = doc.type ?? (doc.properties ? 'object' : undefined);
  if (client.type !== undefined) {
    const compatible = client.type === docType || (client.type === 'number' && docType === 'integer');
    if (!compatible) gaps.push(`${at}: client reads ${client.type}, document says ${docType ?? 'nothing'}`);
  }
  if (client.const !== undefined) {
    const allowed = doc.const !== undefined ? [doc.const] : doc.enum;
    if (!allowed || allowed.length !== 1 || allowed[0] !== client.const)
      gaps.push(`${at}: client expects ${JSON.stringify(client.const)}, document allows ${JSON.stringify(allowed ?? 'any')}`);
  }
  for (const [name, property] of Object.entries(client.properties ?? {})) {
    const where = `${at}.${name}`;
    const documentedProperty = doc.properties?.[name];
    if (!documentedProperty) {
      gaps.push(`${where}: not in the document`);
      continue;
    }
    if (client.required?.includes(name) && !doc.required?.includes(name))
      gaps.push(`${where}: required by the client, optional in the document`);
    gaps.push(...contractGaps(property, documentedProperty, where));
  }
  return gaps;
}

const asJson = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;

describe('the shared auth client against workers/auth/openapi.json', () => {
  const cases: [string, z.ZodType, JsonSchema][] = [
    ['login 200', Pending, responseSchema('/api/login/', 'post', '200')],
    ['verify-2fa 200', Verified, responseSchema('/api/verify-2fa/', 'post', '200')],
    ['token refresh 200', Tokens, responseSchema('/api/token/refresh/', 'post', '200')],
    ['token revoke 200', Revoked, responseSchema('/api/token/revoke/', 'post', '200')],
    ['whoami 200', WhoAmI, responseSchema('/api/whoami/', 'get', '200')],
    ['login 400', Failure, responseSchema('/api/login/', 'post', '400')],
    ['login 429', Failure, responseSchema('/api/login/', 'post', '429')],
    ['verify-2fa 400', Failure, responseSchema('/api/verify-2fa/', 'post', '400')],
    ['token refresh 401', Failure, responseSchema('/api/token/refresh/', 'post', '401')],
    ['token refresh 403', Failure, responseSchema('/api/token/refresh/', 'post', '403')],
  ];

  for (const [name, schema, documented] of cases) {
    it(`${name}: every field the client reads is documented, with its type`, () => {
      expect(contractGaps(asJson(schema), documented)).toEqual([]);
    });
  }

  it('the client reads the fields sessions are built from', () => {
    expect(Object.keys(asJson(Verified).properties ?? {})).toEqual(
      expect.arrayContaining(['access_token', 'refresh_token', 'expires_in', 'user']),
    );
    expect(Object.keys(asJson(Verified).properties?.user?.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'email', 'first_name', 'last_name', 'role']),
    );
  });

  it('the comparison finds a field the document lacks, a wrong type, a wrong constant and an optional field read as required', () => {
    const documented = responseSchema('/api/token/refresh/', 'post', '200');
    const drifted = z.object({
      success: z.literal(false),
      access_token: z.number(),
      expires_in: z.string(),
      refresh_token_expires: z.string(),
    });
    expect(contractGaps(asJson(drifted), documented)).toEqual([
      '$.success: client expects false, document allows [true]',
      '$.access_token: client reads number, document says string',
      '$.expires_in: client reads string, document says integer',
      '$.refresh_token_expires: not in the document',
    ]);
    const user = resolve({ $ref: '#/components/schemas/Failure' });
    expect(contractGaps(asJson(z.object({ issues: z.array(z.string()) })), user)).toEqual([
      '$.issues: required by the client, optional in the document',
    ]);
  });
});
