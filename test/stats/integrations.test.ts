import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import app from '../../workers/stats/src/app';
import { USER_CONTEXT_TTL_MS } from '#durable-objects/user-context.ts';
import { FAKE_COURSE } from './fake-contract';
import { openRacingReads } from '#shared/pg.ts';
import { loadPayload } from '../../workers/stats/src/saved-stats';
import { TOKEN, call, ctx, recentMeeting } from './helpers';

const headers = (ip: string) => ({ Authorization: `Bearer ${TOKEN}`, 'CF-Connecting-IP': ip });

/** The app with the external statistics API switched on (the fake of ./fake-external.ts). */
const external = (path: string, overrides: Record<string, string> = {}) =>
  app.request(path, { headers: headers('203.0.113.50') }, { ...env, EXTERNAL_API_ENABLED: 'true', ...overrides }, ctx);

describe('POST /login, GET /login, POST /api/logout', () => {
  it('the built-in pair (JSON or form) returns the static token', async () => {
    const json = await call('/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD }),
    });
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({ access_token: TOKEN, token_type: 'bearer' });
    const form = await call('/login', {
      method: 'POST',
      body: new URLSearchParams({ username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD }),
    });
    expect(await form.json()).toEqual({ access_token: TOKEN, token_type: 'bearer' });
  });

  it('a wrong pair is 401 {detail}; a malformed body is 422', async () => {
    for (const body of [
      { username: env.ADMIN_USERNAME, password: 'wrong-password' },
      { username: 'root', password: env.ADMIN_PASSWORD },
    ]) {
      const res = await call('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ detail: 'Incorrect username or password' });
    }
    for (const body of ['{"username": "admin"', '{"username": 5, "password": []}', '[]', '']) {
      const res = await call('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(res.status, body).toBe(422);
      expect(Array.isArray((await res.json<{ detail: unknown }>()).detail)).toBe(true);
    }
    const huge = await call('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(100_000) });
    expect(huge.status).toBe(413);
  });

  it('GET /login redirects visitors from the SSO portal, unless ?direct', async () => {
    const fromPortal = { headers: { Referer: 'https://sso.racing.example/portal/apps' } };
    const redirected = await call('/login', { ...fromPortal, redirect: 'manual' });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('https://sso.racing.example/portal');
    const direct = await call('/login?direct=1', { ...fromPortal, redirect: 'manual' });
    expect(direct.status).toBe(200);
    const elsewhere = await call('/login', { headers: { Referer: 'https://news.example/' }, redirect: 'manual' });
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).toContain('name="password"');
  });

  it('POST /api/logout forwards {sessionId} to the authentication service', async () => {
    const sessionId = `session-${crypto.randomUUID()}`;
    const res = await call('/api/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'success' });
    const received = await (await fetch(`${env.FAKE_EXTERNAL_URL}/received-logouts`)).json<string[]>();
    expect(received).toContain(sessionId);
  });

  it('POST /api/logout: upstream failure or silence is 502 {detail} within the timeout; no sessionId is 422', async () => {
    const failed = await call('/api/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'fail' }),
    });
    expect(failed.status).toBe(502);
    expect((await failed.json<{ detail: string }>()).detail).toContain('500');
    const started = Date.now();
    const silent = await call('/api/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'hang' }),
    });
    expect(silent.status).toBe(502);
    expect((await silent.json<{ detail: string }>()).detail).toMatch(/did not answer within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(4_000);
    const missing = await call('/api/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(422);
    const unconfigured = await app.request(
      '/api/logout',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sessionId: 'a' }) },
      { ...env, AUTH_LOGOUT_URL: '' },
      ctx,
    );
    expect(unconfigured.status).toBe(503);
    const noType = await call('/api/logout', { method: 'POST', body: 'sessionId=a' });
    expect(noType.status).toBeGreaterThanOrEqual(400);
    expect(noType.status).toBeLessThan(500);
    expect(await noType.json()).toHaveProperty('detail');
  });
});

