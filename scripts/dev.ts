import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { seedAuthDevAccount } from './auth-admin.ts';
import { asVarFlags, devServiceVars } from './dev-service-vars.ts';
import { readDevVars } from './dev-vars.ts';
import { seedCmsDevData } from './cms-seed.ts';
import { seedMigrateExampleSheets } from './migrate-example-sheets.ts';
import { seedMigrateAuthAccounts, seedMigrateDevData } from './migrate-seed.ts';
import {
  type DevDependencies,
  type DevState,
  devDependencies,
  devLifecycle,
  devState,
  legacyConnection,
  prepareDevStack,
  step,
} from './dev-dependencies.ts';
import { inspectorPort } from './ports.ts';
import { spawnWatched, stopWatched, sweepWatched } from './watched-process.ts';
import { useWorkerdV8Flags } from './workerd-v8/index.ts';
// Nothing here may import the wrangler package: loading it installs a SIGINT handler that exits
// at once, and Ctrl-C would leave every `wrangler dev` running.
import { ROOT, applyLocalD1Migrations, devStateDir, localDevConfig, workerBindings, wranglerBin, type WorkerInfo } from './workers.ts';

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
    await seedMigrateDevData(legacyConnection(offset), persistTo);
    const examples = await seedMigrateExampleSheets(databaseUrl, persistTo);
    return `active configuration on the legacy source database, a sync job of its trainers every 5 minutes; Operator and Viewer accounts (see workers/migrate/README.md); ${examples}`;
  },
};

const children: ChildProcessWithoutNullStreams[] = [];
/** The databases, relay and Graph stand-in (scripts/dev-dependencies.ts), shared with `npm run dev:deno`. */
let dependencies: DevDependencies | undefined;
/** Whatever ends this process, nothing it started keeps running in a Worker's process group. */
const lifecycle = devLifecycle(
  async () => {
    await Promise.all(children.map(stopWatched));
    await dependencies?.close();
  },
  () => children.forEach(sweepWatched),
);

async function main() {
  const forceReload = process.argv.includes('--reload-data');
  // Seven workerd processes and the embedded databases share the machine: V8 without background
  // threads cannot livelock between them (see vitest.config.ts and scripts/workerd-v8).
  useWorkerdV8Flags(['--single-threaded']);
  const prepared = await prepareDevStack(process.argv, { inspectors: true });
  ({ offset, state } = prepared);
  const workers = prepared.selected.map((worker) => ({ ...worker, port: worker.port + offset }));
  for (const worker of workers) createDevVars(worker);

  dependencies = devDependencies({ offset, state, forceReload, graphStandin: workers.some((worker) => worker.name === 'mail') });
  const running = await dependencies.start();
  const { databaseUrl, legacyUrl } = running;

  for (const worker of workers) applyD1Migrations(worker);
  for (const worker of workers) {
    const seed = DEV_SEEDS[worker.name];
    if (seed) step(`d1         ${worker.name} ${await seed(workerState(worker.name), { databaseUrl })}`);
  }
  // Passed on the command line: a wrangler.toml with `secrets.required` loads only the secrets it
  // names from .dev.vars, and the relay address is a local-only setting, not a secret.
  const vars = ['--var', `PG_WS_PROXY:${running.relayAddress}`];
  // .dev.vars names the database on its fixed port: a moved stack names its own.
  if (process.env.DATABASE_URL || offset) vars.push('--var', `DATABASE_URL:${databaseUrl}`);
  const extra = devServiceVars({
    legacyDatabaseUrl: legacyUrl,
    embeddedRacingDatabase: running.embeddedDatabase,
    graphStandin: running.graphStandinUrl,
    mailDevVars: readDevVars(join(ROOT, 'workers', 'mail')).vars,
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
    const tick = () =>
      void fetch(`http://127.0.0.1:${migrate.port}/__scheduled?cron=${encodeURIComponent('* * * * *')}`).catch(() => undefined);
    tick();
    setInterval(tick, 60_000).unref();
    step('cron       migrate: the sync job schedule ticks every minute');
  }

  console.log('\nServing:');
  for (const worker of workers) console.log(`  ${worker.title.padEnd(42)} http://localhost:${worker.port}`);
  for (const line of dependencies.describe(running)) console.log(line);
  console.log(`\nCtrl-C (or kill ${process.pid}) stops everything.`);
}

/** A Worker's local D1, R2 and Durable Object state in this stack. */
function workerState(name: WorkerInfo['name']): string {
  return state.dir ? join(state.dir, 'wrangler', name) : devStateDir(name);
}

function createDevVars(worker: WorkerInfo) {
  const dir = dirname(join(ROOT, worker.config));
  const example = join(dir, '.dev.vars.example');
  const target = join(dir, '.dev.vars');
  if (existsSync(example) && !existsSync(target)) {
    copyFileSync(example, target);
    step(`created ${target.slice(ROOT.length + 1)} from .dev.vars.example`);
  }
}

function applyD1Migrations(worker: WorkerInfo) {
  for (const database of workerBindings(worker).d1) {
    applyLocalD1Migrations(worker.config, database.binding, workerState(worker.name));
    step(`d1         ${worker.name}/${database.binding} migrations applied`);
  }
}

function startWorker(worker: WorkerInfo, vars: string[]): Promise<void> {
  const args = ['dev', '-c', localDevConfig(worker), '--port', String(worker.port), '--ip', '127.0.0.1'];
  args.push(
    '--inspector-port',
    String(inspectorPort(worker.port)),
    '--persist-to',
    workerState(worker.name),
    '--show-interactive-dev-session=false',
    ...vars,
  );
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
      if (!lifecycle.stopping) {
        sweepWatched(child);
        console.error(`\n✗ ${error.message}`);
        void lifecycle.shutdown(1);
      }
    });
  });
}

main().catch((err: unknown) => lifecycle.fail(err));
