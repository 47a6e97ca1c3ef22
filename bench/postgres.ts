import { machinePostgres } from '../scripts/machine-postgres.ts';

const ROLE = 'racing_bench';
const PASSWORD = 'racing_bench';

/**
 * The real PostgreSQL the benchmarks run against: BENCH_DATABASE_URL if given, otherwise the
 * machine's PostgreSQL cluster, started when it is down, with a bench role and database.
 */
export async function benchDatabaseUrl(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  return machinePostgres({ role: ROLE, password: PASSWORD, database: ROLE });
}

/**
 * A second database on the bench server, owned by the bench role (the migration bench's source):
 * its URL. Created once; needs the machine's PostgreSQL (not BENCH_DATABASE_URL's server).
 */
export function benchSecondDatabase(name: string): Promise<string> {
  return machinePostgres({ role: ROLE, password: PASSWORD, database: name });
}
