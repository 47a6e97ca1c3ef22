import { join } from 'node:path';
import { startLocalWorker } from '../scripts/local-worker';
import { ROOT } from '../scripts/workers';
import type { BenchContext } from './context';
import { psqlTimings, psqlWallTimes } from './psql';
import { median, ms, percentile, sample } from './stats';

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
  } finally {
    await worker.dispose();
  }
}
