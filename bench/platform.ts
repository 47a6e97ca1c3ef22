import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startLocalWorker } from '../scripts/local-worker';
import { ROOT } from '../scripts/workers';
import type { BenchContext } from './context';
import { median, ms, percentile, sample } from './stats';

/** `psql -c 'select 1'`, a fresh process and connection each time, as the Worker has per request. */
function psqlColdRoundTrips(url: string, runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs + 5; i++) {
    const started = performance.now();
    const run = spawnSync('psql', ['-X', '-q', '-tA', '-c', 'select 1', url], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  return times;
}

/** `select 1` repeated in one psql session with \timing: the server round trip on a warm connection. */
function psqlWarmRoundTrips(url: string, runs: number): number[] {
  const script = `\\timing on\n${'select 1;\n'.repeat(runs)}`;
  const run = spawnSync('psql', ['-X', '-q', '-tA', url], { input: script, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
  return [...run.stdout.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
}

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
    const psqlCold = psqlColdRoundTrips(url, Math.min(runs, 100));
    console.log(
      `  request: new connection + select 1   Worker→relay→PG median ${ms(median(workerCold))} (p95 ${ms(percentile(workerCold, 95))})` +
        `   psql -c median ${ms(median(psqlCold))}   ratio ${(median(workerCold) / median(psqlCold)).toFixed(2)}×`,
    );
    // Timers inside workerd only move on I/O, so the warm figure is a mean over many queries.
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(((await call(`/pg/select1-warm?runs=${runs}`)) as { meanMs: number }).meanMs);
    const psqlWarm = psqlWarmRoundTrips(url, runs);
    const psqlMean = psqlWarm.reduce((a, b) => a + b, 0) / psqlWarm.length;
    console.log(
      `  select 1 on a warm connection        Worker→relay→PG mean ${ms(median(warm))} (median of 5 × ${runs})` +
        `   psql \\timing mean ${ms(psqlMean)}   ratio ${(median(warm) / psqlMean).toFixed(2)}×`,
    );
  } finally {
    await worker.dispose();
  }
}
