import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import app from '../../workers/stats/src/app';
import { TOKEN, call, ctx, recentMeeting } from './helpers';

const authed = (path: string, init: RequestInit = {}) =>
  call(path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) } });

let date: string;
let courseId: number;
let course: string;
beforeAll(async () => {
  ({ date, courseId, course } = await recentMeeting());
});

describe('open routes', () => {
  it('GET /health answers {status: ok} without a token', async () => {
    const res = await call('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it.each(['/', '/api-test', '/api-docs', '/docs', '/redoc', '/login'])('GET %s is an HTML page without a token', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('<html');
  });

  it('/api-docs publishes the calculation rules', async () => {
    const text = await (await call('/api-docs')).text();
    for (const phrase of [
      'day before the meeting',
      'TAB terms',
      '1.00-2.00',
      '21.01+',
      'baseline_wps',
      'Dead heats',
      'at least 3 starts',
    ]) {
      expect(text).toContain(phrase);
    }
  });

  it('serves the OpenAPI document (version 2.0.0) with every route of the contract', async () => {
    const doc = await (await call('/openapi.json')).json<{ info: { version: string }; paths: Record<string, unknown> }>();
    expect(doc.info.version).toBe('2.0.0');
    for (const path of [
      '/health',
      '/meetings',
      '/meeting-participants',
      '/trainer-stats',
      '/jockey-stats',
      '/trainerStats',
      '/jockeyStats',
      '/meetingStats',
      '/api/user-context',
      '/save-stats',
      '/saved-stats',
      '/login',
      '/api/logout',
    ]) {
      expect(doc.paths).toHaveProperty([path]);
    }
  });

  it('serves Swagger UI, ReDoc and uPlot from the npm packages, and the pages reference them', async () => {
    const docs = await (await call('/docs')).text();
    const redoc = await (await call('/redoc')).text();
    const assets = [...docs.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g), ...redoc.matchAll(/src="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(3);
    const dashboard = await (await call('/assets/dashboard.js')).text();
    // Imported relative to the module, so the dashboard works under a path prefix too.
    const uplot = dashboard.match(/from '\.\/(uplot-[^']+)'/)?.[1];
    expect(uplot).toBeDefined();
    for (const path of [...assets, `/assets/${uplot!}`]) {
      const res = await call(path);
      expect(res.status, path).toBe(200);
      expect((await res.text()).length, path).toBeGreaterThan(100_000);
      expect(res.headers.get('cache-control')).toContain('immutable');
    }
    expect((await call('/assets/nope.js')).status).toBe(404);
  });
});

describe('token', () => {
  const path = () => `/meetings?date=${date}`;

  it('is accepted from the Authorization header, the token query and the sso_token query', async () => {
    expect((await authed(path())).status).toBe(200);
    expect((await call(`${path()}&token=${TOKEN}`)).status).toBe(200);
    expect((await call(`${path()}&sso_token=${TOKEN}`)).status).toBe(200);
  });

  it('missing: 401 {detail} with WWW-Authenticate', async () => {
    const res = await call(path());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toEqual({ detail: 'Not authenticated' });
  });

  it('wrong, truncated, extended or huge: 401 {detail}', async () => {
    for (const wrong of ['nope', TOKEN.slice(0, -1), `${TOKEN}x`, 'x'.repeat(5000)]) {
      const res = await call(path(), { headers: { Authorization: `Bearer ${wrong}` } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ detail: 'Invalid token' });
    }
  });

  it('the header is read first: a wrong bearer is not rescued by a right query token', async () => {
    const res = await call(`${path()}&token=${TOKEN}`, { headers: { Authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
  });

  it.each([
    '/meeting-participants?courseId=1',
    '/trainer-stats?courseId=1',
    '/jockey-stats?courseId=1',
    '/trainerStats?courseId=1',
    '/jockeyStats?courseId=1',
    '/meetingStats?courseId=1',
    '/api/user-context',
    '/saved-stats?courseId=1',
  ])('GET %s needs it', async (p) => {
    expect((await call(p)).status).toBe(401);
  });

  it('POST /save-stats needs it', async () => {
    expect((await call('/save-stats', { method: 'POST', body: '{}' })).status).toBe(401);
  });
});

describe('meetings and participants', () => {
  it('GET /meetings lists the day’s race meetings with course name and course_id', async () => {
    const list = await (await authed(`/meetings?date=${date}`)).json<Record<string, unknown>[]>();
    expect(list.length).toBeGreaterThan(0);
    for (const m of list) {
      expect(m).toMatchObject({ date, course: expect.any(String), course_id: expect.any(Number) });
      expect(m.runners).toBeGreaterThan(0);
    }
  });

  it('GET /meetings defaults to today in the racing timezone', async () => {
    const today = await (await authed('/meetings')).json();
    const explicit = await (await authed(`/meetings?date=${env.RACING_TODAY}`)).json();
    expect(today).toEqual(explicit);
  });

  it('GET /meeting-participants lists the people of non-scratched runners with zero placeholders', async () => {
    const res = await authed(`/meeting-participants?date=${date}&courseId=${courseId}`);
    expect(res.status).toBe(200);
    const body = await res.json<{ meeting: unknown; trainers: { id: number }[]; jockeys: { id: number }[] }>();
    expect(body.meeting).toEqual({ date, course, courseId });
    expect(body.trainers.length).toBeGreaterThan(0);
    expect(body.jockeys.length).toBeGreaterThan(0);
    expect(body.trainers[0]).toMatchObject({
      performance_365d: { wins: 0, starts: 0, win_pct: 0 },
      wins_30d: 0,
      top_horses: [],
      price_band_ivs: [],
    });
    const stats = await (await authed(`/meetingStats?date=${date}&courseId=${courseId}`)).json<{
      trainers: { id: number }[];
      jockeys: { id: number }[];
    }>();
    const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
    expect(ids(body.trainers)).toEqual(ids(stats.trainers));
    expect(ids(body.jockeys)).toEqual(ids(stats.jockeys));
  });
});

describe('bad input: a clear 4xx in FastAPI shape, never a 500', () => {
  const detailList = async (res: Response) => {
    const body = await res.json<{ detail: { loc: unknown[]; msg: string; type: string }[] }>();
    expect(Array.isArray(body.detail)).toBe(true);
    return body.detail;
  };

  it.each([
    ['/meetings?date=2026-02-30', 'query.date'],
    ['/meetings?date=yesterday', 'query.date'],
    ['/meetings?date=2026-1-5', 'query.date'],
    ['/meetingStats?date=2026-13-01&courseId=1', 'query.date'],
    ['/meetingStats', 'query.courseId'],
    ['/meetingStats?courseId=abc', 'query.courseId'],
    ['/meetingStats?courseId=-4', 'query.courseId'],
    ['/meetingStats?courseId=1.5', 'query.courseId'],
    ['/meetingStats?courseId=99999999999999999999', 'query.courseId'],
    ['/trainerStats?courseId=', 'query.courseId'],
    ['/jockeyStats?courseId=0', 'query.courseId'],
    ['/meeting-participants?courseId=x', 'query.courseId'],
    ['/trainer-stats?date=2026-01-01', 'query.courseId'],
    ['/jockey-stats?courseName=', 'query.courseName'],
    ['/saved-stats?courseId=zz', 'query.courseId'],
    [`/meetings?date=${'9'.repeat(10_000)}`, 'query.date'],
  ])('GET %s → 422 naming %s', async (path, field) => {
    const res = await authed(path);
    expect(res.status).toBe(422);
    const detail = await detailList(res);
    expect(detail.map((d) => d.loc.join('.'))).toContain(field);
    expect(detail.every((d) => typeof d.msg === 'string' && d.msg.length > 0)).toBe(true);
  });

  it('an unknown course or a day without a meeting → 404 {detail}', async () => {
    for (const path of [
      `/meetingStats?date=${date}&courseId=999999`,
      `/trainerStats?date=1990-01-01&courseId=${courseId}`,
      `/trainer-stats?date=${date}&courseName=Nowhere%20Downs`,
      `/jockey-stats?date=${date}&courseId=999999`,
      `/meeting-participants?date=${date}&courseId=999999`,
    ]) {
      const res = await authed(path);
      expect(res.status, path).toBe(404);
      expect((await res.json<{ detail: string }>()).detail).toMatch(/No race meeting/);
    }
  });

  it('an unknown path → 404 {detail}', async () => {
    const res = await call('/no-such-route');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not Found' });
  });

  it('a database that cannot be reached → 503 {detail}, not a hang', async () => {
    const res = await app.request(
      `/meetings?date=${date}`,
      { headers: { Authorization: `Bearer ${TOKEN}` } },
      {
        ...env,
        DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing',
      },
      ctx,
    );
    expect(res.status).toBe(503);
    const body = await res.json<{ detail: string }>();
    expect(body.detail).toMatch(/unreachable/);
    expect(body.detail).not.toContain('secret');
  });

  it('missing configuration → 500 {detail} naming the variable, never a default credential', async () => {
    const res = await app.request(
      '/login',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'x' }),
      },
      { ...env, ADMIN_PASSWORD: undefined },
    );
    expect(res.status).toBe(500);
    expect((await res.json<{ detail: string }>()).detail).toContain('ADMIN_PASSWORD is not set');
  });

  it('a published development secret → 500 {detail} outside local development; taken locally', async () => {
    // workers/stats/.dev.vars.example; the Worker is local only with its Postgres relay on loopback.
    const login = (overrides: Record<string, unknown>) =>
      app.request(
        '/login',
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: env.ADMIN_USERNAME, password: 'admin-dev-password' }),
        },
        { ...env, ADMIN_PASSWORD: 'admin-dev-password', ...overrides },
      );
    const deployed = await login({ PG_WS_PROXY: undefined });
    expect(deployed.status).toBe(500);
    expect((await deployed.json<{ detail: string }>()).detail).toMatch(/ADMIN_PASSWORD is a published development value/);
    const local = await login({});
    expect(local.status).toBe(200);
  });
});
