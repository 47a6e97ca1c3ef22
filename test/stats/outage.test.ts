import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import app from '../../workers/stats/src/app';
import { TOKEN } from './helpers';

// Every route that reads or writes the racing database, with the database unreachable over the
// driver's own WebSocket (no relay, as in production): 503 {detail}, never an exception that
// escapes the Worker (workerd's "Network connection lost" 500 page).

const UNREACHABLE = { PG_WS_PROXY: '', DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing', PG_CONNECT_TIMEOUT_MS: '2000' };
const DETAIL = 'The racing database is unreachable right now; try again shortly';
const payload = { date: '2026-01-10', course_id: 1, trainer_stats: [], jockey_stats: [] };

const routes: [string, RequestInit?][] = [
  ['/meetings'],
  ['/meetings?date=2026-01-10'],
  ['/meeting-participants?date=2026-01-10&courseId=1'],
  ['/trainer-stats?date=2026-01-10&courseId=1'],
  ['/jockey-stats?date=2026-01-10&courseName=Randwick'],
  ['/trainerStats?date=2026-01-10&courseId=1'],
  ['/jockeyStats?date=2026-01-10&courseId=1'],
  ['/meetingStats?date=2026-01-10&courseId=1'],
  ['/saved-stats?date=2026-01-10&courseId=1'],
  ['/save-stats', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) }],
];

describe('racing database unreachable without a relay', () => {
  for (const [path, init = {}] of routes) {
    it(`${init.method ?? 'GET'} ${path} → 503 {detail}`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (event: PromiseRejectionEvent) => unhandled.push(event.reason);
      addEventListener('unhandledrejection', onUnhandled);
      const pending: Promise<unknown>[] = [];
      const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => {}, props: {} };
      const headers = { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string> | undefined) };
      const res = await app.request(path, { ...init, headers }, { ...env, ...UNREACHABLE }, ctx);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ detail: DETAIL });
      await Promise.all(pending);
      await scheduler.wait(50);
      removeEventListener('unhandledrejection', onUnhandled);
      expect(unhandled).toEqual([]);
    });
  }
});

describe('racing database behind the relay (the HTTP query path)', () => {
  const call = (overrides: Record<string, string>) =>
    app.request(
      '/meetings?date=2026-01-10',
      { headers: { Authorization: `Bearer ${TOKEN}` } },
      { ...env, ...overrides },
      {
        waitUntil: () => {},
        passThroughOnException: () => {},
        props: {},
      },
    );

  it('a database that accepts but never answers: 503 {detail} once connect + query time is up', async () => {
    const started = Date.now();
    const res = await call({
      DATABASE_URL: `postgres://racing:secret@127.0.0.1:${env.SILENT_PORT}/racing`,
      PG_CONNECT_TIMEOUT_MS: '500',
      PG_QUERY_TIMEOUT_MS: '500',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ detail: DETAIL });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('the relay itself down: 503 {detail}', async () => {
    const res = await call({ PG_WS_PROXY: 'ws://127.0.0.1:1' });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ detail: DETAIL });
  });
});
