import { unstable_startWorker } from 'wrangler';
import { configCrons } from './workers.ts';
export { applyLocalD1Migrations } from './workers.ts';

export interface LocalWorkerOptions {
  /** Path of the Worker's wrangler.toml. */
  config: string;
  /** Another entry module in place of the config's `main` (a bench harness around the Worker). */
  entrypoint?: string;
  /** Plain-text bindings overriding or adding to the config's vars and secrets. */
  vars?: Record<string, string>;
  /** Service bindings answered in this process instead of by another Worker (a stand-in). */
  fetchers?: Record<string, (request: Request) => Response | Promise<Response>>;
  /** Where D1, Durable Object and cache state live; in memory when absent. */
  persistTo?: string;
  logLevel?: 'error' | 'warn' | 'info';
  /** Dev registry folder: Workers started with the same one reach each other by service binding. */
  registry?: string;
  /** Serves `/__scheduled`, which runs the Worker's scheduled handler (`wrangler dev --test-scheduled`). */
  testScheduled?: boolean;
  /**
   * Opens the Worker's V8 inspector on a free loopback port (`worker.inspectorUrl`), as `wrangler dev`
   * does; off by default (the load bench's soak reads the isolate's heap through it).
   */
  inspector?: boolean;
}

/**
 * A Worker in local workerd on a free loopback port, as `wrangler dev` would serve it, for tests
 * and benchmarks driven from Node. The caller disposes it.
 */
export async function startLocalWorker(options: LocalWorkerOptions): Promise<Awaited<ReturnType<typeof unstable_startWorker>>> {
  const bindings = {
    ...Object.fromEntries(Object.entries(options.vars ?? {}).map(([name, value]) => [name, { type: 'plain_text' as const, value }])),
    ...Object.fromEntries(Object.entries(options.fetchers ?? {}).map(([name, fetcher]) => [name, { type: 'fetcher' as const, fetcher }])),
  };
  const worker = await unstable_startWorker({
    config: options.config,
    ...(options.entrypoint ? { entrypoint: options.entrypoint } : {}),
    bindings,
    // Its crons without its production routes: with routes, every request's URL would be rewritten
    // to the first route's host (see localDevConfig in workers.ts).
    triggers: configCrons(options.config).map((cron) => ({ type: 'cron' as const, cron })),
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      // Local only: a Workers AI binding (the mail Worker's) would otherwise need a Cloudflare login to start.
      remote: false,
      inspector: options.inspector ? { hostname: '127.0.0.1', port: 0 } : false,
      logLevel: options.logLevel ?? 'warn',
      persist: options.persistTo ?? false,
      watch: false,
      liveReload: false,
      ...(options.registry ? { registry: options.registry } : {}),
      ...(options.testScheduled ? { testScheduled: true } : {}),
    },
  });
  // wrangler reports a Worker that cannot start (a Durable Object its config names but its entry
  // does not export, a build error) as a log line and leaves `ready` pending: fail instead of hanging.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${options.entrypoint ?? options.config}: the Worker did not start within ${READY_TIMEOUT_MS / 1000} s (see wrangler's error above)`,
          ),
        ),
      READY_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([worker.ready, timeout]);
  } catch (err) {
    await worker.dispose().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return worker;
}

/** How long a local Worker may take to start. */
const READY_TIMEOUT_MS = 120_000;
