import { drive, type Sample, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';
import { HEAP_EVERY_S, heapGrowthPercent, watchHeaps } from './heap.ts';
import { memoryOf, workerdRole } from './procs.ts';
import type { RouteSweep } from './report.ts';
import type { Started } from './services.ts';

const WINDOW_S = 30;
/** Memory before this share of the soak is warm-up. */
export const WARM_UP_SHARE = 0.2;

/**
 * Each route at half its knee (half the sweep's largest step when it had none; or --soak-connections) for the soak's
 * duration, all at once: the memory of each workerd sampled every few seconds, its growth after
 * warm-up, the error rate, and p99 per 30-second window.
 */
export async function soak(scenarios: Scenario[], sweeps: RouteSweep[], started: Started[], options: LoadOptions) {
  const seconds = options.soakS!;
  /** Both processes' RSS summed, and each: the Worker's own workerd and wrangler's proxy in front of it. */
  const memory: Record<string, { atS: number; rssMiB: number; workerMiB?: number; proxyMiB?: number }[]> = {};
  /**
   * When a service's workerd processes went away: wrangler's bundler watches the Worker's sources
   * whatever `watch` says and restarts the Worker on any change, so a soak must run on a tree
   * nobody edits (a `git archive` copy); a restart is reported, and its memory not read as growth.
   */
  const restartedAtS: Record<string, number> = {};
  const t0 = performance.now();
  const timer = setInterval(() => {
    const atS = Math.round((performance.now() - t0) / 1000);
    for (const service of started) {
      if (restartedAtS[service.name] !== undefined) continue;
      // Both of the service's workerd processes (the Worker and wrangler's proxy in front of it).
      const readings = service.pids.map((pid) => memoryOf(pid));
      if (readings.length && readings.every(Boolean)) {
        const rss = readings.reduce((sum, m) => sum + m!.rssMiB, 0);
        const point: (typeof memory)[string][number] = { atS, rssMiB: round(rss) };
        service.pids.forEach((pid, i) => {
          const role = workerdRole(pid);
          if (role) point[`${role}MiB`] = round((point[`${role}MiB`] ?? 0) + readings[i]!.rssMiB);
        });
        (memory[service.name] ??= []).push(point);
      } else if (readings.length) {
        restartedAtS[service.name] = atS;
        console.log(`  ${service.name}: its workerd restarted at ${atS} s (its sources changed?); its memory is not read from then on`);
      }
    }
  }, 5_000);
  const plan = scenarios.map((scenario) => {
    const sweep = sweeps.find((s) => s.service === scenario.service && s.route === scenario.route);
    const kneeAt = sweep?.knee ?? sweep?.steps.at(-1)?.connections ?? 10;
    return { scenario, connections: options.soakConnections ?? Math.max(1, Math.floor(kneeAt / 2)) };
  });
  console.log(
    `\nSoak: ${seconds} s, ${plan.map((p) => `${p.scenario.service} ${p.scenario.route} at ${p.connections} connections`).join('; ')}`,
  );
  console.log(
    `  each Worker's JS heap is read after a forced full collection (V8 inspector) at the end of warm-up, every ${HEAP_EVERY_S} s and at the end: the isolate serves nothing during a collection, so not more often`,
  );
  const heapWatch = await watchHeaps(started, seconds, Math.round(seconds * WARM_UP_SHARE));
  let runs: { samples: Sample[] }[];
  try {
    runs = await Promise.all(plan.map((p) => drive(p.scenario, p.connections, seconds, { timeoutS: options.timeoutS })));
  } finally {
    clearInterval(timer);
  }
  const heaps = await heapWatch.stop();
  const routes = plan.map((p, i) => {
    const samples = runs[i]!.samples;
    const failed = samples.filter((s) => s.status === 0 || s.status >= 400).length;
    const windows: number[] = [];
    for (let from = 0; from < seconds; from += WINDOW_S) {
      const inWindow = samples.filter((s) => s.status > 0 && s.atMs >= from * 1000 && s.atMs < (from + WINDOW_S) * 1000).map((s) => s.ms);
      inWindow.sort((a, b) => a - b);
      if (inWindow.length)
        windows.push(Math.round(inWindow[Math.min(inWindow.length - 1, Math.ceil(0.99 * inWindow.length) - 1)]! * 10) / 10);
    }
    const statuses: Record<string, number> = {};
    for (const s of samples) statuses[s.status || 'error'] = (statuses[s.status || 'error'] ?? 0) + 1;
    return {
      route: `${p.scenario.service} ${p.scenario.route}`,
      connections: p.connections,
      requests: samples.length,
      statuses,
      errorRate: samples.length ? failed / samples.length : 0,
      p99ByWindowMs: windows,
    };
  });
  const growth = Object.fromEntries(
    Object.entries(memory).map(([name, points]) => {
      const warm = points.filter((p) => p.atS >= seconds * WARM_UP_SHARE);
      const first = warm[0]?.rssMiB ?? Number.NaN;
      const last = warm.at(-1)?.rssMiB ?? Number.NaN;
      const peak = Math.max(...warm.map((p) => p.rssMiB));
      const processes = Object.fromEntries(
        (['workerMiB', 'proxyMiB'] as const).map((key) => {
          const a = warm[0]?.[key];
          const b = warm.at(-1)?.[key];
          return [
            key.replace('MiB', ''),
            a === undefined || b === undefined ? undefined : { afterWarmUpMiB: a, endMiB: b, growthPercent: pct(a, b) },
          ];
        }),
      );
      // Under load, from the end of warm-up to the last reading before the load ended.
      const heapUnderLoad = (heaps.readings[name] ?? []).filter((r) => !r.idle && r.atS >= Math.round(seconds * WARM_UP_SHARE));
      const heapIdle = (heaps.readings[name] ?? []).find((r) => r.idle);
      // Less sensitive to where a collection falls: the mean of the last fifth of the samples after
      // warm-up against the mean of their first fifth.
      const fifth = Math.max(1, Math.floor(warm.length / 5));
      const mean = (xs: { rssMiB: number }[]) => xs.reduce((sum, p) => sum + p.rssMiB, 0) / xs.length;
      const meanGrowth = warm.length ? Math.round((mean(warm.slice(-fifth)) / mean(warm.slice(0, fifth)) - 1) * 1000) / 10 : Number.NaN;
      return [
        name,
        {
          afterWarmUpMiB: first,
          endMiB: last,
          peakMiB: peak,
          growthPercent: pct(first, last),
          meanGrowthPercent: meanGrowth,
          processes,
          heapAfterGc: {
            afterWarmUpMiB: heapUnderLoad[0]?.usedMiB,
            endMiB: heapUnderLoad.at(-1)?.usedMiB,
            growthPercent: heapGrowthPercent(heapUnderLoad),
            afterLoadMiB: heapIdle?.usedMiB,
            backingStoreAfterWarmUpMiB: heapUnderLoad[0]?.backingStoreMiB,
            backingStoreEndMiB: heapUnderLoad.at(-1)?.backingStoreMiB,
            maxPauseMs: Math.max(...(heaps.readings[name] ?? []).map((r) => r.pauseMs)),
            ...(heaps.failures[name] ? { failure: heaps.failures[name] } : {}),
          },
          ...(restartedAtS[name] !== undefined ? { restartedAtS: restartedAtS[name] } : {}),
        },
      ];
    }),
  );
  for (const r of routes) {
    const shown = Object.entries(r.statuses)
      .map(([status, n]) => `${n}× ${status}`)
      .join(', ');
    console.log(
      `  ${r.route} (${r.connections} conns): ${shown}; error rate ${(r.errorRate * 100).toFixed(2)} %, p99 per ${WINDOW_S} s: ${r.p99ByWindowMs.join(' / ')} ms`,
    );
  }
  for (const [name, g] of Object.entries(growth)) {
    console.log(
      `  ${name} workerd RSS after warm-up ${g.afterWarmUpMiB} MiB → end ${g.endMiB} MiB (peak ${g.peakMiB}; growth ${g.growthPercent} %, of the means of the first and last fifths ${g.meanGrowthPercent} %)` +
        (g.restartedAtS !== undefined ? ` — restarted at ${g.restartedAtS} s, so up to then only` : ''),
    );
    const { worker, proxy } = g.processes;
    if (worker && proxy)
      console.log(
        `    the Worker's workerd ${worker.afterWarmUpMiB} → ${worker.endMiB} MiB (${worker.growthPercent} %), wrangler's proxy ${proxy.afterWarmUpMiB} → ${proxy.endMiB} MiB (${proxy.growthPercent} %)`,
      );
    console.log(`    ${heapVerdict(g.heapAfterGc, g.growthPercent)}`);
  }
  return { seconds, routes, memory, heap: heaps.readings, growth };
}

const round = (n: number) => Math.round(n * 10) / 10;
const pct = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;

/** Growth of the heap after collection under this share counts as stable (the issue's bound for RSS). */
const STABLE_PERCENT = 10;

function heapVerdict(
  heap: {
    afterWarmUpMiB?: number;
    endMiB?: number;
    growthPercent: number;
    afterLoadMiB?: number;
    backingStoreAfterWarmUpMiB?: number;
    backingStoreEndMiB?: number;
    maxPauseMs: number;
    failure?: string;
  },
  rssGrowth: number,
): string {
  if (heap.afterWarmUpMiB === undefined || heap.endMiB === undefined || Number.isNaN(heap.growthPercent))
    return `heap after GC not read${heap.failure ? ` (${heap.failure})` : ''}`;
  const figures =
    `JS heap after GC ${heap.afterWarmUpMiB} → ${heap.endMiB} MiB${heap.afterLoadMiB === undefined ? '' : `, ${heap.afterLoadMiB} MiB once the load ended`}` +
    `; ArrayBuffers' backing stores ${heap.backingStoreAfterWarmUpMiB} → ${heap.backingStoreEndMiB} MiB; longest wait for a collection ${heap.maxPauseMs} ms` +
    (heap.failure ? `; not read ${heap.failure}` : '');
  if (heap.growthPercent <= -STABLE_PERCENT) return `heap after GC fell ${-heap.growthPercent} % (no leak): ${figures}`;
  if (Math.abs(heap.growthPercent) < STABLE_PERCENT)
    return `heap after GC stable (growth ${heap.growthPercent} %): ${figures}${rssGrowth >= STABLE_PERCENT ? `; the RSS growth (${rssGrowth} %) is not a leak of the Worker's code` : ''}`;
  return `heap after GC grew ${heap.growthPercent} % (a leak if it keeps rising with requests): ${figures}`;
}
