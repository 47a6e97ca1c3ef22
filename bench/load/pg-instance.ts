import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';

// A PostgreSQL 15 server of the load bench's own: the machine's binaries, a data folder of its own
// and a free loopback port, so the outage fault can stop and start it without touching the
// machine's cluster (which other work uses). Its data stays between runs: `demo` is loaded once.

const BIN = '/usr/lib/postgresql/15/bin';
const DATA = process.env.BENCH_LOAD_PGDATA ?? '/var/tmp/racing-load-bench-pg';

export interface PgInstance {
  port: number;
  /** URL of a database on it (created when missing). */
  url(database: string): Promise<string>;
  /** Fast shutdown: open connections are dropped, new ones refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Whether the server runs. */
  running(): boolean;
  /** The postmaster's process id (its first line of postmaster.pid), while it runs. */
  postmaster(): number | undefined;
}

export async function startPgInstance(): Promise<PgInstance> {
  if (!existsSync(`${BIN}/pg_ctl`)) throw new Error(`No PostgreSQL 15 binaries at ${BIN} (Debian: apt-get install postgresql-15)`);
  if (!existsSync(`${DATA}/PG_VERSION`)) {
    mkdirSync(DATA, { recursive: true });
    await run('chown', ['postgres:postgres', DATA]);
    await run('su', [
      'postgres',
      '-c',
      `${BIN}/initdb -D ${DATA} -U postgres --auth-local=trust --auth-host=trust -E UTF8 --locale=C.UTF-8`,
    ]);
  }
  const port = await freePort();
  const options = `-p ${port} -k ${DATA} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB -c fsync=off -c synchronous_commit=off`;
  // Asynchronous: the load keeps running while the server stops and starts.
  const start = async () =>
    void (await run('su', ['postgres', '-c', `${BIN}/pg_ctl -D ${DATA} -l ${DATA}/server.log -w -t 60 -o '${options}' start`]));
  const stop = async () => void (await run('su', ['postgres', '-c', `${BIN}/pg_ctl -D ${DATA} -m fast -w -t 60 stop`]));
  // A server left by an interrupted run: stop it first (it would hold the data folder).
  if (existsSync(`${DATA}/postmaster.pid`)) spawnSync('su', ['postgres', '-c', `${BIN}/pg_ctl -D ${DATA} -m immediate -w stop`]);
  await start();
  const running = () => spawnSync('su', ['postgres', '-c', `${BIN}/pg_ctl -D ${DATA} status`]).status === 0;
  return {
    port,
    start,
    stop,
    running,
    postmaster: () => {
      try {
        return Number(readFileSync(`${DATA}/postmaster.pid`, 'utf8').split('\n')[0]) || undefined;
      } catch {
        return undefined;
      }
    },
    async url(database) {
      const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      await admin.connect();
      try {
        const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
        if (!rowCount) await admin.query(`create database "${database.replaceAll('"', '')}"`);
      } finally {
        await admin.end();
      }
      return `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
    },
  };
}

async function run(file: string, args: string[]) {
  try {
    await promisify(execFile)(file, args, { encoding: 'utf8' });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${file} ${args.join(' ')}: ${stderr || stdout || error}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
