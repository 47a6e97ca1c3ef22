import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { seedAuthDevAccount } from './auth-admin.ts';
import { asVarFlags, devServiceVars } from './dev-service-vars.ts';
import { seedCmsDevData } from './cms-seed.ts';
import { seedMigrateExampleSheets } from './migrate-example-sheets.ts';
import { seedMigrateAuthAccounts, seedMigrateDevData } from './migrate-seed.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { type GraphStandin, startGraphStandin } from './graph-standin/server.ts';
import { racingToday } from './racing-today.ts';
import { DEV_LEGACY_CONNECTION, legacyDatasetInfo, loadLegacy } from './racing/legacy-load.ts';
import { type PasswordFront, startPasswordFront } from './racing/legacy-password.ts';
import { loadRacing, racingDatasetInfo } from './racing/load.ts';
import { startRelay } from './relay.ts';
import { whenLaunchersGone } from './dev-launchers.ts';
import { DEV_GRAPH_STANDIN_PORT, DEV_LEGACY_PORT, DEV_PG_PORT, DEV_RELAY_PORT, assertPortsFree, devPortOffset, devStackPorts, inspectorPort } from './ports.ts';
import { spawnWatched, stopWatched, sweepWatched } from './watched-process.ts';
import { useWorkerdV8Flags } from './workerd-v8/index.ts';
// Nothing here may import the wrangler package: loading it installs a SIGINT handler that exits
// at once, and Ctrl-C would leave every `wrangler dev` running.
import { ROOT, applyLocalD1Migrations, devStateDir, landedWorkers, localDevConfig, workerBindings, wranglerBin, type WorkerInfo } from './workers.ts';

const STALE_AFTER_DAYS = 3;
/** However a stop goes (a hung close, say), the runner exits within this. */
const SHUTDOWN_DEADLINE_MS = 20_000;

/**
 * How far this stack's ports are moved from the fixed ones (`--port-offset N` or DEV_PORT_OFFSET):
 * a second stack beside `npm run dev`, every Worker given its moved addresses. Read first in main.
 */
let offset = 0;

/**
 * Where this stack keeps its state: the repository's `.data` and `.wrangler/state` with wrangler's
 * own dev registry, or with `--state-dir DIR` (DEV_STATE_DIR; `.data/port-offset-N` for an offset
 * without one) everything under DIR, its registry too, so its Workers' service bindings reach each
 * other and never a Worker of the same name in another stack.
 */
let state: DevState = devState([], {}, 0);

/** The legacy source as this stack's Workers reach it: its password front's port moves with the offset. */
const legacyConnection = () => ({ ...DEV_LEGACY_CONNECTION, port: DEV_LEGACY_PORT + offset });

type SeedContext = { databaseUrl: string };

/**
 * Development data a service's local D1 gets after its migrations (idempotent): what it seeded,
 * for the start-up log. Seeds run from here, so no seeding code is deployed.
 */
const DEV_SEEDS: Partial<Record<WorkerInfo['name'], (persistTo: string, context: SeedContext) => Promise<string> | string>> = {
  auth: async (persistTo) => {
    await seedAuthDevAccount(persistTo);
    return 'development account demo@example.com (see workers/auth/README.md)';
  },
  cms: (persistTo) => {
    const content = seedCmsDevData(persistTo);
    return `development content: ${content.sites.length} sites, ${content.stories.length} stories (see workers/cms/README.md)`;
  },
  migrate: async (persistTo, { databaseUrl }) => {
    await seedMigrateAuthAccounts(workerState('auth'));
    await seedMigrateDevData(legacyConnection(), persistTo);
    const examples = await seedMigrateExampleSheets(databaseUrl, persistTo);
    return `active configuration on the legacy source database, a sync job of its trainers every 5 minutes; Operator and Viewer accounts (see workers/migrate/README.md); ${examples}`;
  },
};

const children: ChildProcessWithoutNullStreams[] = [];
let embedded: EmbeddedPostgres | undefined;
let embeddedLegacy: EmbeddedPostgres | undefined;
let legacyFront: PasswordFront | undefined;
let closeRelay: (() => Promise<void>) | undefined;
let graphStandin: GraphStandin | undefined;
let shuttingDown = false;

