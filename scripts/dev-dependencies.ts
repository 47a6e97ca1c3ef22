// What the Workers need running beside them locally, whichever runtime serves them: the embedded
// racing database and the migration app's legacy source (with their demo data), the Postgres relay
// and the Microsoft Graph stand-in; the options that place a stack (--port-offset, --state-dir,
// --only); and how a dev command stops everything it started, however it stops. `npm run dev`
// (scripts/dev.ts, Workers in local workerd) and `npm run dev:deno` (scripts/dev-deno.ts, the Deno
// host) both start their stack from here.
import { join, relative, resolve } from 'node:path';
import { whenLaunchersGone } from './dev-launchers.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { type GraphStandin, startGraphStandin } from './graph-standin/server.ts';
import { writeGeneratedFiles } from './asset-manifest.ts';
import {
  DEV_GRAPH_STANDIN_PORT,
  DEV_LEGACY_PORT,
  DEV_PG_PORT,
  DEV_RELAY_PORT,
  assertPortsFree,
  devPortOffset,
  devStackPorts,
} from './ports.ts';
import { racingToday } from './racing-today.ts';
import { DEV_LEGACY_CONNECTION, legacyDatasetInfo, loadLegacy } from './racing/legacy-load.ts';
import { type PasswordFront, startPasswordFront } from './racing/legacy-password.ts';
import { loadRacing, racingDatasetInfo } from './racing/load.ts';
import { startRelay } from './relay.ts';
import { ROOT, type WorkerInfo, landedWorkers } from './workers.ts';

const STALE_AFTER_DAYS = 3;
/** However a stop goes (a hung close, say), a dev command exits within this. */
const SHUTDOWN_DEADLINE_MS = 20_000;

export type DevState = {
  /** The folder given (or chosen for an offset); none for the repository's own places. */
  dir?: string;
  pglite: string;
  pgliteLegacy: string;
  /** wrangler's dev registry (WRANGLER_REGISTRY_PATH); wrangler's global one when undefined. */
  registry?: string;
  /** The Deno host's state (D1 files, R2 directories, Durable Objects). */
  deno: string;
};

/**
 * Where a stack keeps its state: the repository's `.data` (and `.wrangler/state`, wrangler's own dev
 * registry) or, with `--state-dir DIR` (DEV_STATE_DIR; `.data/port-offset-N` for an offset without
 * one), everything under DIR.
 */
export function devState(argv: readonly string[], env: NodeJS.ProcessEnv, offset: number): DevState {
  const at = argv.indexOf('--state-dir');
  const given = at >= 0 ? argv[at + 1] : env.DEV_STATE_DIR || undefined;
  if (at >= 0 && (!given || given.startsWith('--'))) throw new Error('--state-dir takes a folder');
  // Relative to where the command was typed (npm runs the script from the repository's root).
  const dir = given ? resolve(env.INIT_CWD ?? process.cwd(), given) : offset ? join(ROOT, '.data', `port-offset-${offset}`) : undefined;
  if (!dir)
    return { pglite: join(ROOT, '.data', 'pglite'), pgliteLegacy: join(ROOT, '.data', 'pglite-legacy'), deno: join(ROOT, '.data', 'deno') };
  return {
    dir,
    pglite: join(dir, 'pglite'),
    pgliteLegacy: join(dir, 'pglite-legacy'),
    registry: join(dir, 'registry'),
    deno: join(dir, 'deno'),
  };
}

