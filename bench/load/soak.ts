import { drive, type Sample, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';
import { memoryOf } from './procs.ts';
import type { RouteSweep } from './report.ts';
import type { Started } from './services.ts';

const WINDOW_S = 30;
/** Memory before this share of the soak is warm-up. */
const WARM_UP_SHARE = 0.2;

/**
 * Each route at half its knee (half the sweep's largest step when it had none; or --soak-connections) for the soak's
 * duration, all at once: the memory of each workerd sampled every few seconds, its growth after
 * warm-up, the error rate, and p99 per 30-second window.
 */
export async function soak(scenarios: Scenario[], sweeps: RouteSweep[], started: Started[], options: LoadOptions) {
  const seconds = options.soakS!;
  const memory: Record<string, { atS: number; rssMiB: number }[]> = {};
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
        (memory[service.name] ??= []).push({ atS, rssMiB: Math.round(rss * 10) / 10 });
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
  let runs: { samples: Sample[] }[];
  try {
    runs = await Promise.all(plan.map((p) => drive(p.scenario, p.connections, seconds, { timeoutS: options.timeoutS })));
  } finally {
    clearInterval(timer);
  }
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
          growthPercent: Math.round(((last - first) / first) * 1000) / 10,
          meanGrowthPercent: meanGrowth,
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
  }
  return { seconds, routes, memory, growth };
}
