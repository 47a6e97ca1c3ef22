import { spawnSync } from 'node:child_process';
import { unstable_startWorker } from 'wrangler';
import { ROOT, wranglerBin } from './workers';

/** Applies a Worker's D1 migrations to local storage under `persistTo` (what `wrangler dev` reads). */
export function applyLocalD1Migrations(config: string, binding: string, persistTo: string): void {
  const run = spawnSync(wranglerBin(), ['d1', 'migrations', 'apply', binding, '--local', '--persist-to', persistTo, '-c', config], {
    cwd: ROOT,
    encoding: 'utf8',
    // CI=true: apply without asking.
    env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' },
  });
  if (run.status !== 0) throw new Error(`D1 migrations ${binding} (${config}) failed:\n${run.stdout}${run.stderr}`);
}

export interface LocalWorkerOptions {
  /** Path of the Worker's wrangler.toml. */
  config: string;
  /** Another entry module in place of the config's `main` (a bench harness around the Worker). */
  entrypoint?: string;
  /** Plain-text bindings overriding or adding to the config's vars and secrets. */
  vars?: Record<string, string>;
  /** Where D1, Durable Object and cache state live; in memory when absent. */
  persistTo?: string;
  logLevel?: 'error' | 'warn' | 'info';
  /** Dev registry folder: Workers started with the same one reach each other by service binding. */
  registry?: string;
}

/**
 * A Worker in local workerd on a free loopback port, as `wrangler dev` would serve it, for tests
 * and benchmarks driven from Node. The caller disposes it.
 */
export async function startLocalWorker(options: LocalWorkerOptions) {
  const bindings = Object.fromEntries(
    Object.entries(options.vars ?? {}).map(([name, value]) => [name, { type: 'plain_text' as const, value }]),
  );
  const worker = await unstable_startWorker({
    config: options.config,
    ...(options.entrypoint ? { entrypoint: options.entrypoint } : {}),
    bindings,
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: false,
      logLevel: options.logLevel ?? 'warn',
      persist: options.persistTo ?? false,
      watch: false,
      liveReload: false,
      ...(options.registry ? { registry: options.registry } : {}),
    },
  });
  await worker.ready;
  return worker;
}
