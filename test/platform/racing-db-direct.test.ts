import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApp } from '#shared/app.ts';
import { racingDb, type RacingDbVariables } from '#shared/pg.ts';

// Production reaches Neon without a relay: the driver opens wss://<host>/v2 itself, and the
// runtime reports a failed WebSocket as an ErrorEvent, which is not an Error.

function directApp() {
  const app = createApp<{ Variables: RacingDbVariables }>('platform-test');
  app.use('/racing/*', racingDb());
  app.get('/racing/pool-query', async (c) => c.json((await c.var.racing.$client.query('select 1 as one')).rows));
  app.get('/racing/client-query', async (c) => {
    const client = await c.var.racing.$client.connect();
    try {
      return c.json((await client.query('select 1 as one')).rows);
    } finally {
      client.release();
    }
  });
  app.get('/racing/drizzle', async (c) => c.json((await c.var.racing.execute(sql`select 1 as one`)).rows));
  return app;
}

// Nothing serves WebSockets there: without a relay the driver ignores the port and dials 443.
const unreachable = { PG_WS_PROXY: '', DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing', PG_CONNECT_TIMEOUT_MS: '2000' };

describe('racing database without a relay (the production path)', () => {
  for (const path of ['/racing/pool-query', '/racing/client-query', '/racing/drizzle']) {
    it(`${path}: an unreachable host answers 503 with a body, nothing escapes the Worker`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (event: PromiseRejectionEvent) => unhandled.push(event.reason);
      addEventListener('unhandledrejection', onUnhandled);
      const ctx = createExecutionContext();
      const res = await directApp().request(path, {}, { ...env, ...unreachable }, ctx);
      expect(res.status).toBe(503);
      const body = await res.json<Record<string, unknown>>();
      expect(body).toMatchObject({ error: 'database_unavailable' });
      expect(JSON.stringify(body)).not.toContain('secret');
      await waitOnExecutionContext(ctx);
      await scheduler.wait(50);
      removeEventListener('unhandledrejection', onUnhandled);
      expect(unhandled).toEqual([]);
    });
  }
});
