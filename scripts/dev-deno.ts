// `npm run dev:deno`: every service on Deno (deno/host/main.ts) with everything it needs, as
// `npm run dev` serves them in workerd. This Node process starts the same embedded databases (with
// their demo data), relay and Graph stand-in (scripts/dev-dependencies.ts), then the Deno host under
// the dev runner's watchdog (scripts/watched-process.ts), pointed at them; Ctrl-C, SIGTERM, a crash or
// the end of what launched it stops the host first, then the dependencies.
//
//   npm run dev:deno -- [--port-offset N] [--state-dir DIR] [--only auth,cms,…] [--reload-data] [host options…]
//
// Every other option goes to the host as it is (`--no-crons`, `--var NAME:VALUE`, …; deno/README.md).
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { devDependencies, devLifecycle, prepareDevStack, step, type DevDependencies } from './dev-dependencies.ts';
import { spawnWatched, stopWatched, sweepWatched } from './watched-process.ts';
import { ROOT } from './workers.ts';

const DENO = join(ROOT, 'node_modules', '.bin', 'deno');
/** The launcher's own options and how many values each takes; the rest is the host's. */
const OWN_OPTIONS: Record<string, number> = { '--port-offset': 1, '--state-dir': 1, '--only': 1, '--reload-data': 0 };

let host: ChildProcessWithoutNullStreams | undefined;
let dependencies: DevDependencies | undefined;
const lifecycle = devLifecycle(
  async () => {
    if (host) await stopWatched(host);
    await dependencies?.close();
  },
  () => host && sweepWatched(host),
);

/** The arguments this launcher does not read itself, in their order. */
function hostArguments(argv: readonly string[]): string[] {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const own = OWN_OPTIONS[argv[i]!];
    if (own === undefined) rest.push(argv[i]!);
    else i += own;
  }
  return rest;
}

async function main() {
  const argv = process.argv.slice(2);
  const { offset, state, selected, graphStandin } = await prepareDevStack(argv, { inspectors: false });
  dependencies = devDependencies({ offset, state, forceReload: argv.includes('--reload-data'), graphStandin });
  const running = await dependencies.start();

  const args = ['run', '--no-prompt', '--allow-all', '--unstable-cron', 'deno/host/main.ts'];
  args.push('--state', state.deno, '--services', selected.map((worker) => worker.name).join(','));
  for (const worker of selected) args.push('--port', `${worker.name}=${worker.port + offset}`);
  args.push(
    '--pg-ws-proxy',
    running.relayAddress,
    '--database-url',
    running.databaseUrl,
    '--legacy-database-url',
    running.legacyUrl,
    '--graph-standin',
    running.graphStandinUrl,
  );
  // The embedded database takes no COPY … FROM STDIN: the migration app copies by statements (as `npm run dev` tells it).
  if (running.embeddedDatabase) args.push('--var', 'migrate.MIGRATE_DIRECT_COPY:off');
  args.push(...hostArguments(argv));
  step(`deno       the host: deno ${args.slice(4).join(' ')}`);

  const child = spawnWatched(DENO, args, { cwd: ROOT, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } });
  host = child;
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    let pending = '';
    const onData = (chunk: Buffer) => {
      process.stdout.write(chunk);
      if (ready) return;
      pending += chunk.toString();
      if (/^Ready$/m.test(pending)) {
        ready = true;
        pending = '';
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.on('exit', (code, signal) => {
      const error = new Error(`the Deno host exited ${signal ? `on ${signal}` : `with code ${code}`}`);
      // While starting, main's failure reports it and stops the rest.
      if (!ready) return reject(error);
      // After start-up: the host ending takes the databases, relay and stand-in down with it.
      if (!lifecycle.stopping) {
        sweepWatched(child);
        console.error(`\n✗ ${error.message}`);
        void lifecycle.shutdown(1);
      }
    });
  });

  console.log('\nBeside the host:');
  for (const line of dependencies.describe(running)) console.log(line);
  console.log(`  ${'Postgres relay (PG_WS_PROXY)'.padEnd(42)} ${running.relayAddress}`);
  console.log(`\nCtrl-C (or kill ${process.pid}) stops everything.`);
}

main().catch((error: unknown) => lifecycle.fail(error));
