import { describe, expect, it } from 'vitest';
import app from '../../workers/stats/src/app';
import type { StatsAccess } from '../../workers/stats/src/guards';
import type { Access } from '#shared/guard.ts';
import { accessTable, routeGuards } from '../support/route-guards';
import { call } from './helpers';

/**
 * Who may call each route: the pages, the login pair, the logout relay, liveness and the API
 * document are open; every data route needs the static token. A new route fails here until it
 * names its guard in its own definition and is listed below.
 */
const EXPECTED: Record<string, Access<StatsAccess>> = {
  'GET /health': 'anonymous',
  'GET /': 'anonymous',
  'GET /api-test': 'anonymous',
  'GET /api-docs': 'anonymous',
  'GET /docs': 'anonymous',
  'GET /redoc': 'anonymous',
  'GET /assets/:file': 'anonymous',
  'GET /login': 'anonymous',
  'POST /login': 'anonymous',
  'POST /api/logout': 'anonymous',
  'GET /openapi.json': 'anonymous',
  'GET /meetings': 'token',
  'GET /meeting-participants': 'token',
  'GET /trainer-stats': 'token',
  'GET /jockey-stats': 'token',
  'GET /trainerStats': 'token',
  'GET /jockeyStats': 'token',
  'GET /meetingStats': 'token',
  'GET /api/user-context': 'token',
  'POST /save-stats': 'token',
  'GET /saved-stats': 'token',
};

describe('every route declares its guard', () => {
  it('has exactly one access guard on each registered route, with the expected access', () => {
    expect(accessTable(routeGuards(app))).toEqual(EXPECTED);
  });

  it('has no browser-session routes, so none needs anti-forgery (the token is sent explicitly)', () => {
    expect(routeGuards(app).filter((r) => r.browserSession)).toEqual([]);
  });

  it('refuses every token route to a request without the token', async () => {
    for (const [key, access] of Object.entries(EXPECTED)) {
      if (access !== 'token') continue;
      const [method, path] = key.split(' ') as [string, string];
      const res = await call(`${path}?courseId=1`, {
        method,
        ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      expect(res.status, key).toBe(401);
    }
  });
});
