import { describe, expect, it } from 'vitest';
import { createAuthApp } from '../../workers/auth/src/app';
import type { AuthAccess } from '../../workers/auth/src/client-secret';
import type { Access } from '#shared/guard.ts';
import { accessTable, routeGuards, unprotectedBrowserWrites } from '../support/route-guards';
import { page, post } from './helpers';

/**
 * Who may call each route: the JSON endpoints need the client secret (whoami checks the token it
 * is sent, nothing else), the docs are open, the dashboard needs an administrator but for its
 * sign-in and sign-out forms. A new route fails here until it names its guard in its definition.
 */
const EXPECTED: Record<string, Access<AuthAccess>> = {
  'POST /api/login/': 'client',
  'POST /api/verify-2fa/': 'client',
  'POST /api/token/refresh/': 'client',
  'POST /api/token/revoke/': 'client',
  'GET /api/whoami/': 'anonymous',
  'GET /api/docs': 'anonymous',
  'GET /api/docs/': 'anonymous',
  'GET /api/docs/openapi.json': 'anonymous',
  'GET /api/docs/swagger-init.js': 'anonymous',
  'GET /api/docs/swagger-ui.css': 'anonymous',
  'GET /api/docs/swagger-ui-bundle.js': 'anonymous',
  'GET /admin': 'anonymous',
  'GET /admin/login/': 'anonymous',
  'POST /admin/login/': 'anonymous',
  'POST /admin/verify/': 'anonymous',
  'POST /admin/logout/': 'anonymous',
  'GET /admin/': 'admin',
  'POST /admin/sites/': 'admin',
  'POST /admin/sites/:id/': 'admin',
  'POST /admin/sites/:id/delete/': 'admin',
  'GET /admin/accounts/': 'admin',
  'POST /admin/accounts/': 'admin',
  'POST /admin/accounts/:id/enrol/': 'admin',
  'POST /admin/accounts/:id/active/': 'admin',
  'POST /admin/credentials/': 'admin',
};

describe('every route declares its guard', () => {
  const routes = routeGuards(createAuthApp());

  it('has exactly one access guard on each registered route, with the expected access', () => {
    expect(accessTable(routes)).toEqual(EXPECTED);
  });

  it('checks anti-forgery on every dashboard form, the sign-in forms included', () => {
    expect(unprotectedBrowserWrites(routes)).toEqual([]);
    for (const route of routes.filter((r) => r.path.startsWith('/admin')))
      expect(route.antiForgery, route.key).toBe(route.method === 'POST');
  });
});

describe('guards answer as declared', () => {
  it('refuses every client route without the client secret', async () => {
    for (const [key, access] of Object.entries(EXPECTED)) {
      if (access !== 'client') continue;
      const res = await post(key.slice('POST '.length), {}, { secret: null });
      expect(res.status, key).toBe(401);
    }
  });

  it('sends every administrator page and form to the sign-in form without a session', async () => {
    for (const [key, access] of Object.entries(EXPECTED)) {
      if (access !== 'admin') continue;
      const path = key.slice(key.indexOf(' ') + 1).replace(':id', '1');
      const res = await page(path, key.startsWith('POST ') ? { form: { x: '1' } } : {});
      expect(res.status, key).toBe(303);
      expect(res.headers.get('location'), key).toBe('/admin/login/');
    }
  });
});
