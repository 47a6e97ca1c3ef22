import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { caseArbitrary, checkAnswer, fuzzDocument, operationsOf, validate, type OpenApiDocument } from '../support/openapi-fuzz';
import fc from 'fast-check';

// The fuzzer of test/support/openapi-fuzz.ts against a small app and document of its own: it must
// pass an app that keeps its document, and catch one that does not.

const doc: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/items/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]{1,5}$' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50 } },
        ],
        responses: {
          200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
          400: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
    '/items': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } }, required: ['name'] } },
          },
        },
        responses: {
          201: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
          400: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Item: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
        required: ['id', 'name'],
        additionalProperties: false,
      },
      Error: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
    },
  },
};

/** An app that keeps the document; `defect` breaks it in one way. */
function app(defect?: 'undocumented status' | 'wrong body' | 'server error' | 'hang') {
  const bad = (c: { json: (body: unknown, status: 400) => Response }) => c.json({ error: 'bad' }, 400);
  return new Hono()
    .get('/items/:id', (c) => {
      const id = c.req.param('id');
      const limit = c.req.query('limit');
      if (!/^[0-9]{1,5}$/.test(id) || (limit !== undefined && !/^([1-9]|[1-4][0-9]|50)$/.test(limit))) {
        return defect === 'undocumented status' ? c.json({ error: 'bad' }, 422) : bad(c);
      }
      if (defect === 'wrong body') return c.json({ id: String(id), name: 'x' }, 200);
      return c.json({ id: Number(id), name: `item ${id}` }, 200);
    })
    .post('/items', async (c) => {
      if (defect === 'hang') await new Promise(() => {});
      const body = await c.req.json().catch(() => undefined);
      if (defect === 'server error' && body === undefined) throw new Error('unparsed body');
      if (!body || typeof body !== 'object' || typeof body.name !== 'string' || [...body.name].length > 20) return bad(c);
      return c.json({ id: 1, name: body.name }, 201);
    })
    .onError((err, c) => c.json({ error: err.message }, 500));
}

const run = (defect?: Parameters<typeof app>[0], timeoutMs?: number) => {
  const target = app(defect);
  return fuzzDocument({ doc, base: 'https://fake.test', send: async (request) => target.request(request), runs: 30, seed: 7, timeoutMs });
};

describe('OpenAPI fuzzing', () => {
  it('passes an app that keeps its document, exercising every operation', async () => {
    const report = await run();
    expect(report.operations.sort()).toEqual(['GET /items/{id}', 'POST /items']);
    expect(report.requests).toBe(60);
    // Both kinds of answer came up: the generator sends valid and invalid input.
    expect(Object.keys(report.statuses).sort()).toEqual([
      'GET /items/{id} 200',
      'GET /items/{id} 400',
      'POST /items 201',
      'POST /items 400',
    ]);
  });

  it('flags a status the document does not list', async () => {
    await expect(run('undocumented status')).rejects.toThrow(
      /GET \/items\/\{id\}.*\n(.*\n)*.*answered 422, which the document does not list/,
    );
  });

  it('flags a body the documented schema refuses', async () => {
    await expect(run('wrong body')).rejects.toThrow(/body the documented schema refuses: \$\.id: expected integer/);
  });

  it('flags a 500', async () => {
    await expect(run('server error')).rejects.toThrow(/POST \/items.*\n(.*\n)*.*answered 500/);
  });

  it('flags a request that gets no answer in time', async () => {
    await expect(run('hang', 200)).rejects.toThrow(/no answer within 200 ms/);
  });

  it('names the seed that replays a failure', async () => {
    await expect(run('undocumented status')).rejects.toThrow(/FUZZ_SEED=7 FUZZ_RUNS=30/);
  });

  it('generates invalid input as well as valid', () => {
    const op = operationsOf(doc).find((o) => o.key === 'POST /items')!;
    const cases = fc.sample(caseArbitrary(doc, op, [{ name: 'none', headers: {} }], new Set()), { numRuns: 300, seed: 1 });
    const kinds = new Set(cases.map((c) => c.body?.kind ?? 'none'));
    for (const kind of ['valid json', 'invalid json', 'malformed json', 'wrong content type', 'huge body']) expect(kinds).toContain(kind);
    const sent = cases.map((c) => (typeof c.body?.body === 'string' ? c.body.body : '') + c.query.map(([k, v]) => k + v).join(''));
    expect(sent.some((b) => b.includes('\\u0000') || b.includes('\u0000'))).toBe(true);
    expect(sent.some((b) => b.length > 10_000)).toBe(true);
  });

  it('validates against the schema subset the documents use', async () => {
    expect(validate(doc, { $ref: '#/components/schemas/Item' }, { id: 1, name: 'a' })).toEqual([]);
    expect(validate(doc, { $ref: '#/components/schemas/Item' }, { id: 1, name: 'a', extra: true })).toEqual([
      '$: unexpected property extra',
    ]);
    expect(validate(doc, { anyOf: [{ type: 'string' }, { type: 'null' }] }, 3)).toHaveLength(1);
    expect(validate(doc, { type: 'string', format: 'date-time' }, 'yesterday')).toHaveLength(1);
    const op = operationsOf(doc)[0]!;
    expect(await checkAnswer(doc, op, new Response('<p>hi</p>', { status: 200, headers: { 'content-type': 'text/html' } }))).toMatch(
      /as text\/html/,
    );
  });
});