async function main() {
  const forceReload = process.argv.includes('--reload-data');
  // Seven workerd processes and the embedded databases share the machine: V8 without background
  // threads cannot livelock between them (see vitest.config.ts and scripts/workerd-v8).
  useWorkerdV8Flags(['--single-threaded']);
  offset = devPortOffset(process.argv);
  state = devState(process.argv, process.env, offset);
  const selected = selectedWorkers(landedWorkers(), process.argv);
  await assertPortsFree(
    devStackPorts({
      workers: selected,
      offset,
      embeddedDatabase: !process.env.DATABASE_URL,
      embeddedLegacy: !process.env.LEGACY_DATABASE_URL,
      graphStandin: selected.some((worker) => worker.name === 'mail'),
    }),
  );
  const workers = selected.map((worker) => ({ ...worker, port: worker.port + offset }));
  if (state.dir) step(`state      ${shown(state.dir)}${offset ? `; every port moved by ${offset}` : ''}`);
  for (const worker of workers) createDevVars(worker);

  const databaseUrl = process.env.DATABASE_URL ?? (await startEmbedded());
  await ensureDemoData(databaseUrl, forceReload);
  const legacyUrl = process.env.LEGACY_DATABASE_URL ?? (await startEmbeddedLegacy());
  await ensureLegacyData(legacyUrl, (await racingDatasetInfo(databaseUrl))?.today ?? racingToday(), forceReload);
  // The relay reaches the two dev databases only (RELAY_ALLOWED_UPSTREAMS adds more).
  const relay = await startRelay({ port: DEV_RELAY_PORT + offset, allow: [databaseUrl, legacyUrl] });
  closeRelay = relay.close;
  step(`relay      ${relay.address}/v1?address=host:port`);

  for (const worker of workers) applyD1Migrations(worker);
  for (const worker of workers) {
    const seed = DEV_SEEDS[worker.name];
    if (seed) step(`d1         ${worker.name} ${await seed(workerState(worker.name), { databaseUrl })}`);
  }
  // Passed on the command line: a wrangler.toml with `secrets.required` loads only the secrets it
  // names from .dev.vars, and the relay address is a local-only setting, not a secret.
  const vars = ['--var', `PG_WS_PROXY:${relay.address}`];
  // .dev.vars names the database on its fixed port: a moved stack names its own.
  if (process.env.DATABASE_URL || offset) vars.push('--var', `DATABASE_URL:${databaseUrl}`);
  // The mail assistant reaches Microsoft Graph and the identity platform through the stand-in,
  // whose seeded mailbox the Worker connects by itself.
  if (workers.some((worker) => worker.name === 'mail')) {
    graphStandin = await startGraphStandin({ port: DEV_GRAPH_STANDIN_PORT + offset });
    step(`graph      Microsoft Graph stand-in at ${graphStandin.graphBaseUrl} (see scripts/graph-standin/README.md)`);
  }
  const extra = devServiceVars({
    legacyDatabaseUrl: legacyUrl,
    embeddedRacingDatabase: !process.env.DATABASE_URL,
    graphStandin: graphStandin?.identityBaseUrl ?? `http://127.0.0.1:${DEV_GRAPH_STANDIN_PORT + offset}`,
  });
  const serviceVars: Partial<Record<WorkerInfo['name'], string[]>> = {
    // `--test-scheduled` serves /__scheduled, through which the tick below reaches the Cron Trigger's handler.
    migrate: [...asVarFlags(extra.migrate), '--test-scheduled'],
    // `--local`: its Workers AI binding is always remote, and would need a Cloudflare login to start.
    mail: [...asVarFlags(extra.mail), '--local'],
  };
  await Promise.all(workers.map((worker) => startWorker(worker, [...vars, ...(serviceVars[worker.name] ?? [])])));
  // Local workerd does not fire Cron Triggers: the migration app's sync jobs get their minute tick
  // here, the first one at once. (`/cdn-cgi/handler/scheduled` fails with "exception" in wrangler
  // dev for a Worker with static assets; `--test-scheduled`'s `/__scheduled` reaches the handler.)
  const migrate = workers.find((worker) => worker.name === 'migrate');
  if (migrate) {
    const tick = () => void fetch(`http://127.0.0.1:${migrate.port}/__scheduled?cron=${encodeURIComponent('* * * * *')}`).catch(() => undefined);
    tick();
    setInterval(tick, 60_000).unref();
    step('cron       migrate: the sync job schedule ticks every minute');
  }

  console.log('\nServing:');
  for (const worker of workers) console.log(`  ${worker.title.padEnd(42)} http://localhost:${worker.port}`);
  console.log(`  ${'Racing Postgres'.padEnd(42)} ${redact(databaseUrl)}`);
  console.log(`  ${'Legacy source Postgres (migration app)'.padEnd(42)} ${redact(legacyUrl)}`);
  if (graphStandin) console.log(`  ${'Microsoft Graph stand-in'.padEnd(42)} ${graphStandin.url}/_standin`);
  console.log(`\nCtrl-C (or kill ${process.pid}) stops everything.`);
}

