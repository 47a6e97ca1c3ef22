import type { startLocalWorker } from '../scripts/local-worker.ts';
import type { Connection, RunPlan } from '../workers/migrate/src/engine/types.ts';

// What the migration benches share about a run on the bench Worker (bench/worker/migrate.ts).

/** The bench's Worker (the Durable Object's host), as scripts/local-worker.ts starts it. */
export type BenchWorker = Awaited<ReturnType<typeof startLocalWorker>>;

/** A run plan's source connection from a `postgres://user:password@host:port/database` URL. */
export function connectionOf(url: string | URL): Connection {
  const source = new URL(url);
  return {
    host: source.hostname,
    port: Number(source.port || 5432),
    database: source.pathname.slice(1),
    username: decodeURIComponent(source.username),
    password: decodeURIComponent(source.password),
  };
}

/** Starts `plan` in its own MigrationJob on the bench Worker; a refusal throws with its answer (`what` names the run). */
export async function startRun(worker: BenchWorker, plan: RunPlan, what = 'start'): Promise<void> {
  const start = await worker.fetch('http://bench/start', {
    method: 'POST',
    body: JSON.stringify(plan),
    headers: { 'content-type': 'application/json' },
  });
  if (!start.ok) throw new Error(`${what}: ${start.status} ${await start.text()}`);
}
