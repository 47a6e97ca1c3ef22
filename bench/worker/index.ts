import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { createApp } from '#shared/app.ts';
import { openRacingReads, racingDb, racingDbConfigSchema, type RacingDbVariables, readRows } from '#shared/pg.ts';
import { parseConfig } from '#shared/config.ts';
import { destinationReads, openDestination, withSql } from '../../workers/migrate/src/engine/db.ts';
import { introspectReads, introspectSql } from '../../workers/migrate/src/engine/introspect.ts';

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

/** Nothing at all: what a request costs through the local runtime and the harness. */
app.get('/noop', (c) => c.text('ok'));

/** One read over the HTTP path (the relay's /sql), timed inside the isolate: the Worker→relay→PG round trip. */
app.get('/http/select1', async (c) => {
  const reads = openRacingReads(parseConfig(racingDbConfigSchema, c.env));
  const started = performance.now();
  await readRows(reads, { name: 'select 1', text: 'select 1', row: z.object({ '?column?': z.literal(1) }) });
  return c.json({ ms: performance.now() - started });
});

/**
 * A migration look-up, the destination's schema (two catalogue statements): over the HTTP read path
 * as one batch (`via=http`, what the app does), or on a new WebSocket connection (`via=ws`, what it
 * did before).
 */
app.get('/migrate/schema', async (c) => {
  const { DATABASE_URL, PG_WS_PROXY } = parseConfig(racingDbConfigSchema, c.env);
  const env = { DATABASE_URL, PG_WS_PROXY };
  const schema =
    c.req.query('via') === 'ws'
      ? await withSql(
          () => openDestination(env),
          (sql) => introspectSql(sql),
        )
      : await introspectReads(destinationReads(env));
  return c.json({ tables: schema.tables.length });
});

export default app;