/** `--only auth,router`: serve only the Workers named (the databases, relay and seeds as always). */
function selectedWorkers(all: WorkerInfo[], argv: readonly string[]): WorkerInfo[] {
  const at = argv.indexOf('--only');
  if (at < 0) return all;
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !all.some((worker) => worker.name === name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes Worker names, comma-separated, of ${all.map((worker) => worker.name).join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`);
  }
  return all.filter((worker) => names.includes(worker.name));
}

type DevState = {
  /** The folder given (or chosen for an offset); none for the repository's own places. */
  dir?: string;
  pglite: string;
  pgliteLegacy: string;
  /** wrangler's dev registry (WRANGLER_REGISTRY_PATH); wrangler's global one when undefined. */
  registry?: string;
};

function devState(argv: readonly string[], env: NodeJS.ProcessEnv, offset: number): DevState {
  const at = argv.indexOf('--state-dir');
  const given = at >= 0 ? argv[at + 1] : env.DEV_STATE_DIR || undefined;
  if (at >= 0 && (!given || given.startsWith('--'))) throw new Error('--state-dir takes a folder');
  // Relative to where `npm run dev` was typed (npm runs this from the repository's root).
  const dir = given ? resolve(env.INIT_CWD ?? process.cwd(), given) : offset ? join(ROOT, '.data', `port-offset-${offset}`) : undefined;
  if (!dir) return { pglite: join(ROOT, '.data', 'pglite'), pgliteLegacy: join(ROOT, '.data', 'pglite-legacy') };
  return { dir, pglite: join(dir, 'pglite'), pgliteLegacy: join(dir, 'pglite-legacy'), registry: join(dir, 'registry') };
}

/** A Worker's local D1, R2 and Durable Object state in this stack. */
function workerState(name: WorkerInfo['name']): string {
  return state.dir ? join(state.dir, 'wrangler', name) : devStateDir(name);
}

/** A path as the log shows it: relative inside the repository. */
const shown = (path: string) => (path.startsWith(`${ROOT}/`) ? relative(ROOT, path) : path);

function createDevVars(worker: WorkerInfo) {
  const dir = dirname(join(ROOT, worker.config));
  const example = join(dir, '.dev.vars.example');
  const target = join(dir, '.dev.vars');
  if (existsSync(example) && !existsSync(target)) {
    copyFileSync(example, target);
    step(`created ${target.slice(ROOT.length + 1)} from .dev.vars.example`);
  }
}

async function startEmbedded(): Promise<string> {
  embedded = await startEmbeddedPostgres({ dataDir: state.pglite, port: DEV_PG_PORT + offset });
  step(`postgres   embedded PGlite at ${embedded.url} (data in ${shown(state.pglite)})`);
  return embedded.url;
}

/**
 * The migration app's source: a second embedded database (see scripts/racing/legacy.ts) behind a
 * front on its port (54330, moved by the offset) that checks its password, as a real server would (PGlite takes any).
 */
async function startEmbeddedLegacy(): Promise<string> {
  embeddedLegacy = await startEmbeddedPostgres({ dataDir: state.pgliteLegacy });
  legacyFront = await startPasswordFront({
    upstream: { host: '127.0.0.1', port: embeddedLegacy.port },
    user: DEV_LEGACY_CONNECTION.username,
    password: DEV_LEGACY_CONNECTION.password,
    database: DEV_LEGACY_CONNECTION.database,
    port: legacyConnection().port,
  });
  step(`legacy     embedded PGlite behind a password check at ${redact(legacyFront.url)} (data in ${shown(state.pgliteLegacy)})`);
  return legacyFront.url;
}

/** The same world as the racing data (anchored on its day), in the old system's shape, a few days ahead of it. */
async function ensureLegacyData(legacyUrl: string, today: string, force: boolean) {
  const info = await legacyDatasetInfo(legacyUrl);
  if (!force && info && info.size === 'demo' && info.today === today) {
    step(`legacy     demo data anchored on ${info.today} already loaded`);
    return;
  }
  step(`legacy     loading the old system's demo data anchored on ${today}…`);
  const { elapsedMs } = await loadLegacy(legacyUrl, { size: 'demo', today });
  step(`legacy     loaded in ${(elapsedMs / 1000).toFixed(1)} s (source for the migration app: ${legacyConnection().host}:${legacyConnection().port})`);
}

async function ensureDemoData(databaseUrl: string, force: boolean) {
  const today = racingToday();
  const info = await racingDatasetInfo(databaseUrl);
  const ageDays = info ? (Date.parse(today) - Date.parse(info.today)) / 86_400_000 : Infinity;
  // `tiny` (left by a test run against the same server) is too small to try pages with.
  // Data loaded before a racing migration added a table lacks it: load again with today's schema.
  const schemaCurrent = info !== null && info.missingTables.length === 0;
  if (!force && info && schemaCurrent && info.size !== 'tiny' && ageDays <= STALE_AFTER_DAYS) {
    step(`racing     ${info.size} data anchored on ${info.today} already loaded`);
    return;
  }
  if (info && !schemaCurrent) step(`racing     the loaded data predates the schema (no ${info.missingTables.join(', ')}): loading again`);
  step(`racing     loading demo data anchored on ${today} (first run takes up to a minute)…`);
  const { elapsedMs } = await loadRacing(databaseUrl, { size: 'demo', today }, (p) => {
    if (process.stdout.isTTY) process.stdout.write(`\r           ${p.table}: ${p.rows}${p.total === undefined ? '' : `/${p.total}`}   `);
  });
  if (process.stdout.isTTY) process.stdout.write('\n');
  step(`racing     demo data loaded in ${(elapsedMs / 1000).toFixed(1)} s`);
}

function applyD1Migrations(worker: WorkerInfo) {
  for (const database of workerBindings(worker).d1) {
    applyLocalD1Migrations(worker.config, database.binding, workerState(worker.name));
    step(`d1         ${worker.name}/${database.binding} migrations applied`);
  }
}

function startWorker(worker: WorkerInfo, vars: string[]): Promise<void> {
  const args = ['dev', '-c', localDevConfig(worker), '--port', String(worker.port), '--ip', '127.0.0.1'];
  args.push('--inspector-port', String(inspectorPort(worker.port)), '--persist-to', workerState(worker.name), '--show-interactive-dev-session=false', ...vars);
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', ...(state.registry ? { WRANGLER_REGISTRY_PATH: state.registry } : {}) };
  // Under a watchdog that ends wrangler, its inner process and workerd when this runner is gone.
  const child = spawnWatched(wranglerBin(), args, { cwd: ROOT, env });
  children.push(child);
  return new Promise((resolve, reject) => {
    const prefix = `[${worker.name}]`.padEnd(10);
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim()) console.log(`${prefix} ${line}`);
        if (line.includes('Ready on')) resolve();
      }
    };
    child.stdout.on('data', onLine);
    child.stderr.on('data', onLine);
    child.on('exit', (code) => {
      const error = new Error(`${worker.name} (wrangler dev) exited with code ${code}`);
      reject(error);
      // After start-up too: one service dying takes the whole dev session down, loudly.
      if (!shuttingDown) {
        sweepWatched(child);
        console.error(`\n✗ ${error.message}`);
        void shutdown(1);
      }
    });
  });
}

