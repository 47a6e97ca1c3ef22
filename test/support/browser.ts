import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { startLocalWorker } from '../../scripts/local-worker';
import { ROOT } from '../../scripts/workers';

/** Debian's Chromium; `.ci/run` installs it (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** True where browser tests can run. CI always runs them: a missing browser fails there. */
export const haveChromium = existsSync(CHROMIUM_PATH) || process.env.CI === 'true';

/** Headless Chromium with the flags this closed network needs (no background look-ups). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export interface RunningWorker {
  /** `http://127.0.0.1:PORT`, for a browser. */
  url: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/**
 * Starts `workers/<service>/wrangler.toml` in local workerd on a free port, with `vars` overriding
 * its plain-text bindings and storage kept in memory (or under `persistTo`), the way `wrangler dev`
 * would serve it.
 */
/** The router (the top-level wrangler.toml), reaching the services started with the same dev registry. */
export async function startRouterWorker(options: { registry: string; ready: string }): Promise<RunningWorker> {
  const router = await running(
    await startLocalWorker({ config: join(ROOT, 'wrangler.toml'), logLevel: 'error', registry: options.registry }),
  );
  // The registry is read in the background: until it has the service, the binding answers 503.
  for (let tries = 0; tries < 40 && (await router.fetch(options.ready)).status === 503; tries++)
    await new Promise((resolve) => setTimeout(resolve, 250));
  return router;
}

async function running(worker: Awaited<ReturnType<typeof startLocalWorker>>): Promise<RunningWorker> {
  const url = (await worker.url).toString().replace(/\/$/, '');
  return {
    url,
    fetch: (path, init) => fetch(`${url}${path}`, { redirect: 'manual', ...init }),
    dispose: () => worker.dispose(),
  };
}

export async function startServiceWorker(
  service: string,
  vars: Record<string, string>,
  options: { persistTo?: string; logLevel?: 'error' | 'warn'; registry?: string } = {},
): Promise<RunningWorker> {
  return running(await startLocalWorker({ config: join(ROOT, 'workers', service, 'wrangler.toml'), vars, ...options }));
}
