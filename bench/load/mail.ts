import { withBenchMail } from '../mail-worker.ts';
import { drive, type Sample, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';
import { memoryOf, workerdDescendants } from './procs.ts';
import type { RouteSweep } from './report.ts';

const READERS = 50;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const THROTTLED_S = 12;
/** Graph's limit: calls in flight per app and mailbox. */
const GRAPH_SLOTS = 4;

/**
 * The mail assistant: its inbox and one message under the sweep (the mail Worker beside a fresh
 * Graph stand-in, a stored session), and with --faults the stand-in throttling (429 with
 * Retry-After) under 50 concurrent mailbox readers.
 */
export async function benchMailLoad(
  options: LoadOptions,
  sweep: (scenarios: Scenario[]) => Promise<RouteSweep[]>,
): Promise<{ sweeps: RouteSweep[]; peakRssMiB: number | undefined; throttling?: unknown }> {
  const before = new Set(workerdDescendants());
  return withBenchMail({}, async ({ base, cookie, standin }) => {
    const pids = workerdDescendants().filter((p) => !before.has(p));
    const headers = { cookie };
    const first = await fetch(`${base}/api/emails/inbox?top=25`, { headers });
    if (first.status !== 200) throw new Error(`mail inbox: ${first.status} ${await first.text()}`);
    const { items } = (await first.json()) as { items: { id: string }[] };
    const message = `/api/email/${encodeURIComponent(items[0]!.id)}`;
    const inbox: Scenario = {
      service: 'mail',
      route: 'GET /api/emails/inbox?top=25',
      origin: base,
      path: '/api/emails/inbox?top=25',
      headers,
    };
    const sweeps = await sweep([inbox, { service: 'mail', route: 'GET /api/email/{id}', origin: base, path: message, headers }]);
    const peaks = pids.map((pid) => memoryOf(pid)?.peakMiB);
    const peakRssMiB = peaks.length && peaks.every((v) => v !== undefined) ? peaks.reduce((a, b) => a! + b!, 0) : undefined;
    if (!options.faults) return { sweeps, peakRssMiB };

    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${standin.url}/_standin${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    /** Throttled windows [from, to) in ms of performance.now() while the injector runs; the injector's stop. */
    const throttleWindows = async (onMs: number, offMs: number) => {
      const windows: [number, number][] = [];
      let running = true;
      const injector = (async () => {
        while (running) {
          const fault = (await (
            await control('POST', '/faults', { status: 429, retryAfter: 1, count: 1_000_000, pathPrefix: '/v1.0/me/', method: 'GET' })
          ).json()) as { id: number };
          const window: [number, number] = [performance.now(), Number.POSITIVE_INFINITY];
          windows.push(window);
          await pause(onMs);
          await control('DELETE', `/faults/${fault.id}`);
          window[1] = performance.now();
          if (running) await pause(offMs);
        }
      })();
      return {
        windows,
        stop: async () => {
          running = false;
          await injector;
          await control('DELETE', '/faults');
          return windows.length;
        },
      };
    };
    /**
     * 50 readers for THROTTLED_S while `during` throttles; the readers' statuses and what the
     * stand-in saw. With throttled windows, each request is judged: would Graph have served it
     * after its retries? Yes when Graph was not throttling for at least 1 s of the 3 s its own
     * retries span (Retry-After: 1, GRAPH_MAX_RETRIES 3) from the moment it was sent.
     */
    const throttled = async (label: string, during: () => Promise<{ windows?: [number, number][]; stop: () => Promise<number> }>) => {
      await control('DELETE', '/log');
      console.log(`\nFault: the Graph stand-in throttling (${label}) under ${READERS} concurrent inbox readers`);
      const { windows, stop } = await during();
      let samples: Sample[];
      let injected = 0;
      const driveStart = performance.now();
      try {
        ({ samples } = await drive(inbox, READERS, THROTTLED_S, { timeoutS: options.timeoutS }));
      } finally {
        injected = await stop();
      }
      const servable = (sample: Sample) => {
        if (!windows) return true;
        const from = driveStart + sample.atMs - (Number.isNaN(sample.ms) ? options.timeoutS * 1000 : sample.ms);
        const to = from + 3_000;
        const throttledMs = windows.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);
        return to - from - throttledMs >= 1_000;
      };
      const failed = samples.filter((s) => s.status !== 200);
      const servedAfterRetry = {
        servable: samples.filter(servable).length,
        servableFailed: failed.filter(servable).length,
        notServable: samples.filter((s) => !servable(s)).length,
        notServableFailed: failed.filter((s) => !servable(s)).length,
      };
      const log = (await (await control('GET', '/log')).json()) as {
        requests: { status: number }[];
        highWater: number;
        highWaterByToken: Record<string, number>;
      };
      const statuses: Record<string, number> = {};
      for (const s of samples) statuses[s.status || 'error'] = (statuses[s.status || 'error'] ?? 0) + 1;
      const result = {
        readerStatuses: statuses,
        graphCalls: log.requests.length,
        graph429s: log.requests.filter((r) => r.status === 429).length,
        injected,
        ...(windows ? { servedAfterRetry } : {}),
        highWater: log.highWater,
        highWaterByToken: log.highWaterByToken,
      };
      const answered = samples
        .filter((s) => s.status > 0)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      console.log(
        `  readers: ${Object.entries(statuses)
          .map(([s, n]) => `${n}× ${s}`)
          .join(', ')} (p50 ${answered[Math.floor(answered.length / 2)]?.toFixed(0)} ms);` +
          ` Graph: ${result.graphCalls} calls, ${result.graph429s} answered 429; most in flight for the mailbox ${result.highWater} (limit ${GRAPH_SLOTS})`,
      );
      if (windows)
        console.log(
          `  requests Graph would have served after their retries: ${servedAfterRetry.servable}, of them failed ${servedAfterRetry.servableFailed};` +
            ` the others: ${servedAfterRetry.notServable}, of them failed ${servedAfterRetry.notServableFailed}`,
        );
      return result;
    };

    // By time, as Graph throttles a mailbox over its limits: windows in which every call of the
    // mailbox answers 429 with Retry-After: 1, between windows in which Graph serves. Short
    // windows (2.5 s of every 5 s): every request's own attempts (1 + GRAPH_MAX_RETRIES, 1 s
    // apart) reach a free moment, so Graph would have served every one after its retries. Long
    // windows (4.5 s of every 7.5 s): a request that began early in one has all its attempts refused.
    const byTime = await throttled('429 in windows of 2.5 s of every 5 s, Retry-After: 1', () => throttleWindows(2_500, 2_500));
    const longWindows = await throttled('429 in windows of 4.5 s of every 7.5 s, Retry-After: 1', () => throttleWindows(4_500, 3_000));
    // By concurrency, as Graph throttles: more than 1 call of the mailbox in flight gets 429
    // ApplicationThrottled with Retry-After: 1 (the mailbox object allows itself 4, and an inbox read asks for the folder and its page at once).
    const byConcurrency = await throttled('429 past 1 call in flight, Retry-After: 1', async () => {
      await control('POST', '/limits', { maxConcurrent: 1 });
      return {
        stop: async () => {
          await control('POST', '/limits', { maxConcurrent: GRAPH_SLOTS });
          return 0;
        },
      };
    });
    const result = { ...byTime, longWindows, byConcurrency };
    return { sweeps, peakRssMiB, throttling: result };
  });
}
