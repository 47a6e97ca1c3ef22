import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, signIn, UNREACHABLE_RACING, withEnv } from './helpers';

type Report = {
  status: string;
  totalDuration: string;
  entries: Record<string, { status: string; tags: string[]; duration: string; description?: string }>;
};

describe('GET /health', () => {
  it('answers 200 with one tagged entry per check when all pass, without a session', async () => {
    const res = await api('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const report = await res.json<Report>();
    expect(report.status).toBe('Healthy');
    expect(report.totalDuration).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{7}$/);
    expect(Object.keys(report.entries).sort()).toEqual(['database', 'racing-database', 'storage']);
    expect(report.entries.database).toMatchObject({ status: 'Healthy', tags: ['db', 'ready'] });
    expect(report.entries.storage).toMatchObject({ status: 'Healthy', tags: ['storage', 'ready'] });
    expect(report.entries['racing-database']).toMatchObject({ status: 'Healthy', tags: ['db', 'racing'] });
  });

  it('answers 503 naming the failed check when a dependency is down', async () => {
    const res = await withEnv('/health', {}, UNREACHABLE_RACING);
    expect(res.status).toBe(503);
    const report = await res.json<Report>();
    expect(report.status).toBe('Unhealthy');
    expect(report.entries['racing-database']!.status).toBe('Unhealthy');
    expect(report.entries['racing-database']!.description).toBeTruthy();
    expect(report.entries.database!.status).toBe('Healthy');
  });

  it('reports a storage failure as unhealthy rather than failing the request', async () => {
    const broken = { list: () => Promise.reject(new Error('bucket unavailable')) };
    const res = await withEnv('/health', {}, { MEDIA: broken });
    expect(res.status).toBe(503);
    expect((await res.json<Report>()).entries.storage).toMatchObject({ status: 'Unhealthy', description: 'bucket unavailable' });
  });

  it('answers within its time limit when a check hangs', async () => {
    const hanging = { prepare: () => ({ first: () => new Promise(() => {}) }) };
    const started = Date.now();
    const res = await withEnv('/health', {}, { DB: hanging });
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await res.json<Report>()).entries.database!.description).toMatch(/no answer within/);
  });
});

describe('API docs', () => {
  it('serves Swagger UI at the root, with its assets from the Worker', async () => {
    const page = await api('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    for (const asset of ['/swagger-ui-bundle.js', '/swagger-ui.css', '/docs.js']) {
      const res = await api(asset);
      expect(res.status, asset).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(20);
    }
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { securitySchemes: Record<string, unknown> };
    }>();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/api/v1/auth/login',
      '/api/v1/auth/totp-verify',
      '/api/v1/auth/me',
      '/api/v1/auth/logout',
      '/api/v1/lookup/bootstrap',
      '/api/v1/lookup/races',
      '/health',
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(doc.components.securitySchemes.session).toEqual({ type: 'apiKey', in: 'cookie', name: 'app_session' });
  });
});

describe('browser protections', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signIn('platform');
  });

  it('allows the configured editor origin with credentials (CORS), and no other', async () => {
    const preflight = await api('/api/v1/auth/me', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://editor.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://editor.example');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');

    const other = await api('/api/v1/auth/me', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const read = await api('/api/v1/auth/me', { cookie, headers: { origin: 'https://editor.example' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('https://editor.example');
  });

  it('refuses cookie-carrying writes from a foreign origin or a cross-site context (CSRF)', async () => {
    const foreign = await api('/api/v1/auth/logout', { method: 'POST', cookie, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: 'forbidden_origin' });
    const crossSite = await api('/api/v1/auth/logout', { method: 'POST', cookie, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    // Login CSRF too: a foreign page cannot start a sign-in.
    const login = await api('/api/v1/auth/login', {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      json: { email: 'a@b.c', password: 'x' },
    });
    expect(login.status).toBe(403);
    // The session survived all of that.
    expect((await api('/api/v1/auth/me', { cookie })).status).toBe(200);
  });

  it('accepts writes from its own origin and the editor origin', async () => {
    const own = await api('/api/v1/lookup/sites', { cookie, headers: { origin: 'https://cms.test' } });
    expect(own.status).toBe(200);
    const login = await api('/api/v1/auth/login', {
      method: 'POST',
      headers: { origin: 'https://editor.example' },
      json: { email: 'nobody@example.com', password: 'x' },
    });
    expect(login.status).toBe(400);
  });

  it('answers an unknown route with a 404 JSON body', async () => {
    const res = await api('/api/v1/nothing-here', { cookie });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers 500 configuration_error naming a missing secret, never a default', async () => {
    const res = await withEnv('/api/v1/auth/me', { headers: { cookie } }, { SESSION_SECRET: undefined });
    expect(res.status).toBe(500);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.error).toBe('configuration_error');
    expect(body.message).toContain('SESSION_SECRET is not set');
  });

  it('refuses a published development secret outside local development, and takes it locally', async () => {
    // workers/cms/.dev.vars.example; the Worker is local only with its Postgres relay on loopback.
    const deployed = await withEnv(
      '/api/v1/auth/me',
      { headers: { cookie } },
      { AUTH_CLIENT_SECRET: 'dev-client-secret', PG_WS_PROXY: '' },
    );
    expect(deployed.status).toBe(500);
    const body = await deployed.json<{ error: string; message: string }>();
    expect(body.error).toBe('configuration_error');
    expect(body.message).toMatch(/AUTH_CLIENT_SECRET is a published development value .*wrangler secret put AUTH_CLIENT_SECRET/);
    expect(env.PG_WS_PROXY).toMatch(/^ws:\/\/127\.0\.0\.1:/);
    const local = await withEnv('/api/v1/auth/me', { headers: { cookie } }, { AUTH_CLIENT_SECRET: 'dev-client-secret' });
    expect(local.status).toBe(200);
  });
});
