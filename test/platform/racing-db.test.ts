import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApp } from '#shared/app.ts';
import { racingDb, racingSchema, type RacingDbVariables } from '#shared/pg.ts';

const { meetings, races, runners } = racingSchema;

function racingApp() {
  const app = createApp<{ Variables: RacingDbVariables }>('platform-test');
  app.use('/racing/*', racingDb());
  app.get('/racing/summary', async (c) => {
    const db = c.var.racing;
    const [[runnerCount], todays] = await Promise.all([
      db.select({ n: count() }).from(runners),
      db
        .select({ meetingId: meetings.id, races: count(races.id) })
        .from(meetings)
        .innerJoin(races, eq(races.meetingId, meetings.id))
        .where(eq(meetings.date, c.req.query('date') ?? ''))
        .groupBy(meetings.id),
    ]);
    return c.json({ runners: runnerCount?.n ?? 0, meetingsToday: todays.length });
  });
  app.get('/racing/broken-query', async (c) => {
    await c.var.racing.execute(sql`select * from no_such_table`);
    return c.json({});
  });
  return app;
}

async function call(path: string, overrides: Partial<Cloudflare.Env & Record<string, string>> = {}) {
  const ctx = createExecutionContext();
  const started = Date.now();
  const res = await racingApp().request(path, {}, { ...env, ...overrides }, ctx);
  const body = await res.json<Record<string, unknown>>();
  await waitOnExecutionContext(ctx);
  return { res, body, ms: Date.now() - started };
}

describe('racing database from a Worker', () => {
  it('reads generated racing data through the serverless driver and the relay', async () => {
    const { res, body } = await call(`/racing/summary?date=${env.RACING_TODAY}`);
    expect(res.status).toBe(200);
    expect(body.runners).toBeGreaterThan(100);
    expect(body.meetingsToday).toBeGreaterThan(0);
  });

  it('answers 503 with a body when nothing listens at the database address', async () => {
    const { res, body, ms } = await call('/racing/summary', {
      DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing',
    });
    expect(res.status).toBe(503);
    expect(body).toMatchObject({ error: 'database_unavailable' });
    expect(String(body.message)).not.toContain('secret');
    expect(ms).toBeLessThan(5_000);
  });

  it('answers 503 within the connect timeout when the database accepts but never answers', async () => {
    const { res, body, ms } = await call('/racing/summary', {
      DATABASE_URL: `postgres://racing:secret@127.0.0.1:${env.SILENT_PORT}/racing`,
      PG_CONNECT_TIMEOUT_MS: '1000',
    });
    expect(res.status).toBe(503);
    expect(body).toMatchObject({ error: 'database_unavailable' });
    expect(ms).toBeLessThan(4_000);
  });

  it('answers 503 when the relay in front of the database is down', async () => {
    const { res, body } = await call('/racing/summary', { PG_WS_PROXY: 'ws://127.0.0.1:1' });
    expect(res.status).toBe(503);
    expect(body).toMatchObject({ error: 'database_unavailable' });
  });

  it('keeps a query error a 500, not an outage', async () => {
    const { res, body } = await call('/racing/broken-query');
    expect(res.status).toBe(500);
    expect(body).toMatchObject({ error: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain('no_such_table');
  });

  it('names a missing database secret instead of guessing one', async () => {
    const { res, body } = await call('/racing/summary', { DATABASE_URL: undefined });
    expect(res.status).toBe(500);
    expect(body).toMatchObject({ error: 'configuration_error' });
    expect(String(body.message)).toContain('DATABASE_URL is not set');
  });
});
