import { describe, expect, it } from 'vitest';
import app from '../../workers/cms/src/app';
import type { CmsAccess } from '../../workers/cms/src/guards';
import type { Access } from '#shared/guard.ts';
import { accessTable, routeGuards, unprotectedBrowserWrites } from '../support/route-guards';
import { api } from './helpers';

/**
 * Who may call each route: the login steps, signed uploads, health, the docs and the API document
 * are open; reading needs a session; changing content (and an upload address) an editing role.
 * A new route fails here until it names its guard in its own definition.
 */
const EXPECTED: Record<string, Access<CmsAccess>> = {
  'GET /health': 'anonymous',
  'GET /': 'anonymous',
  'GET /docs.js': 'anonymous',
  'GET /swagger-ui.css': 'anonymous',
  'GET /swagger-ui-bundle.js': 'anonymous',
  'GET /openapi.json': 'anonymous',
  'POST /api/v1/auth/login': 'anonymous',
  'POST /api/v1/auth/totp-verify': 'anonymous',
  'GET /api/v1/auth/me': 'session',
  'POST /api/v1/auth/logout': 'session',
  'GET /api/v1/story/link-search': 'session',
  'GET /api/v1/story': 'session',
  'GET /api/v1/story/:id': 'session',
  'GET /api/v1/story/:id/parent': 'session',
  'GET /api/v1/story/:id/children': 'session',
  'POST /api/v1/story': 'editor',
  'PUT /api/v1/story/:id': 'editor',
  'DELETE /api/v1/story/:id': 'editor',
  'GET /api/v1/media': 'session',
  'GET /api/v1/media/upload-url': 'editor',
  'PUT /api/v1/media/uploads/*': 'anonymous',
  'POST /api/v1/media': 'editor',
  'GET /api/v1/media/:id': 'session',
  'PUT /api/v1/media/:id': 'editor',
  'DELETE /api/v1/media/:id': 'editor',
  'GET /api/v1/media/:id/file/:slot': 'session',
  'GET /api/v1/lookup/bootstrap': 'session',
  'GET /api/v1/lookup/sites': 'session',
  'GET /api/v1/lookup/authors': 'session',
  'GET /api/v1/lookup/contributors': 'session',
  'GET /api/v1/lookup/news-types': 'session',
  'GET /api/v1/lookup/horses': 'session',
  'GET /api/v1/lookup/jockeys': 'session',
  'GET /api/v1/lookup/trainers': 'session',
  'GET /api/v1/lookup/courses': 'session',
  'GET /api/v1/lookup/races': 'session',
};

describe('every route declares its guard', () => {
  const routes = routeGuards(app);

  it('has exactly one access guard on each registered route, with the expected access', () => {
    expect(accessTable(routes)).toEqual(EXPECTED);
  });

  it('refuses writes from other origins on every state-changing /api route, the login steps and signed uploads included', () => {
    expect(unprotectedBrowserWrites(routes)).toEqual([]);
    for (const route of routes.filter((r) => r.path.startsWith('/api/') && r.method !== 'GET'))
      expect(route.antiForgery, route.key).toBe(true);
  });

  it('names the upload signature as the check of the anonymous upload', () => {
    expect(routes.find((r) => r.key === 'PUT /api/v1/media/uploads/*')?.requires).toEqual(['upload-signature']);
  });
});

describe('guards answer as declared', () => {
  it('refuses every session and editor route without a session (401)', async () => {
    for (const [key, access] of Object.entries(EXPECTED)) {
      if (access === 'anonymous') continue;
      const [method, path] = key.split(' ') as [string, string];
      const concrete = path.replace(':id', '1').replace(':slot', 'original');
      const res = await api(concrete, method === 'GET' ? {} : { method, json: {} });
      expect(res.status, key).toBe(401);
    }
  });

  it('refuses an anonymous upload that carries no valid signature', async () => {
    const res = await api('/api/v1/media/uploads/photo/1/original?sig=nope', { method: 'PUT', body: 'x' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