function step(message: string) {
  console.log(`• ${message}`);
}

function redact(url: string) {
  return url.replace(/:\/\/([^:@/]+):[^@/]+@/, '://$1:***@');
}

async function shutdown(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  setTimeout(() => process.exit(code), SHUTDOWN_DEADLINE_MS).unref();
  try {
    await Promise.all(children.map(stopWatched));
    await closeRelay?.();
    await graphStandin?.close();
    await embedded?.close();
    await legacyFront?.close();
    await embeddedLegacy?.close();
  } finally {
    process.exit(code);
  }
}

/** Stops everything after an error: a start-up failure's message, or a crash's whole stack. */
function fail(err: unknown, crashed = false) {
  console.error(`\n✗ ${err instanceof Error ? ((crashed && err.stack) || err.message) : String(err)}`);
  void shutdown(1);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
// A crash stops the stack in order too (and were this process killed outright, the watchdogs would).
process.on('uncaughtException', (err) => fail(err, true));
process.on('unhandledRejection', (err) => fail(err, true));
// Whatever ends this process, nothing it started keeps running in a Worker's process group.
process.on('exit', () => children.forEach(sweepWatched));
whenLaunchersGone((pid) => {
  console.error(`\n✗ the process that started the dev runner (pid ${pid}) has ended: stopping everything`);
  void shutdown(1);
});
main().catch((err: unknown) => fail(err));
