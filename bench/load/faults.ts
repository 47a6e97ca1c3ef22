import { drive, type Sample, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';
import type { PgInstance } from './pg-instance.ts';

const BEFORE_S = 5;
const OUTAGE_S = 10;
const AFTER_S = 10;
const CONNECTIONS = 50;

export interface OutageFigures {
  route: string;
  /** Statuses of the answers while the database was down (from the stop to the end of the start). */
  duringOutage: Record<string, number>;
  /** 5xx answers other than 502/503, over the whole run. */
  unexpected5xx: number;
  /** Requests with no answer within the timeout, and connection errors. */
  errors: number;
  /** The slowest answer of the run (ms): nothing may hang past the timeout. */
  slowestMs: number;
  /** From the server's return to the last failed answer (ms); 0 when nothing failed after it. */
  recoveryMs: number;
  /** p50 of the 503 answers during the outage (ms). */
  outageP50Ms: number;
}

/**
 * The racing PostgreSQL stopped (fast shutdown: connections dropped, new ones refused) for 10 s in
 * the middle of a 50-connection run on each route, then started again.
 */
export async function pgOutage(instance: PgInstance, scenarios: Scenario[], options: LoadOptions): Promise<OutageFigures[]> {
  console.log(`\nFault: PostgreSQL stopped for ${OUTAGE_S} s under ${CONNECTIONS} connections (timeout ${options.timeoutS} s)`);
  const figures: OutageFigures[] = [];
  for (const scenario of scenarios) {
    const marks = { stopAt: 0, stoppedAt: 0, startAt: 0, back: 0 };
    const t0 = performance.now();
    const at = () => performance.now() - t0;
    const fault = (async () => {
      await sleep(BEFORE_S * 1000);
      marks.stopAt = at();
      await instance.stop();
      marks.stoppedAt = at();
      await sleep(Math.max(0, OUTAGE_S * 1000 - (at() - marks.stopAt)));
      marks.startAt = at();
      await instance.start();
      marks.back = at();
    })();
    const { samples } = await drive(scenario, CONNECTIONS, BEFORE_S + OUTAGE_S + AFTER_S, { timeoutS: options.timeoutS });
    await fault;
    figures.push(summarise(scenario, samples, marks));
    const f = figures.at(-1)!;
    console.log(
      `  ${scenario.service} ${scenario.route}: during the outage ${describe(f.duringOutage)}; unexpected 5xx ${f.unexpected5xx};` +
        ` errors/timeouts ${f.errors}; slowest answer ${f.slowestMs.toFixed(0)} ms; 503 p50 ${f.outageP50Ms.toFixed(1)} ms;` +
        ` back to no errors ${(f.recoveryMs / 1000).toFixed(1)} s after the server returned`,
    );
  }
  return figures;
}

function summarise(scenario: Scenario, samples: Sample[], marks: { stopAt: number; back: number }): OutageFigures {
  // The samples' clock starts with autocannon's run, a moment after t0: close enough at this scale.
  const during = samples.filter((s) => s.atMs >= marks.stopAt && s.atMs <= marks.back);
  const duringOutage: Record<string, number> = {};
  for (const s of during) duringOutage[s.status || 'error'] = (duringOutage[s.status || 'error'] ?? 0) + 1;
  const failedAfter = samples.filter((s) => s.atMs > marks.back && (s.status === 0 || s.status >= 400));
  const outage = during
    .filter((s) => s.status === 503)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  return {
    route: `${scenario.service} ${scenario.route}`,
    duringOutage,
    unexpected5xx: samples.filter((s) => s.status >= 500 && s.status !== 502 && s.status !== 503).length,
    errors: samples.filter((s) => s.status === 0).length,
    slowestMs: Math.max(0, ...samples.filter((s) => s.status > 0).map((s) => s.ms)),
    recoveryMs: failedAfter.length ? Math.max(...failedAfter.map((s) => s.atMs)) - marks.back : 0,
    outageP50Ms: outage.length ? outage[Math.floor(outage.length / 2)]! : Number.NaN,
  };
}

const describe = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${n}× ${status}`)
    .join(', ') || 'no answers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
