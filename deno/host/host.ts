// The Deno host: loads each Worker's own entry module (workers/<service>/src/index.ts), gives it
// an env made from its wrangler.toml with the adapters, and serves it on its port. Requests go
// as on Cloudflare: static assets first (unless `run_worker_first`), then the Worker's `fetch`
// with an ExecutionContext; Cron Triggers call `scheduled()`.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CacheStorage, installCaches } from '../adapters/cache.ts';
import { StaticAssets } from './assets.ts';
import { createBindings, type Fetch, type WorkerBindings } from './bindings.ts';
import { registerCrons, runScheduled, type ScheduledHandler } from './cron.ts';
import { readDevVars } from './dev-vars.ts';
import { drain, HostExecutionContext } from './execution-context.ts';
import { installFixedLengthStream } from './fixed-length-stream.ts';
import { readWorkerConfig, workerConfigPath, type WorkerConfig } from './wrangler-config.ts';
import { SERVICES } from '#shared/services.ts';

export const SERVICE_NAMES = Object.keys(SERVICES) as (keyof typeof SERVICES)[];
export const ROUTER_PORT = 8787;

/** The dev runner's fixed relay address (scripts/dev.ts): what PG_WS_PROXY defaults to. */
export const DEV_RELAY = 'ws://127.0.0.1:8790';

export interface HostOptions {
  /** services to serve (default: every service with a wrangler.toml, and the router) */
  services?: string[];
  /** port per service (default: the dev runner's, workers/shared/services.ts) */
  ports?: Record<string, number>;
  hostname?: string;
  stateDir: string;
  /** `--var` values for every service */
  vars?: Record<string, string>;
  /** `--var` values for one service */
  serviceVars?: Record<string, Record<string, string>>;
  /** answer `/__scheduled?cron=…` as `wrangler dev --test-scheduled` does */
  testScheduled?: boolean;
  /** run Cron Triggers with Deno.cron (default true) */
  crons?: boolean;
  /** after start-up, with each service's D1 handles (the development seeds) */
  seed?: (service: RunningService) => Promise<string | undefined>;
  log?: (line: string) => void;
}

type Handler = { fetch?: (request: Request, env: unknown, ctx: unknown) => Response | Promise<Response>; scheduled?: ScheduledHandler };

export interface RunningService {
  name: string;
  config: WorkerConfig;
  port: number;
  url: string;
  bindings: WorkerBindings;
  /** a request as the service receives it from the network or a service binding */
  dispatch: Fetch;
  scheduled(cron: string): Promise<{ outcome: 'ok' | 'exception'; error?: string }>;
}

export interface Host {
  services: Map<string, RunningService>;
  close(): Promise<void>;
}

let installed = false;
/**
 * The Workers-only globals the code uses: FixedLengthStream once per process; `caches` over Deno's
 * own, its cache names put after the state directory so hosts of two state directories keep apart
 * (as `npm run dev` keeps each Worker's cache in its own state folder).
 */
export function installPolyfills(stateDir: string): void {
  if (!installed) installFixedLengthStream();
  installed = true;
  installCaches(new CacheStorage({ prefix: `${stateDir}#` }));
}

export function landedServices(): string[] {
  return SERVICE_NAMES.filter((name) => {
    try {
      return Deno.statSync(workerConfigPath(name)).isFile;
    } catch {
      return false;
    }
  });
}

export function defaultPort(name: string): number {
  return name === 'router' ? ROUTER_PORT : SERVICES[name as keyof typeof SERVICES].port;
}

