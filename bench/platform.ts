import { join } from 'node:path';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import type { BenchContext } from './context.ts';
import { keepAliveClient } from './http.ts';
import { psqlTimings, psqlWallTimes } from './psql.ts';
import { median, ms, percentile, sample } from './stats.ts';
import { relaySqlEndpoint } from '#shared/pg.ts';

/** Worker → relay → Postgres against psql on the same server: new connection, warm connection. */
export async function benchPlatform({ url, relay, runs }: BenchContext) {
  const worker = await startLocalWorker({
    // Its own config: without one, wrangler would read the router's wrangler.toml from the root.
    config: join(ROOT, 'bench/worker/wrangler.toml'),
    vars: { DATABASE_URL: url, PG_WS_PROXY: relay },
  });
  const call = async (path: string) => {
    const res = await worker.fetch(`http://bench${path}`);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  try {
    console.log(`\nPostgres round trip (${runs} runs each)`);
    const workerCold = await sample(runs, () => call('/pg/select1'));
    const psqlCold = psqlWallTimes(url, 'select 1;', Math.min(runs, 100), 5);
    console.log(
      `  request: new connection + select 1   Worker→relay→PG median ${ms(median(workerCold))} (p95 ${ms(percentile(workerCold, 95))})` +
        `   psql new connection median ${ms(median(psqlCold))}   ratio ${(median(workerCold) / median(psqlCold)).toFixed(2)}×`,
    );
    // Timers inside workerd only move on I/O, so the warm figure is a mean over many queries.
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(((await call(`/pg/select1-warm?runs=${runs}`)) as { meanMs: number }).meanMs);
    const psqlWarm = psqlTimings(url, 'select 1;\n'.repeat(runs));
    const psqlMean = psqlWarm.reduce((a, b) => a + b, 0) / psqlWarm.length;
    console.log(
      `  select 1 on a warm connection        Worker→relay→PG mean ${ms(median(warm))} (median of 5 × ${runs})` +
        `   psql \\timing mean ${ms(psqlMean)}   ratio ${(median(warm) / psqlMean).toFixed(2)}×`,
    );

    // Where a request's floor goes: the harness, the runtime, the relay, the database.
    const http = keepAliveClient((await worker.url).origin);
    console.log(`\nPer-request floor (${runs} runs each)`);
    const dispatch = await sample(runs, async () => (await worker.fetch('http://bench/noop')).text());
    const plain = await sample(runs, () => http.ok('/noop'));
    console.log(
      `  trivial route, wrangler worker.fetch() (Miniflare dispatchFetch)   p50 ${ms(median(dispatch))}` +
        `   plain HTTP, kept-alive connection p50 ${ms(median(plain))}   → the harness adds ${ms(median(dispatch) - median(plain))}`,
    );
    const inside: number[] = [];
    const whole = await sample(runs, async () => inside.push((await http.json<{ ms: number }>('/http/select1')).ms));
    const relayHttp = keepAliveClient(relaySqlEndpoint(relay));
    const body = JSON.stringify({ query: 'select 1', params: [] });
    const direct = await sample(runs, () =>
      relayHttp.ok('/sql', { method: 'POST', headers: { 'neon-connection-string': url, 'content-type': 'application/json' }, body }),
    );
    const psqlSelect = psqlTimings(url, 'select 1;\n'.repeat(runs));
    console.log(
      `  select 1 over the HTTP read path: whole request p50 ${ms(median(whole))}; the read timed inside the isolate p50 ${ms(median(inside))};` +
        ` the relay's /sql from Node p50 ${ms(median(direct))}; psql \\timing p50 ${ms(median(psqlSelect))}`,
    );

    // A migration look-up (the destination's schema, two catalogue statements) both ways.
    const viaHttp = await sample(runs, () => http.ok('/migrate/schema?via=http'));
    const viaWs = await sample(runs, () => http.ok('/migrate/schema?via=ws'));
    console.log(
      `  migration look-up (destination schema, 2 statements): HTTP read path, one batch p50 ${ms(median(viaHttp))};` +
        ` new WebSocket connection p50 ${ms(median(viaWs))} (${(median(viaWs) / median(viaHttp)).toFixed(1)}× the HTTP read)`,
    );
    http.close();
    relayHttp.close();
  } finally {
    await worker.dispose();
  }
}
