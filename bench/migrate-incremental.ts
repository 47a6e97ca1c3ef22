import { withClient } from '../scripts/racing/pg-client.ts';
import type { RunPlan, RunProgress } from '../workers/migrate/src/engine/types.ts';
import { type BenchWorker, startRun } from './migrate-run.ts';

// The migration bench's incremental sync lines (called by bench/migrate.ts once the Worker's full copy
// is in the destination, with its mappings): 1 % of the source rows changed, then nothing changed,
// each synced by a new run of the same MigrationJob Worker from a mark taken just before the change,
// timed from the start request to the run's recorded end, against the full copy's time; once with the `xmin`
// method (no schema change; no index serves it, so each read scans the table), once with an indexed
// updated-at column (added to the bench's source table the first time, with a constant default).

/** The run plan of a sync run (engine/incremental.ts's IncrementalRunPlan, as the object receives it). */
type SyncRunPlan = RunPlan & {
  incremental: { sourceTable: string; method: 'xmin' | 'column'; column?: string; from: string; deletes: 'ignore' }[];
};

/** How a sync run finds what changed: PostgreSQL's xmin, or an indexed updated-at column. */
type Method = { method: 'xmin' } | { method: 'column'; column: string };

/** The source's oldest running transaction: every transaction below it has ended (the xmin method's mark). */
async function sourceMark(sourceUrl: string): Promise<string> {
  return withClient(sourceUrl, async (client) => {
    const rows = await client.query<{ mark: string }>('SELECT txid_snapshot_xmin(txid_current_snapshot())::text AS mark');
    return rows.rows[0]!.mark;
  });
}

/** The updated-at column's greatest value (ISO text): the column method's mark. */
async function columnMark(sourceUrl: string, table: string, column: string): Promise<string> {
  return withClient(sourceUrl, async (client) => {
    await client.query("SET DateStyle = 'ISO'");
    const rows = await client.query<{ mark: string }>(`SELECT max(${column})::text AS mark FROM ${table}`);
    return rows.rows[0]!.mark;
  });
}

/** One incremental run from `mark`, to its end: its time and progress. */
async function syncRun(worker: BenchWorker, base: RunPlan, mark: string, how: Method): Promise<{ ms: number; progress: RunProgress }> {
  const plan: SyncRunPlan = {
    ...base,
    runId: crypto.randomUUID(),
    patchMode: true,
    incremental: [{ sourceTable: base.tables[0]!.sourceTable, ...how, from: mark, deletes: 'ignore' }],
  };
  // Timed to the end the object recorded (finishedAt, this machine's clock), not to the poll that
  // sees it: the poll's own lag (up to 20 ms and a progress answer) is the bench's, not the run's.
  const started = Date.now();
  await startRun(worker, plan, 'incremental start');
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const progress = (await (await worker.fetch(`http://bench/progress?runId=${plan.runId}`)).json()) as RunProgress;
    if (['completed', 'failed', 'cancelled'].includes(progress.state)) {
      if (progress.state !== 'completed') throw new Error(`the incremental run ${progress.state}: ${progress.errors.join('; ')}`);
      return { ms: Date.parse(progress.finishedAt!) - started, progress };
    }
  }
}

type IncrementalOptions = {
  worker: BenchWorker;
  sourceUrl: string;
  /** The full copy's plan (its table, configuration and source) and time. */
  plan: RunPlan;
  fullMs: number;
  rows: number;
};

export async function benchMigrateIncremental(options: IncrementalOptions): Promise<void> {
  // A failure here is printed, not thrown: the bench's other lines still run after it.
  await measure(options).catch((error: unknown) => {
    console.log(`  incremental sync                        FAILED: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** The bench table's updated-at column, added once (a constant default: no rewrite) with its index. */
const UPDATED_AT = 'updated_at';

async function measure(options: IncrementalOptions): Promise<void> {
  const { sourceUrl, plan } = options;
  const table = plan.tables[0]!.sourceTable;
  await withClient(sourceUrl, async (client) => {
    await client.query(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${UPDATED_AT} timestamp with time zone NOT NULL DEFAULT '2026-01-01T00:00:00Z'`,
    );
    await client.query(`CREATE INDEX IF NOT EXISTS ${table}_${UPDATED_AT}_idx ON ${table} (${UPDATED_AT})`);
  });
  await measureMethod(options, { method: 'xmin' }, () => sourceMark(sourceUrl));
  await measureMethod(options, { method: 'column', column: UPDATED_AT }, () => columnMark(sourceUrl, table, UPDATED_AT));
}

async function measureMethod(options: IncrementalOptions, how: Method, mark: () => Promise<string>) {
  const { worker, sourceUrl, plan, fullMs, rows } = options;
  const table = plan.tables[0]!;
  const key = table.sourceKey[0]!;
  // 1 % of the rows, changed in one transaction after the mark (a comment flips each time the bench runs).
  const from = await mark();
  const changed = await withClient(sourceUrl, async (client) => {
    const result = await client.query(
      `UPDATE ${table.sourceTable} SET comment = CASE WHEN comment LIKE '% (changed)' THEN left(comment, -10) ELSE comment || ' (changed)' END,
         ${UPDATED_AT} = clock_timestamp()
       WHERE ${key} % 100 = 7`,
    );
    return result.rowCount ?? 0;
  });
  const one = await syncRun(worker, plan, from, how);
  const oneTable = one.progress.tables[0]!;
  if (oneTable.done !== changed || oneTable.updated !== changed)
    throw new Error(`incremental sync read ${oneTable.done} rows and updated ${oneTable.updated}, expected ${changed}`);
  const idle = await syncRun(worker, plan, await mark(), how);
  if (idle.progress.tables[0]!.done !== 0)
    throw new Error(`incremental sync with nothing changed read ${idle.progress.tables[0]!.done} rows`);
  const pct = (ms: number) => `${((ms / fullMs) * 100).toFixed(1)} %`;
  const by = how.method === 'xmin' ? 'xmin: a scan of the table' : `an indexed ${how.column} column`;
  console.log(
    `  incremental sync, ${((changed / rows) * 100).toFixed(0)} % of rows changed   ${(one.ms / 1000).toFixed(2)} s   (full copy ${(fullMs / 1000).toFixed(1)} s, ${pct(one.ms)} of it)   target ≤ 5 %` +
      `   (${by}; ${changed.toLocaleString('en')} rows read and updated)`,
  );
  console.log(
    `  incremental sync, nothing changed       ${(idle.ms / 1000).toFixed(2)} s   (${pct(idle.ms)} of the full copy)        target ≤ 1 %   (${by})`,
  );
}
