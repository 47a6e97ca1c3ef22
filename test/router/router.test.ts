import { createExecutionContext, env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import app, { serviceFor } from '../../workers/router/src/index';

const router = exports.default;

describe('router', () => {
  it('forwards by the first label of the host name, path and query intact', async () => {
    const res = await router.fetch('https://stats.racing.example/trainerStats?date=2026-11-23', {
      headers: { 'x-request-id': 'trace-1' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      service: 'stats',
      url: 'https://stats.racing.example/trainerStats?date=2026-11-23',
      requestId: 'trace-1',
    });
  });

  it('passes the service response status through', async () => {
    const res = await router.fetch('https://AUTH.racing.example/api/login/', { method: 'POST', body: '{}' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ service: 'auth' });
  });

  it('gives every forwarded request an id when the caller sent none', async () => {
    const res = await router.fetch('https://stats.racing.example/health');
    const body = await res.json<{ requestId: string }>();
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 404 with a clear body for an unknown host', async () => {
    const res = await router.fetch('https://www.racing.example/');
    expect(res.status).toBe(404);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.error).toBe('unknown_host');
    expect(body.message).toContain('www.racing.example');
    expect(body.message).toContain('stats.');
  });

  it('reaches every bound service by its host label', async () => {
    const res = await router.fetch('https://form.racing.example/form/guide/');
    expect(await res.json()).toEqual({ service: 'form', path: '/form/guide/' });
    const cms = await router.fetch('https://cms.racing.example/api/v1/story');
    expect(await cms.json()).toEqual({ service: 'cms', path: '/api/v1/story' });
    const migrate = await router.fetch('https://migrate.racing.example/Migration/TableSelection');
    expect(await migrate.json()).toEqual({ service: 'migrate', path: '/Migration/TableSelection' });
    const mail = await router.fetch('https://mail.racing.example/api/folders');
    expect(await mail.json()).toEqual({ service: 'mail', path: '/api/folders' });
  });

  it('answers 404 for a known service that is not bound behind this router', async () => {
    // Every service is bound in this project's config: call the app with an env that lacks one.
    const { MAIL: _unbound, ...withoutMail } = env;
    const res = await app.fetch(new Request('https://mail.racing.example/'), withoutMail, createExecutionContext());
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'service_not_deployed' });
  });

  it('answers 404 naming both ways in when neither the host nor the path names a service', async () => {
    const res = await router.fetch('https://api.racing.example/nothing/here');
    expect(res.status).toBe(404);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.message).toContain('/cms/');
    expect(body.message).toContain('stats.');
  });

  it('reaches every service by its path prefix on one origin, the path forwarded unchanged', async () => {
    const table: [string, string][] = [
      ['/auth/api/login/', 'auth'],
      ['/cms/api/v1/story', 'cms'],
      ['/stats/meetingStats?meeting=1', 'stats'],
      ['/form/guide/', 'form'],
      ['/migrate/Migration/TableSelection', 'migrate'],
      ['/mail/api/folders', 'mail'],
    ];
    for (const [path, service] of table) {
      const res = await router.fetch(`https://api.racing.example${path}`, { method: service === 'auth' ? 'POST' : 'GET' });
      const body = await res.json<{ service: string; path?: string; url?: string }>();
      expect(body.service).toBe(service);
      const seen = body.url ? new URL(body.url) : undefined;
      expect(seen ? seen.pathname + seen.search : body.path).toBe(seen ? path : path.split('?')[0]);
    }
  });

  it('prefers the host name to the path, and takes a prefix only as a whole segment', () => {
    const table: [string, ReturnType<typeof serviceFor>][] = [
      ['https://cms.racing.example/auth/x', { service: 'cms', by: 'host' }],
      ['https://api.racing.example/cms', { service: 'cms', by: 'path' }],
      ['https://api.racing.example/cms/', { service: 'cms', by: 'path' }],
      ['https://api.racing.example/cmsx/', undefined],
      ['https://api.racing.example/CMS/', undefined],
      ['https://localhost:8787/mail/login', { service: 'mail', by: 'path' }],
      ['https://api.racing.example/', undefined],
    ];
    for (const [url, expected] of table) expect(serviceFor(new URL(url)), url).toEqual(expected);
  });
});
