import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Miniflare } from 'miniflare';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import { memoryOf, workerdDescendants } from './load/procs.ts';
import { newWorkerds } from './load/services.ts';
import { WARM_UP_SHARE } from './load/soak.ts';

// `npm run bench -- runtime-memory`: the resident memory of the local runtime under steady load with
// a Worker that does nothing (bench/worker/runtime-floor.ts), served as the load bench serves the
// services (wrangler: its proxy's workerd and the Worker's own) and by Miniflare alone (one
// workerd), at 5 connections for BENCH_RUNTIME_MEMORY_S seconds (default 180). It is the baseline
// for the soak's RSS figures: what the runtime grows by for a number of requests when the Worker
// itself holds nothing.

const ENTRY = join(ROOT, 'bench/worker/runtime-floor.ts');
const SAMPLE_S = 15;

type Reading = { atS: number; requests: number; rssMiB: Record<string, number> };

async function measure(origin: string, pids: number[], seconds: number): Promise<Reading[]> {
  const readings: Reading[] = [];
  let requests = 0;
  const t0 = performance.now();
  const timer = setInterval(() => {
    const rssMiB: Record<string, number> = {};
    for (const [i, pid] of pids.entries()) {
      const memory = memoryOf(pid);
      if (memory) rssMiB[`workerd ${i + 1} (pid ${pid})`] = Math.round(memory.rssMiB * 10) / 10;
    }
    readings.push({ atS: Math.round((performance.now() - t0) / 1000), requests, rssMiB });
  }, SAMPLE_S * 1000);
  const instance = autocannon({ url: `${origin}/`, connections: 5, duration: seconds });
  instance.on('response', () => requests++);
  const result = await instance;
  clearInterval(timer);
  if (result.non2xx || result.errors) throw new Error(`runtime-memory: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return readings;
}

function report(host: string, readings: Reading[], seconds: number) {
  const sum = (r: Reading) => Object.values(r.rssMiB).reduce((a, b) => a + b, 0);
  // Readings before the soak's warm-up share (bench/load/soak.ts) are warm-up here too.
  const warm = readings.filter((r) => r.atS >= seconds * WARM_UP_SHARE);
  const first = warm[0];
  const last = warm.at(-1);
  if (!first || !last) return console.log(`  ${host}: too short to read (under ${SAMPLE_S / WARM_UP_SHARE} s)`);
  const growth = ((sum(last) / sum(first) - 1) * 100).toFixed(0);
  console.log(
    `  ${host.padEnd(34)} ${last.requests.toLocaleString('en')} requests   RSS ${sum(first).toFixed(0)} MiB after warm-up (${first.atS} s) → ${sum(last).toFixed(0)} MiB at ${last.atS} s (${growth} %)`,
  );
  console.log(`    every ${SAMPLE_S} s (requests so far: MiB of each process):`);
  for (const r of readings) {
    const each = Object.entries(r.rssMiB)
      .map(([name, mib]) => `${name.split(' (')[0]} ${mib.toFixed(0)}`)
      .join(', ');
    console.log(`      ${String(r.atS).padStart(4)} s  ${r.requests.toLocaleString('en').padStart(9)}: ${each} MiB`);
  }
}

export async function benchRuntimeMemory() {
  const seconds = Number(process.env.BENCH_RUNTIME_MEMORY_S ?? 180);
  console.log(`\nLocal runtime memory: a Worker that answers 20 KB of HTML and does nothing else, 5 connections, ${seconds} s each`);

  const before = new Set(workerdDescendants());
  const worker = await startLocalWorker({ config: join(ROOT, 'bench/worker/wrangler.toml'), entrypoint: ENTRY, logLevel: 'error' });
  try {
    const pids = await newWorkerds(worker, before);
    const origin = (await worker.url).origin;
    report('wrangler (proxy + Worker workerd)', await measure(origin, pids, seconds), seconds);
  } finally {
    await worker.dispose();
  }

  const alone = new Set(workerdDescendants());
  const mf = new Miniflare({ modules: true, scriptPath: ENTRY, script: readFileSync(ENTRY, 'utf8'), compatibilityDate: '2026-04-20' });
  try {
    const url = await mf.ready;
    await (await fetch(url)).text();
    const pids = workerdDescendants().filter((pid) => !alone.has(pid));
    report('Miniflare alone (one workerd)', await measure(url.origin, pids, seconds), seconds);
  } finally {
    await mf.dispose();
  }
}