describe('external statistics API (external_api.enabled)', () => {
  it('the camelCase endpoints relay the external records, checked against the contract', async () => {
    const res = await external('/meetingStats?date=2026-03-01&courseId=77');
    expect(res.status).toBe(200);
    const body = await res.json<{
      status: string;
      meeting: unknown;
      trainers: { id: number; name: string }[];
      jockeys: { id: number }[];
    }>();
    expect(body.status).toBe('success');
    expect(body.meeting).toEqual({ date: '2026-03-01', course: 'Fake Park', courseId: 77 });
    expect(body.trainers.map((t) => [t.id, t.name])).toEqual([[78, 'Fake Trainer']]);
    expect(body.jockeys.map((j) => j.id)).toEqual([79]);
    const trainers = await (await external('/trainerStats?date=2026-03-01&courseId=77')).json<Record<string, unknown>>();
    expect(Object.keys(trainers).sort()).toEqual(['meeting', 'status', 'trainers']);
    const jockeys = await (await external('/jockeyStats?date=2026-03-01&courseId=77')).json<Record<string, unknown>>();
    expect(Object.keys(jockeys).sort()).toEqual(['jockeys', 'meeting', 'status']);
  });

  it('the kebab-case endpoints stay local even when it is enabled', async () => {
    const { date, courseId } = await recentMeeting();
    const local = await (await call(`/trainer-stats?date=${date}&courseId=${courseId}`, { headers: headers('198.51.100.2') })).json();
    const withExternal = await (await external(`/trainer-stats?date=${date}&courseId=${courseId}`)).json();
    expect(withExternal).toEqual(local);
  });

  it.each([
    ['fails', FAKE_COURSE.failing, /answered 500/],
    ['answers off-contract', FAKE_COURSE.offContract, /off-contract/],
    ['answers with HTML', FAKE_COURSE.notJson, /not JSON/],
  ])('502 {detail} when it %s', async (_what, courseId, message) => {
    const res = await external(`/meetingStats?date=2026-03-01&courseId=${courseId}`);
    expect(res.status).toBe(502);
    expect((await res.json<{ detail: string }>()).detail).toMatch(message);
  });

  it('502 {detail} within the timeout when it never answers', async () => {
    const started = Date.now();
    const res = await external(`/trainerStats?date=2026-03-01&courseId=${FAKE_COURSE.hanging}`);
    expect(res.status).toBe(502);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/did not answer within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('502 when it refuses the key or cannot be reached; 404 when it has no such meeting', async () => {
    expect((await external('/meetingStats?date=2026-03-01&courseId=77', { EXTERNAL_API_KEY: 'wrong-key' })).status).toBe(502);
    expect((await external('/meetingStats?date=2026-03-01&courseId=77', { EXTERNAL_API_BASE_URL: 'http://127.0.0.1:1' })).status).toBe(502);
    const missing = await external(`/meetingStats?date=2026-03-01&courseId=${FAKE_COURSE.missing}`);
    expect(missing.status).toBe(404);
  });

  it('enabled without a base URL or key is a configuration error naming it', async () => {
    const res = await external('/meetingStats?date=2026-03-01&courseId=77', { EXTERNAL_API_BASE_URL: '' });
    expect(res.status).toBe(500);
    expect((await res.json<{ detail: string }>()).detail).toContain('EXTERNAL_API_BASE_URL');
  });
});

describe('user context (Durable Object per caller address)', () => {
  it('records the date and course of camelCase requests only, per address', async () => {
    const { date, courseId } = await recentMeeting();
    const ip = '192.0.2.10';
    const context = async (address: string) => (await call('/api/user-context', { headers: headers(address) })).json();
    expect(await context(ip)).toEqual({});
    await call(`/trainer-stats?date=${date}&courseId=${courseId}`, { headers: headers(ip) });
    expect(await context(ip)).toEqual({});
    expect((await call(`/jockeyStats?date=${date}&courseId=${courseId}`, { headers: headers(ip) })).status).toBe(200);
    expect(await context(ip)).toEqual({ date, course_id: courseId });
    expect(await context('192.0.2.11')).toEqual({});
  });

  it('forgets an entry older than five minutes, and the alarm clears it', async () => {
    const { date, courseId } = await recentMeeting();
    const ip = '192.0.2.20';
    await call(`/meetingStats?date=${date}&courseId=${courseId}`, { headers: headers(ip) });
    const stub = env.USER_CONTEXT.get(env.USER_CONTEXT.idFromName(ip));
    await runInDurableObject(stub, async (_instance, state) => {
      const entry = await state.storage.get<{ at: number }>('meeting');
      await state.storage.put('meeting', { ...entry, at: Date.now() - USER_CONTEXT_TTL_MS - 1000 });
    });
    expect(await (await call('/api/user-context', { headers: headers(ip) })).json()).toEqual({});
    await runInDurableObject(stub, async (instance, state) => {
      await instance.alarm();
      expect(await state.storage.get('meeting')).toBeUndefined();
    });
  });
});

describe('POST /save-stats and GET /saved-stats', () => {
  it('a saved payload round-trips, the latest save wins, and another meeting is not_found', async () => {
    const { date, courseId } = await recentMeeting();
    const saved = (id = courseId) => call(`/saved-stats?date=${date}&courseId=${id}`, { headers: headers('198.51.100.3') });
    const stats = await (await call(`/meetingStats?date=${date}&courseId=${courseId}`, { headers: headers('198.51.100.3') })).json<{
      trainers: unknown[];
      jockeys: unknown[];
    }>();
    const payload = { date, course_id: courseId, trainer_stats: stats.trainers, jockey_stats: stats.jockeys };
    const post = (body: unknown) =>
      call('/save-stats', {
        method: 'POST',
        headers: { ...headers('198.51.100.3'), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const res = await post(payload);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'success', date, course_id: courseId });
    expect(await (await saved()).json()).toEqual(payload);

    const second = { ...payload, jockey_stats: [] };
    expect((await post(second)).status).toBe(200);
    expect(await (await saved()).json()).toEqual(second);
    expect(await (await saved(999_999)).json()).toEqual({ status: 'not_found' });
  });

  it('a database without the table has nothing saved (one read, its missing table is no error)', async () => {
    const db = openRacingReads({
      DATABASE_URL: env.DATABASE_URL,
      PG_WS_PROXY: env.PG_WS_PROXY,
      PG_CONNECT_TIMEOUT_MS: 5000,
      PG_QUERY_TIMEOUT_MS: 30000,
    });
    expect(await loadPayload(db, '2026-01-10', 1, 'meeting_stats_payloads_of_another_release')).toBeNull();
    await expect(loadPayload(db, '2026-01-10', 1, 'meeting_stats_payloads where nonsense')).rejects.toThrow();
  });

  it('rejects bodies off the record schema with 422 naming the field, and huge bodies with 413', async () => {
    const post = (body: string) =>
      call('/save-stats', { method: 'POST', headers: { ...headers('198.51.100.4'), 'Content-Type': 'application/json' }, body });
    const cases: [string, string][] = [
      ['{"date": "2026-01-01"', 'body'],
      [JSON.stringify({ date: '2026-02-30', course_id: 1, trainer_stats: [], jockey_stats: [] }), 'json.date'],
      [JSON.stringify({ date: '2026-01-01', course_id: 'one', trainer_stats: [], jockey_stats: [] }), 'json.course_id'],
      [JSON.stringify({ date: '2026-01-01', course_id: 1, jockey_stats: [] }), 'json.trainer_stats'],
      [
        JSON.stringify({ date: '2026-01-01', course_id: 1, trainer_stats: [{ id: 1, name: 'x' }], jockey_stats: [] }),
        'json.trainer_stats.0.performance_365d',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, body).toBe(422);
      const { detail } = await res.json<{ detail: { loc: (string | number)[] }[] }>();
      expect(detail.map((d) => d.loc.join('.'))).toContain(field);
    }
    const huge = await post(
      JSON.stringify({ date: '2026-01-01', course_id: 1, trainer_stats: [], jockey_stats: [], pad: 'x'.repeat(3 * 1024 * 1024) }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toHaveProperty('detail');
  });
});
