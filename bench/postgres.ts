import { execFileSync, spawnSync } from 'node:child_process';
import pg from 'pg';

const ROLE = 'racing_bench';
const PASSWORD = 'racing_bench';

/**
 * The real PostgreSQL the benchmarks run against: BENCH_DATABASE_URL if given, otherwise the
 * machine's PostgreSQL 15 cluster, started when it is down, with a bench role and database.
 */
export async function benchDatabaseUrl(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const url = `postgres://${ROLE}:${PASSWORD}@127.0.0.1:5432/${ROLE}`;
  if (await canConnect(url)) return url;
  const clusters = spawnSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' });
  if (clusters.status !== 0) throw new Error('No PostgreSQL found: set BENCH_DATABASE_URL or install PostgreSQL 15');
  if (!/\bonline\b/.test(clusters.stdout)) {
    console.log('• starting PostgreSQL 15 (pg_ctlcluster 15 main start)');
    execFileSync('pg_ctlcluster', ['15', 'main', 'start'], { stdio: 'inherit' });
  }
  // Local TCP logins need a password: a dedicated role and database, created once.
  const sql = `DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN
        CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD}';
      END IF;
    END $$;`;
  asPostgres(['-c', sql]);
  const exists = asPostgres(['-tAc', `SELECT 1 FROM pg_database WHERE datname = '${ROLE}'`]).trim();
  if (exists !== '1') asPostgres(['-c', `CREATE DATABASE ${ROLE} OWNER ${ROLE}`]);
  if (!(await canConnect(url))) throw new Error(`Cannot log in to ${url}`);
  return url;
}

/**
 * A second database on the bench server, owned by the bench role (the migration bench's source):
 * its URL. Created once; needs the machine's PostgreSQL (not BENCH_DATABASE_URL's server).
 */
export async function benchSecondDatabase(name: string): Promise<string> {
  const url = `postgres://${ROLE}:${PASSWORD}@127.0.0.1:5432/${name}`;
  if (await canConnect(url)) return url;
  const exists = asPostgres(['-tAc', `SELECT 1 FROM pg_database WHERE datname = '${name}'`]).trim();
  if (exists !== '1') asPostgres(['-c', `CREATE DATABASE ${name} OWNER ${ROLE}`]);
  if (!(await canConnect(url))) throw new Error(`Cannot log in to ${url}`);
  return url;
}

function asPostgres(args: string[]): string {
  return execFileSync('su', ['postgres', '-c', ['psql', '-X', '-q', ...args.map(shellQuote)].join(' ')], { encoding: 'utf8' });
}

function shellQuote(value: string) {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
