import { withBenchMail } from '../mail-worker.ts';
import { drive, type Sample, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';
import { memoryOf, workerdDescendants } from './procs.ts';
import type { RouteSweep } from './report.ts';

const READERS = 50;
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
    /** 50 readers for THROTTLED_S while `during` throttles; the readers' statuses and what the stand-in saw. */
    const throttled = async (label: string, during: () => Promise<() => Promise<number>>) => {
      await control('DELETE', '/log');
      console.log(`\nFault: the Graph stand-in throttling (${label}) under ${READERS} concurrent inbox readers`);
      const stop = await during();
      let samples: Sample[];
      let injected = 0;
      try {
        ({ samples } = await drive(inbox, READERS, THROTTLED_S, { timeoutS: options.timeoutS }));
      } finally {
        injected = await stop();
      }
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
      return result;
    };

    // By count: every second, the mailbox's next 8 Graph calls get 429 with Retry-After: 1 (the
    // unused ones kept), however few calls the mailbox makes.
    const byCount = await throttled('429, Retry-After: 1, 8 calls a second', async () => {
      let running = true;
      let injected = 0;
      const injector = (async () => {
        while (running) {
          const res = await control('POST', '/faults', { status: 429, retryAfter: 1, count: 8 });
          if (res.status === 201) injected += 8;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      })();
      return async () => {
        running = false;
        await injector;
        await control('DELETE', '/faults');
        return injected;
      };
    });
    // By concurrency, as Graph throttles: more than 1 call of the mailbox in flight gets 429
    // ApplicationThrottled with Retry-After: 1 (the mailbox object allows itself 4, and an inbox read asks for the folder and its page at once).
    const byConcurrency = await throttled('429 past 1 call in flight, Retry-After: 1', async () => {
      await control('POST', '/limits', { maxConcurrent: 1 });
      return async () => {
        await control('POST', '/limits', { maxConcurrent: GRAPH_SLOTS });
        return 0;
      };
    });
    const result = { ...byCount, byConcurrency };
    return { sweeps, peakRssMiB, throttling: result };
  });
}
