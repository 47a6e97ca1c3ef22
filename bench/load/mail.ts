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

    // Throttling: every second, the mailbox's next 8 Graph calls get 429 with Retry-After: 1.
    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${standin.url}/_standin${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    await control('DELETE', '/log');
    let throttling = true;
    let injected = 0;
    const injector = (async () => {
      while (throttling) {
        const res = await control('POST', '/faults', { status: 429, retryAfter: 1, count: 8 });
        if (res.status === 201) injected += 8;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    })();
    console.log(`\nFault: the Graph stand-in throttling (429, Retry-After: 1, 8 calls a second) under ${READERS} concurrent inbox readers`);
    let samples: Sample[];
    try {
      ({ samples } = await drive(inbox, READERS, THROTTLED_S, { timeoutS: options.timeoutS }));
    } finally {
      throttling = false;
      await injector;
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
    return { sweeps, peakRssMiB, throttling: result };
  });
}
