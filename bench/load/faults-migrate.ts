import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startLocalWorker } from '../../scripts/local-worker.ts';
import { connectionOf } from '../migrate-run.ts';
import { ensureEngineBookkeeping } from '../../scripts/racing/migration.ts';
import { withClient } from '../../scripts/racing/pg-client.ts';
import { ROOT } from '../../scripts/workers.ts';
import type { RunPlan, RunProgress } from '../../workers/migrate/src/engine/types.ts';
import { FILL, PLAN_TABLE, SOURCE_TABLE, destTable } from '../migrate.ts';
import { drive } from './drive.ts';
import type { LoadOptions } from './index.ts';
import { workerdDescendants } from './procs.ts';
import type { StepFigures } from './drive.ts';

const DEST = 'load_runners_resumed';
const CONFIG_ID = 990_002;
/** The share of the rows copied when the workerd process is killed. */
const KILL_AT = 0.3;
/** Connections polling the progress route while the run copies. */
const POLLERS = 10;

/**
 * The workerd process hosting a MigrationJob killed from outside (SIGKILL) in the middle of a large
 * copy, then the Worker started again on the same persisted state (its Durable Objects' storage and
 * alarms): the run must resume and finish with counts and checksums equal — no row lost or doubled.
 * While it copies, 10 connections read its progress route.
 */
