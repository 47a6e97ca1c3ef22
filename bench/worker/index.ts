import { sql } from 'drizzle-orm';
import { createApp } from '../../workers/shared/app';
import { racingDb, type RacingDbVariables } from '../../workers/shared/pg';

// A Worker used only by `npm run bench`: the shared Postgres path with nothing else around it.
const app = createApp<{ Variables: RacingDbVariables }>('bench');
app.use('/pg/*', racingDb());

/** One request = one new pool, connection and trivial query: what a Worker pays per request. */
app.get('/pg/select1', async (c) => {
  const started = performance.now();
  await c.var.racing.execute(sql`select 1`);
  return c.json({ ms: performance.now() - started });
});

/** Mean query round trip on one warm connection, timed inside the isolate. */
app.get('/pg/select1-warm', async (c) => {
  const runs = Math.min(Math.max(Number(c.req.query('runs')) || 100, 1), 5000);
  await c.var.racing.execute(sql`select 1`);
  const started = performance.now();
  for (let i = 0; i < runs; i++) await c.var.racing.execute(sql`select 1`);
  return c.json({ meanMs: (performance.now() - started) / runs });
});

export default app;