/** `--only auth,router`: serve only the Workers named (the databases, relay and seeds as always). */
export function selectedWorkers(all: WorkerInfo[], argv: readonly string[]): WorkerInfo[] {
  const at = argv.indexOf('--only');
  if (at < 0) return all;
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !all.some((worker) => worker.name === name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--only takes Worker names, comma-separated, of ${all.map((worker) => worker.name).join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`,
    );
  }
  return all.filter((worker) => names.includes(worker.name));
}

/** The legacy source as a stack's Workers reach it: its password front's port moves with the offset. */
export const legacyConnection = (offset: number) => ({ ...DEV_LEGACY_CONNECTION, port: DEV_LEGACY_PORT + offset });

/** A path as the log shows it: relative inside the repository. */
export const shown = (path: string) => (path.startsWith(`${ROOT}/`) ? relative(ROOT, path) : path);

export function step(message: string) {
  console.log(`• ${message}`);
}

/**
 * What both dev commands do first: bring the generated asset files up to date (pages link browser
 * assets by content hash, so an edited stylesheet or script gets its new hash before the Workers
 * start), read the port offset, the state folder and the Workers to serve from the command line,
 * and refuse to start when a port of the stack is taken (`inspectors`: the Workers' debugger ports too).
 */
export async function prepareDevStack(argv: readonly string[], options: { inspectors: boolean }) {
  for (const path of writeGeneratedFiles()) step(`regenerated ${path}`);
  const offset = devPortOffset(argv);
  const state = devState(argv, process.env, offset);
  const selected = selectedWorkers(landedWorkers(), argv);
  const graphStandin = selected.some((worker) => worker.name === 'mail');
  await assertPortsFree(
    devStackPorts({
      workers: selected,
      offset,
      embeddedDatabase: !process.env.DATABASE_URL,
      embeddedLegacy: !process.env.LEGACY_DATABASE_URL,
      graphStandin,
      inspectors: options.inspectors,
    }),
  );
  if (state.dir) step(`state      ${shown(state.dir)}${offset ? `; every port moved by ${offset}` : ''}`);
  return { offset, state, selected, graphStandin };
}

export function redact(url: string) {
  return url.replace(/:\/\/([^:@/]+):[^@/]+@/, '://$1:***@');
}

export type DevDependenciesOptions = {
  offset: number;
  state: DevState;
  /** `--reload-data`: load the demo data again even when it is current. */
  forceReload: boolean;
  /** Start the Graph stand-in (the mail Worker is served). */
  graphStandin: boolean;
  /** DATABASE_URL, LEGACY_DATABASE_URL: real servers instead of the embedded ones. */
  env?: NodeJS.ProcessEnv;
};

export type RunningDependencies = {
  /** The racing database, as the Workers name it (DATABASE_URL). */
  databaseUrl: string;
  /** The racing database is the embedded PGlite (no DATABASE_URL given). */
  embeddedDatabase: boolean;
  /** The migration app's legacy source (behind its password front when embedded). */
  legacyUrl: string;
  /** What the Workers get as PG_WS_PROXY. */
  relayAddress: string;
  /** The stand-in's origin (IDENTITY_BASE_URL; Graph under /v1.0), whether started or not. */
  graphStandinUrl: string;
  graphStandin?: GraphStandin;
};

export type DevDependencies = {
  /** Starts each dependency in turn, loading the demo data when needed. */
  start(): Promise<RunningDependencies>;
  /** Stops whatever start() has started so far (safe during a start and more than once). */
  close(): Promise<void>;
  /** The lines of the "Serving:" list that name the dependencies. */
  describe(running: RunningDependencies): string[];
};

/**
 * The embedded databases (each on a worker thread of its own), their demo data, the relay and the
 * Graph stand-in, on the stack's ports (the fixed ones moved by the offset) with its state.
 */
export function devDependencies(options: DevDependenciesOptions): DevDependencies {
  const env = options.env ?? process.env;
  const { offset, state } = options;
  let embedded: EmbeddedPostgres | undefined;
  let embeddedLegacy: EmbeddedPostgres | undefined;
  let legacyFront: PasswordFront | undefined;
  let closeRelay: (() => Promise<void>) | undefined;
  let graphStandin: GraphStandin | undefined;

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
      port: legacyConnection(offset).port,
    });
    step(`legacy     embedded PGlite behind a password check at ${redact(legacyFront.url)} (data in ${shown(state.pgliteLegacy)})`);
    return legacyFront.url;
  }

  /** The same world as the racing data (anchored on its day), in the old system's shape, a few days ahead of it. */
  async function ensureLegacyData(legacyUrl: string, today: string) {
    const info = await legacyDatasetInfo(legacyUrl);
    if (!options.forceReload && info && info.size === 'demo' && info.today === today) {
      step(`legacy     demo data anchored on ${info.today} already loaded`);
      return;
    }
    step(`legacy     loading the old system's demo data anchored on ${today}…`);
    const { elapsedMs } = await loadLegacy(legacyUrl, { size: 'demo', today });
    const connection = legacyConnection(offset);
    step(`legacy     loaded in ${(elapsedMs / 1000).toFixed(1)} s (source for the migration app: ${connection.host}:${connection.port})`);
  }

  async function ensureDemoData(databaseUrl: string) {
    const today = racingToday();
    const info = await racingDatasetInfo(databaseUrl);
    const ageDays = info ? (Date.parse(today) - Date.parse(info.today)) / 86_400_000 : Infinity;
    // `tiny` (left by a test run against the same server) is too small to try pages with.
    // Data loaded before a racing migration added a table lacks it: load again with today's schema.
    const schemaCurrent = info !== null && info.missingTables.length === 0;
    if (!options.forceReload && info && schemaCurrent && info.size !== 'tiny' && ageDays <= STALE_AFTER_DAYS) {
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

  return {
    async start() {
      const databaseUrl = env.DATABASE_URL ?? (await startEmbedded());
      await ensureDemoData(databaseUrl);
      const legacyUrl = env.LEGACY_DATABASE_URL ?? (await startEmbeddedLegacy());
      await ensureLegacyData(legacyUrl, (await racingDatasetInfo(databaseUrl))?.today ?? racingToday());
      // The relay reaches the two dev databases only (RELAY_ALLOWED_UPSTREAMS adds more).
      const relay = await startRelay({ port: DEV_RELAY_PORT + offset, allow: [databaseUrl, legacyUrl] });
      closeRelay = relay.close;
      step(`relay      ${relay.address}/v1?address=host:port`);
      // The mail assistant reaches Microsoft Graph and the identity platform through the stand-in,
      // whose seeded mailbox the Worker connects by itself.
      if (options.graphStandin) {
        graphStandin = await startGraphStandin({ port: DEV_GRAPH_STANDIN_PORT + offset });
        step(`graph      Microsoft Graph stand-in at ${graphStandin.graphBaseUrl} (see scripts/graph-standin/README.md)`);
      }
      return {
        databaseUrl,
        embeddedDatabase: !env.DATABASE_URL,
        legacyUrl,
        relayAddress: relay.address,
        graphStandinUrl: graphStandin?.identityBaseUrl ?? `http://127.0.0.1:${DEV_GRAPH_STANDIN_PORT + offset}`,
        graphStandin,
      };
    },
    async close() {
      const relay = closeRelay;
      const standin = graphStandin;
      const parts = [embedded, legacyFront, embeddedLegacy];
      closeRelay = graphStandin = embedded = legacyFront = embeddedLegacy = undefined;
      await relay?.();
      await standin?.close();
      for (const part of parts) await part?.close();
    },
    describe(running) {
      return [
        `  ${'Racing Postgres'.padEnd(42)} ${redact(running.databaseUrl)}`,
        `  ${'Legacy source Postgres (migration app)'.padEnd(42)} ${redact(running.legacyUrl)}`,
        ...(running.graphStandin ? [`  ${'Microsoft Graph stand-in'.padEnd(42)} ${running.graphStandin.url}/_standin`] : []),
      ];
    },
  };
}

export type DevLifecycle = {
  /** Set once a stop has begun: a child that exits then is expected. */
  readonly stopping: boolean;
  /** Stops everything (once) and exits with `code`, within the deadline whatever hangs. */
  shutdown(code: number): Promise<void>;
  /** Stops everything after an error: a start-up failure's message, or a crash's whole stack. */
  fail(error: unknown, crashed?: boolean): void;
};

/**
 * How a dev command ends: Ctrl-C, SIGTERM or SIGHUP, a crash, or the end of what launched it (a
 * SIGKILLed `npm`, say) runs `stop` once and exits; `onExit` runs however the process exits
 * (synchronously: what must not outlive it, such as a watched child's process group).
 */
export function devLifecycle(stop: () => Promise<void>, onExit: () => void = () => {}): DevLifecycle {
  let stopping = false;
  const lifecycle: DevLifecycle = {
    get stopping() {
      return stopping;
    },
    async shutdown(code) {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(code), SHUTDOWN_DEADLINE_MS).unref();
      try {
        await stop();
      } finally {
        process.exit(code);
      }
    },
    fail(error, crashed = false) {
      console.error(`\n✗ ${error instanceof Error ? (crashed && error.stack) || error.message : String(error)}`);
      void lifecycle.shutdown(1);
    },
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void lifecycle.shutdown(0));
  // A crash stops the stack in order too (and were this process killed outright, the watchdogs would).
  process.on('uncaughtException', (error) => lifecycle.fail(error, true));
  process.on('unhandledRejection', (error) => lifecycle.fail(error, true));
  process.on('exit', onExit);
  whenLaunchersGone((pid) => {
    console.error(`\n✗ the process that started the dev runner (pid ${pid}) has ended: stopping everything`);
    void lifecycle.shutdown(1);
  });
  return lifecycle;
}