export async function migrationKill(
  instance: { url(database: string): Promise<string> },
  destUrl: string,
  relay: string,
  rows: number,
  options: LoadOptions,
) {
  const sourceUrl = await instance.url('racing_load_legacy');
  await withClient(sourceUrl, async (client) => {
    const present = await client.query<{ ok: boolean }>("SELECT to_regclass('bench_entry') IS NOT NULL AS ok");
    if (present.rows[0]?.ok && Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM bench_entry')).rows[0]?.n) === rows)
      return;
    console.log(`• filling the migration source with ${rows.toLocaleString('en')} rows…`);
    await client.query('DROP TABLE IF EXISTS bench_entry');
    await client.query(SOURCE_TABLE);
    await client.query(FILL, [rows]);
    await client.query('ANALYZE bench_entry');
  });
  await withClient(destUrl, async (client) => {
    await ensureEngineBookkeeping((text) => client.query(text));
    await client.query(destTable(DEST));
    await client.query(`TRUNCATE ${DEST} RESTART IDENTITY`);
    await client.query('DELETE FROM migration_id_mappings WHERE config_id = $1', [CONFIG_ID]);
    await client.query('DELETE FROM migration_id_ranges WHERE config_id = $1', [CONFIG_ID]);
    await client.query('DELETE FROM migration_run_cursors WHERE dest_table = $1', [DEST]);
  });
  const source = new URL(sourceUrl);
  const state = mkdtempSync(join(tmpdir(), 'load-migrate-'));
  const start = () =>
    startLocalWorker({
      config: join(ROOT, 'bench/worker/migrate.toml'),
      vars: { DATABASE_URL: destUrl, PG_WS_PROXY: relay, MIGRATE_ALLOWED_HOSTS: `${source.hostname}:${source.port}` },
      persistTo: state,
      logLevel: 'error',
    });
  const plan: RunPlan = {
    runId: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    configId: CONFIG_ID,
    source: connectionOf(source),
    tables: [{ ...PLAN_TABLE, destTable: DEST }],
    deferred: [],
    patchMode: false,
    chunkSize: 10_000,
  };
  console.log(
    `\nFault: the workerd hosting a MigrationJob killed (SIGKILL) at ${KILL_AT * 100} % of a ${rows.toLocaleString('en')}-row copy, then started again on the same state`,
  );
  // Only this Worker's processes are killed: those that were not there before it started.
  const before = new Set(workerdDescendants());
  let worker = await start();
  let killed: number | undefined;
  try {
    const origin = async () => (await worker.url).origin;
    const startAnswer = await fetch(`${await origin()}/start`, {
      method: 'POST',
      body: JSON.stringify(plan),
      headers: { 'content-type': 'application/json' },
    });
    if (!startAnswer.ok) throw new Error(`start: ${startAnswer.status} ${await startAnswer.text()}`);
    const progressOf = async (): Promise<RunProgress> =>
      (await (await fetch(`${await origin()}/progress?runId=${plan.runId}`)).json()) as RunProgress;
    const started = performance.now();
    // The progress route under load while the run copies (until the kill).
    const poll = drive(
      {
        service: 'migrate',
        route: 'GET progress (MigrationJob, during a run)',
        origin: await origin(),
        path: `/progress?runId=${plan.runId}`,
      },
      POLLERS,
      Math.max(options.durationS, 5),
      { timeoutS: options.timeoutS },
    );
    let atKill: RunProgress | undefined;
    for (;;) {
      await sleep(250);
      const progress = await progressOf();
      const table = progress.tables[0];
      if (table && table.total > 0 && table.done >= table.total * KILL_AT) {
        atKill = progress;
        break;
      }
      if (['completed', 'failed', 'cancelled'].includes(progress.state))
        throw new Error(`the run ended (${progress.state}) before the kill`);
    }
    const progressFigures: StepFigures = (await poll).figures;
    // The processes to kill: every workerd this Worker runs (the objects may live in a process of their own).
    const pids = workerdDescendants().filter((pid) => !before.has(pid));
    if (pids.length === 0) throw new Error('no workerd process of the migration Worker found');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    killed = pids.length;
    await worker.dispose().catch(() => {});
    const downAt = performance.now() - started;
    worker = await start();
    const restartedAt = performance.now() - started;
    let progress: RunProgress;
    for (;;) {
      await sleep(500);
      progress = await progressOf();
      if (['completed', 'failed', 'cancelled'].includes(progress.state)) break;
      if (performance.now() - started > 15 * 60_000)
        throw new Error(`the run did not finish within 15 minutes of its start: ${JSON.stringify(progress.tables)}`);
    }
    const finishedAt = performance.now() - started;
    const check = await withClient(destUrl, async (client) => {
      const dest = await client.query<{ n: number; horses: string; prize: string; distinct: number }>(
        `SELECT count(*)::int AS n, sum(horse_ref)::text AS horses, sum(prize_money)::text AS prize, count(DISTINCT (race_ref, horse_ref, tab_number, comment))::int AS distinct FROM ${DEST}`,
      );
      const mappings = await client
        .query<{ n: number; keys: number }>(
          'SELECT count(*)::int AS n, count(DISTINCT source_key)::int AS keys FROM migration_id_mappings WHERE config_id = $1',
          [CONFIG_ID],
        )
        .catch(() => ({ rows: [{ n: -1, keys: -1 }] }));
      return { dest: dest.rows[0]!, mappings: mappings.rows[0]! };
    });
    const sourceSums = await withClient(
      sourceUrl,
      async (client) =>
        (
          await client.query<{ horses: string; prize: string; distinct: number }>(
            'SELECT sum(horse_id)::text AS horses, sum(prize_money)::text AS prize, count(DISTINCT (race_id, horse_id, tab_no, comment))::int AS distinct FROM bench_entry',
          )
        ).rows[0]!,
    );
    const validation = progress.validation?.[0];
    const result = {
      rows,
      killedProcesses: killed,
      doneAtKill: atKill.tables[0]?.done,
      killedAtS: Math.round(downAt / 100) / 10,
      restartedAtS: Math.round(restartedAt / 100) / 10,
      finishedAtS: Math.round(finishedAt / 100) / 10,
      state: progress.state,
      errors: progress.errors,
      validation,
      destRows: check.dest.n,
      sumsEqual: check.dest.horses === sourceSums.horses && check.dest.prize === sourceSums.prize,
      distinctRowsEqual: check.dest.distinct === sourceSums.distinct,
      progressRoute: progressFigures,
    };
    console.log(
      `  killed ${killed} workerd process(es) at ${result.killedAtS} s with ${result.doneAtKill?.toLocaleString('en')} rows done; started again at ${result.restartedAtS} s;` +
        ` the run ${result.state} at ${result.finishedAtS} s${result.errors.length ? ` (${result.errors.join('; ')})` : ''}`,
    );
    console.log(
      `  destination ${result.destRows.toLocaleString('en')} rows (source ${rows.toLocaleString('en')}); sums ${result.sumsEqual ? 'equal' : 'DIFFER'}; distinct rows ${result.distinctRowsEqual ? 'equal' : 'DIFFER'};` +
        ` the run's validation: ${validation ? (validation.ok ? 'counts and checksums match' : `DIFFERENCE ${JSON.stringify(validation)}`) : 'none'}`,
    );
    console.log(
      `  progress route under ${POLLERS} connections during the copy: ${progressFigures.rps} rps, p50 ${progressFigures.p50} ms, p99 ${progressFigures.p99} ms, non-2xx ${progressFigures.non2xx}, errors ${progressFigures.errors}`,
    );
    return result;
  } finally {
    await worker.dispose().catch(() => {});
    rmSync(state, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