export async function startHost(options: HostOptions): Promise<Host> {
  const stateDir = resolve(options.stateDir);
  installPolyfills(stateDir);
  const log = options.log ?? ((line: string) => console.log(line));
  const names = options.services ?? [...landedServices(), 'router'];
  const services = new Map<string, RunningService>();
  const pending = new Map<string, Set<Promise<unknown>>>();
  const servers: Deno.HttpServer[] = [];
  const cronStop = new AbortController();
  const crons: Promise<void>[] = [];

  for (const name of names) {
    const config = readWorkerConfig(workerConfigPath(name));
    const module = (await import(pathToFileURL(config.main).href)) as Record<string, unknown>;
    const handler = module.default as Handler;
    if (!handler || (typeof handler.fetch !== 'function' && typeof handler.scheduled !== 'function'))
      throw new Error(`${name}: ${config.main} has no default export with fetch() or scheduled()`);
    const assets = config.assets ? new StaticAssets(config.assets.directory) : undefined;
    const overrides = { ...options.vars, ...options.serviceVars?.[name] };
    const bindings = await createBindings(config, {
      stateDir,
      devVars: readDevVars(config.configPath).vars,
      overrides,
      module,
      assets,
      service: (target) => (names.includes(target) ? (request) => services.get(target)!.dispatch(request) : undefined),
    });
    const waiting = new Set<Promise<unknown>>();
    pending.set(name, waiting);
    const context = () => new HostExecutionContext(waiting, name);

    const scheduled = (cron: string) =>
      handler.scheduled
        ? runScheduled(name, handler.scheduled, cron, bindings.env, context())
        : Promise.resolve({ outcome: 'exception' as const, error: 'no scheduled handler' });

    const dispatch: Fetch = async (request) => {
      if (assets && !config.assets?.runWorkerFirst) {
        const asset = await assets.match(request);
        if (asset) return asset;
      }
      if (options.testScheduled && handler.scheduled && new URL(request.url).pathname === '/__scheduled') {
        const result = await scheduled(new URL(request.url).searchParams.get('cron') ?? '');
        return new Response(result.outcome === 'ok' ? 'Ran scheduled event' : `Scheduled event failed: ${result.error}`, {
          status: result.outcome === 'ok' ? 200 : 500,
        });
      }
      if (!handler.fetch) return assets ? assets.fetch(request) : new Response('Not Found', { status: 404 });
      try {
        return await handler.fetch(request, bindings.env, context());
      } catch (error) {
        console.error(`[${name}] uncaught exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      }
    };
    const port = options.ports?.[name] ?? defaultPort(name);
    const service: RunningService = { name, config, port, url: '', bindings, dispatch, scheduled };
    services.set(name, service);
    if (options.crons !== false && handler.scheduled && config.crons.length) {
      crons.push(...registerCrons(name, config.crons, scheduled, cronStop.signal));
    }
  }

  if (options.seed) {
    for (const service of services.values()) {
      const done = await options.seed(service);
      if (done) log(`• seed       ${service.name}: ${done}`);
    }
  }

  for (const service of services.values()) {
    const hostname = options.hostname ?? '127.0.0.1';
    const server = Deno.serve({ port: service.port, hostname, onListen: () => {} }, (request, info) => {
      // As wrangler dev and Cloudflare's edge do: the caller's address for the Workers' throttles.
      // (A new request, not a copy: a copy would follow the incoming signal, which Deno.serve aborts
      // once the response is sent.)
      const headers = new Headers(request.headers);
      headers.set('cf-connecting-ip', info.remoteAddr.transport === 'tcp' ? info.remoteAddr.hostname : '127.0.0.1');
      const body = request.method === 'GET' || request.method === 'HEAD' ? null : request.body;
      return service.dispatch(
        new Request(request.url, { method: request.method, headers, body, redirect: 'manual', ...(body ? { duplex: 'half' } : {}) }),
      );
    });
    servers.push(server);
    service.url = `http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${server.addr.port}`;
    service.port = server.addr.port;
  }

  return {
    services,
    async close() {
      cronStop.abort();
      await Promise.all(crons);
      await Promise.all(servers.map((server) => server.shutdown()));
      for (const waiting of pending.values()) await drain(waiting);
      for (const service of services.values()) await service.bindings.close();
    },
  };
}

/** Where state lives when none is given: `.data/deno` under the working directory. */
export function defaultStateDir(): string {
  return join(Deno.cwd(), '.data', 'deno');
}
