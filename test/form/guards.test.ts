import { describe, expect, it } from 'vitest';
import { createFormApp } from '../../workers/form/src/app';
import type { FormAccess } from '../../workers/form/src/guards';
import type { Access } from '#shared/guard.ts';
import { accessTable, routeGuards, unprotectedBrowserWrites } from '../support/route-guards';
import { fetchForm } from './helpers';

/**
 * Who may call each route: the login page, its form and the horse search are open (the spec's
 * public pair); everything else needs the session. A new route fails here until it names its
 * guard in its own definition.
 */
const EXPECTED: Record<string, Access<FormAccess>> = {
  'GET /form/': 'anonymous',
  'POST /form/': 'anonymous',
  'GET /form/api/search/': 'anonymous',
  'GET /form/logout/': 'session',
  'GET /form/runner/': 'session',
  'GET /form/runner/:id/': 'session',
  'GET /form/jockey/:id/': 'session',
  'GET /form/trainer/:id/': 'session',
  'GET /form/guide/': 'session',
  'GET /form/search/': 'session',
  'GET /form/api/dates/': 'session',
  'GET /form/api/meetings/': 'session',
  'GET /form/api/races/': 'session',
  'GET /form/api/runners/': 'session',
  'GET /form/api/openapi/': 'session',
};

describe('every route declares its guard', () => {
  const routes = routeGuards(createFormApp());

  it('has exactly one access guard on each registered route, with the expected access', () => {
    expect(accessTable(routes)).toEqual(EXPECTED);
  });

  it('has no state-changing route of a session (the login form checks its own token)', () => {
    expect(unprotectedBrowserWrites(routes)).toEqual([]);
    expect(routes.filter((r) => r.method !== 'GET').map((r) => r.key)).toEqual(['POST /form/']);
  });

  it('sends the API document to the login page without a session', async () => {
    const res = await fetchForm('/form/api/openapi/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/');
  });
});
