import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createApp } from '#shared/app.ts';
import { parseConfig } from '#shared/config.ts';
import { HttpError } from '#shared/http-error.ts';

const meetingRoute = createRoute({
  method: 'post',
  path: '/meetings/{id}',
  request: {
    params: z.object({ id: z.coerce.number().int().positive() }),
    query: z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD') }),
    body: { content: { 'application/json': { schema: z.object({ note: z.string().max(20) }) } }, required: true },
  },
  responses: { 200: { description: 'ok', content: { 'application/json': { schema: z.object({ id: z.number() }) } } } },
});

function testApp() {
  const app = createApp('platform-test');
  app.openapi(meetingRoute, (c) => c.json({ id: c.req.valid('param').id }, 200));
  app.get('/teapot', () => {
    throw new HttpError(418, 'teapot', 'I am a teapot', { hint: 'brew' });
  });
  app.get('/crash', () => {
    throw new Error('secret internals');
  });
  return app;
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('shared HTTP pieces', () => {
  it('passes valid input through the zod schemas', async () => {
    const res = await testApp().request('/meetings/7?date=2026-11-23', json({ note: 'ok' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 7 });
  });

  it('answers 400 naming every offending field', async () => {
    const res = await testApp().request('/meetings/abc?date=2026-11-23', json({ note: 'ok' }));
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string; message: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues.map((i) => i.field)).toContain('param.id');

    const query = await testApp().request('/meetings/7?date=23/11/2026', json({ note: 'ok' }));
    const queryBody = await query.json<{ issues: { field: string; message: string }[] }>();
    expect(queryBody.issues).toEqual([{ field: 'query.date', message: 'expected YYYY-MM-DD' }]);

    const bodyRes = await testApp().request('/meetings/7?date=2026-11-23', json({ note: 'x'.repeat(50) }));
    expect(bodyRes.status).toBe(400);
    expect((await bodyRes.json<{ issues: { field: string }[] }>()).issues[0]?.field).toBe('json.note');
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await testApp().request('/meetings/7?date=2026-11-23', json('{"note":'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad_request' });
  });

  it('keeps the status and body of a deliberate error', async () => {
    const res = await testApp().request('/teapot');
    expect(res.status).toBe(418);
    expect(await res.json()).toMatchObject({ error: 'teapot', message: 'I am a teapot', hint: 'brew' });
  });

  it('hides an unexpected error behind a 500 with the request id', async () => {
    const res = await testApp().request('/crash', { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(500);
    const body = await res.json<Record<string, string>>();
    expect(body).toEqual({ error: 'internal_error', message: 'An unexpected error occurred', request_id: 'req-123' });
    expect(res.headers.get('x-request-id')).toBe('req-123');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await testApp().request('/nowhere', { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found', message: 'No route for DELETE /nowhere' });
  });

  it('issues a fresh request id when the incoming one is unusable', async () => {
    const res = await testApp().request('/nowhere', { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await res.json<{ request_id: string }>()).request_id).toBe(id);
  });
});

describe('config validation', () => {
  const schema = z.object({ STATIC_TOKEN: z.string().min(16), PAGE_SIZE: z.coerce.number().int().default(50) });

  it('returns typed values with defaults applied', () => {
    expect(parseConfig(schema, { STATIC_TOKEN: 'x'.repeat(16) })).toEqual({ STATIC_TOKEN: 'x'.repeat(16), PAGE_SIZE: 50 });
  });

  it('names what is missing or wrong without echoing values', () => {
    expect(() => parseConfig(schema, {})).toThrowError(/STATIC_TOKEN is not set/);
    expect(() => parseConfig(schema, { STATIC_TOKEN: 'short-secret' })).toThrowError(/STATIC_TOKEN: /);
    expect(() => parseConfig(schema, { STATIC_TOKEN: 'short-secret' })).not.toThrowError(/short-secret/);
  });
});
