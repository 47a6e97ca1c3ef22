import { execFileSync, spawnSync } from 'node:child_process';
import pg from 'pg';

// The machine's own PostgreSQL server (Debian's cluster tools: `pg_lsclusters`, `pg_ctlcluster`),
// for what the embedded database cannot do: the benchmarks, and the tests of the migration engine's
// COPY path. Started when it is down; a password role and a database created once (local TCP
// logins need a password).

export type MachineDatabase = { role: string; password: string; database: string };

/** The URL of `database` on the machine's PostgreSQL, owned by `role`; throws when there is no server. */
export async function machinePostgres({ role, password, database }: MachineDatabase): Promise<string> {
  const url = `postgres://${role}:${password}@127.0.0.1:5432/${database}`;
  if (await canConnect(url)) return url;
  const clusters = spawnSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' });
  if (clusters.error || clusters.status !== 0 || !clusters.stdout.trim()) {
    throw new Error('No PostgreSQL server on this machine (Debian: apt-get install postgresql)');
  }
  if (!/\bonline\b/.test(clusters.stdout)) {
    const [version, name] = clusters.stdout.trim().split(/\s+/);
    console.log(`• starting PostgreSQL ${version} (pg_ctlcluster ${version} ${name} start)`);
    execFileSync('pg_ctlcluster', [version!, name!, 'start'], { stdio: 'inherit' });
  }
  asPostgres([
    '-c',
    `DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
        CREATE ROLE ${role} LOGIN PASSWORD '${password}';
      END IF;
      -- CHECKPOINT between measured runs (PostgreSQL 15 and later).
      IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'pg_checkpoint') THEN
        GRANT pg_checkpoint TO ${role};
      END IF;
    END $$;`,
  ]);
  const exists = asPostgres(['-tAc', `SELECT 1 FROM pg_database WHERE datname = '${database}'`]).trim();
  if (exists !== '1') asPostgres(['-c', `CREATE DATABASE ${database} OWNER ${role}`]);
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
