import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { applyLocalD1MigrationsDirect, executeLocalD1 } from './d1-local.ts';
import { ROUTER_PORT, SERVICES, type ServiceName } from '#shared/services.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export type WorkerInfo = {
  name: ServiceName | 'router';
  /** wrangler config, relative to the repository root */
  config: string;
  /** where `wrangler types` writes the Env declaration */
  typesFile: string;
  port: number;
  title: string;
};

/** The router plus every service that has landed (has its own wrangler.toml). */
export function landedWorkers(): WorkerInfo[] {
  const services = (Object.keys(SERVICES) as ServiceName[])
    .filter((name) => existsSync(join(ROOT, 'workers', name, 'wrangler.toml')))
    .map((name) => ({
      name,
      config: `workers/${name}/wrangler.toml`,
      typesFile: `workers/${name}/worker-configuration.d.ts`,
      port: SERVICES[name].port,
      title: SERVICES[name].title,
    }));
  const router: WorkerInfo = {
    name: 'router',
    config: 'wrangler.toml',
    typesFile: 'workers/router/worker-configuration.d.ts',
    port: ROUTER_PORT,
    title: 'Router (picks the service by host name or path prefix)',
  };
  return [...services, router];
}

/**
 * Where `npm run dev` keeps a Worker's local D1, R2 and Durable Object state: one folder per Worker,
 * because local storage is keyed by binding name (every service calls its D1 database `DB`).
 */
export function devStateDir(name: WorkerInfo['name']): string {
  return join(ROOT, '.wrangler', 'state', name);
}

/**
 * The config `wrangler dev` is given: the Worker's own without its production `routes`. With routes,
 * wrangler dev rewrites every request's URL to the first route's host, so local links, redirects and
 * Origin checks would name the production host. Written beside the original so relative paths hold.
 */
export function localDevConfig(worker: WorkerInfo): string {
  const text = readFileSync(join(ROOT, worker.config), 'utf8');
  const withoutRoutes = text.replace(/^routes = \[[\s\S]*?^\]\n/m, '');
  if (withoutRoutes === text) return worker.config;
  const path = join(dirname(worker.config), '.wrangler-local.toml');
  // Unchanged, it is not written: a `wrangler dev` running on it (another stack's) reloads on any write.
  const current = existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined;
  if (current !== withoutRoutes) writeFileSync(join(ROOT, path), withoutRoutes);
  return path;
}

/** The Cron Triggers a wrangler config declares. */
export function configCrons(config: string): string[] {
  const { triggers } = parse(readFileSync(isAbsolute(config) ? config : join(ROOT, config), 'utf8'));
  const crons = typeof triggers === 'object' && triggers !== null && 'crons' in triggers ? triggers.crons : [];
  return Array.isArray(crons) ? crons.filter((cron): cron is string => typeof cron === 'string') : [];
}

/** A Worker's production route patterns (`host/path*`), as its wrangler.toml declares them. */
export function workerRoutes(worker: WorkerInfo): string[] {
  const { routes } = parse(readFileSync(join(ROOT, worker.config), 'utf8'));
  if (!Array.isArray(routes)) return [];
  return routes.flatMap((route) =>
    typeof route === 'string'
      ? [route]
      : typeof route === 'object' && route !== null && 'pattern' in route && typeof route.pattern === 'string'
        ? [route.pattern]
        : [],
  );
}

export function wranglerBin(): string {
  return join(ROOT, 'node_modules', '.bin', 'wrangler');
}

export type WorkerBindings = { d1: { binding: string; databaseName?: string }[]; requiredSecrets: string[] };

/**
 * What the dev runner and deploy need from a Worker's wrangler.toml. Read as plain TOML:
 * importing wrangler's own reader installs a SIGINT handler that exits the process at once.
 */
export function workerBindings(worker: WorkerInfo): WorkerBindings {
  const config = parse(readFileSync(join(ROOT, worker.config), 'utf8'));
  const d1 = Array.isArray(config.d1_databases) ? config.d1_databases : [];
  const secrets = config.secrets;
  const required = typeof secrets === 'object' && secrets !== null && 'required' in secrets ? secrets.required : [];
  return {
    d1: d1.flatMap((db) =>
      typeof db === 'object' && db !== null && 'binding' in db && typeof db.binding === 'string'
        ? [
            {
              binding: db.binding,
              databaseName: 'database_name' in db && typeof db.database_name === 'string' ? db.database_name : undefined,
            },
          ]
        : [],
    ),
    requiredSecrets: Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [],
  };
}

/**
 * Applies a Worker's D1 migrations to local storage under `persistTo` (what `wrangler dev` reads),
 * as `wrangler d1 migrations apply --local` does, without starting wrangler (scripts/d1-local.ts).
 */
export function applyLocalD1Migrations(config: string, binding: string, persistTo: string): void {
  try {
    applyLocalD1MigrationsDirect(config, binding, persistTo);
  } catch (error) {
    throw new Error(`D1 migrations ${binding} (${config}) failed:\n${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Runs SQL statements against a Worker's D1 database, in one transaction: the local state under
 * `persistTo` as `wrangler d1 execute --local` would (scripts/d1-local.ts, no wrangler started), or
 * with `remote` the deployed database through `wrangler d1 execute --remote --file`.
 */
export function executeD1(config: string, binding: string, statements: string[], target: { remote?: boolean; persistTo?: string }): void {
  if (!target.remote) {
    executeLocalD1(config, binding, statements, target.persistTo);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'd1-sql-'));
  const file = join(dir, 'statements.sql');
  writeFileSync(file, statements.map((s) => `${s};`).join('\n'));
  try {
    const run = spawnSync(wranglerBin(), ['d1', 'execute', binding, '--remote', '-c', config, '--file', file, '--yes'], {
      cwd: ROOT,
      encoding: 'utf8',
      // CI=true: no prompts. Seeds of many rows print a lot.
      env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`wrangler d1 execute failed:\n${run.stdout}${run.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
