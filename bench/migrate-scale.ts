import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withClient } from '../scripts/racing/pg-client.ts';
import { DEFAULT_PARALLEL_TABLES } from '../workers/migrate/src/engine/parallel.ts';
import type { Connection, RunPlan, RunProgress, TablePlan } from '../workers/migrate/src/engine/types.ts';
import { type BenchWorker, startRun } from './migrate-run.ts';

// The migration bench's scale lines (npm run bench -- migrate, after the single-table copy): four
// independent tables side by side against one at a time, the statement path (natural key and a
// translated foreign key), and pgloader on the same table as the pipe and the Worker.

type ScaleContext = {
  worker: BenchWorker;
  url: string;
  sourceUrl: string;
  source: Connection;
  rows: number;
  chunk: number;
  /** The single-table plan (bench_entry → bench_runners_worker), copied for the other tables. */
  table: TablePlan;
  /** CREATE TABLE of a destination runners table named `name`. */
  destTable: (name: string) => string;
  /** The pipe's and the Worker's times on the whole table, for the ratios. */
  pipeMs: number;
  workerMs: number;
  checkpoint: (url: string) => Promise<void>;
};

const PARTS = 4;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const line = (label: string, text: string) => console.log(`  ${label.padEnd(41)}${text}`);

/** Starts `plan` in its own MigrationJob and polls it to the end: when each table was seen copied (ms from the start). */
async function runOnWorker(worker: BenchWorker, plan: RunPlan): Promise<{ progress: RunProgress; copiedAt: Record<string, number> }> {
  const started = performance.now();
  await startRun(worker, plan);
  const copiedAt: Record<string, number> = {};
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const progress = (await (await worker.fetch(`http://bench/progress?runId=${plan.runId}`)).json()) as RunProgress;
    for (const t of progress.tables)
      if (!(t.table in copiedAt) && t.total > 0 && t.done >= t.total) copiedAt[t.table] = performance.now() - started;
    if (progress.state === 'completed') {
      const bad = (progress.validation ?? []).filter((v) => !v.ok);
      if (bad.length) throw new Error(`validation differs: ${JSON.stringify(bad)}`);
      return { progress, copiedAt };
    }
    if (progress.state === 'failed' || progress.state === 'cancelled') {
      const logs = await (await worker.fetch(`http://bench/logs?runId=${plan.runId}`)).text();
      throw new Error(`the run ${progress.state}: ${progress.errors.join('; ')}\n${logs}`);
    }
  }
}

function runPlan(ctx: ScaleContext, tables: TablePlan[], options: Partial<RunPlan> = {}): RunPlan {
  return {
    runId: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    configId: 990_002,
    source: ctx.source,
    tables,
    deferred: [],
    patchMode: false,
    chunkSize: ctx.chunk,
    ...options,
  };
}

/** Empties destination tables and the bench configuration's mappings, then checkpoints. */
async function resetDestination(ctx: ScaleContext, tables: string[]): Promise<void> {
  await withClient(ctx.url, async (client) => {
    await client.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
    for (const store of ['migration_id_mappings', 'migration_id_ranges'])
      await client.query(`DELETE FROM ${store} WHERE config_id = 990002`);
  });
  await ctx.checkpoint(ctx.url);
}

/** The source's four quarters of bench_entry (bench_part_1…4), made once. */
async function prepareParts(ctx: ScaleContext): Promise<void> {
  const per = Math.floor(ctx.rows / PARTS);
  await withClient(ctx.sourceUrl, async (client) => {
    for (let i = 1; i <= PARTS; i++) {
      const name = `bench_part_${i}`;
      const present = await client.query<{ n: string | null }>(`SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE 0 END AS n`, [
        name,
      ]);
      if (present.rows[0]?.n !== null && Number((await client.query(`SELECT count(*) AS n FROM ${name}`)).rows[0]?.n) === per) continue;
      await client.query(`DROP TABLE IF EXISTS ${name}`);
      await client.query(
        `CREATE TABLE ${name} AS SELECT * FROM bench_entry WHERE entry_id > 5000000 + $1::int AND entry_id <= 5000000 + $2::int`,
        [(i - 1) * per, i * per],
      );
      await client.query(`ALTER TABLE ${name} ADD PRIMARY KEY (entry_id)`);
      await client.query(`ANALYZE ${name}`);
    }
  });
  await withClient(ctx.url, async (client) => {
    for (let i = 1; i <= PARTS; i++) {
      await client.query(ctx.destTable(`bench_part_dest_${i}`));
      await client.query(`ALTER TABLE bench_part_dest_${i} SET (autovacuum_enabled = false)`);
    }
  });
}

/**
 * Four independent tables of rows/4 each: one at a time, then all four at once and two at once (the
 * run's default is the target line; the other setting is printed beside it, to choose the default by).
 */
async function benchParallel(ctx: ScaleContext): Promise<void> {
  await prepareParts(ctx);
  const dests = Array.from({ length: PARTS }, (_, i) => `bench_part_dest_${i + 1}`);
  const tables = dests.map((destTable, i) => ({ ...ctx.table, sourceTable: `bench_part_${i + 1}`, destTable }));
  const times = new Map<number, number>();
  for (const parallelTables of [1, 4, 2]) {
    await resetDestination(ctx, dests);
    const started = performance.now();
    const { copiedAt } = await runOnWorker(ctx.worker, runPlan(ctx, tables, { parallelTables }));
    times.set(parallelTables, Math.max(...dests.map((d) => copiedAt[d] ?? performance.now() - started)));
  }
  const serial = times.get(1)!;
  const byDefault = times.get(DEFAULT_PARALLEL_TABLES)!;
  const other = [...times].filter(([n]) => n !== 1 && n !== DEFAULT_PARALLEL_TABLES);
  line(
    `${PARTS} independent tables × ${Math.floor(ctx.rows / PARTS).toLocaleString('en')} rows`,
    `${secs(byDefault)}   (one at a time ${secs(serial)}, ${(byDefault / serial).toFixed(2)}×)   target ≤ 0.6×   (${DEFAULT_PARALLEL_TABLES} at once, the default;` +
      `${other.map(([n, ms]) => ` ${n} at once ${secs(ms)}, ${(ms / serial).toFixed(2)}×`).join(';')})`,
  );
}

/**
 * The statement path: bench_entry's rows matched by natural key (race, tab number) with the race
 * translated through the races' id mappings, into a table with that foreign key and a unique index
 * on the natural key. The races (rows/10, direct path) are copied first in the same run and not counted.
 */
async function benchStatementPath(ctx: ScaleContext): Promise<void> {
  const races = Math.floor(ctx.rows / 10) + 1;
  await withClient(ctx.sourceUrl, async (client) => {
    const present = await client.query<{ ok: boolean }>(`SELECT to_regclass('bench_race') IS NOT NULL AS ok`);
    if (present.rows[0]?.ok && Number((await client.query('SELECT count(*) AS n FROM bench_race')).rows[0]?.n) === races) return;
    await client.query('DROP TABLE IF EXISTS bench_race');
    await client.query('CREATE TABLE bench_race (race_id integer PRIMARY KEY, race_no integer NOT NULL, race_name text NOT NULL)');
    await client.query(`INSERT INTO bench_race SELECT 300000 + n, 1 + n % 10, 'Race ' || n FROM generate_series(0, $1::int - 1) AS n`, [
      races,
    ]);
    await client.query('ANALYZE bench_race');
  });
  await withClient(ctx.url, async (client) => {
    await client.query(
      'CREATE TABLE IF NOT EXISTS bench_races_stmt (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, race_no integer NOT NULL, race_name text NOT NULL)',
    );
    await client.query(ctx.destTable('bench_runners_stmt'));
    await client.query(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT FROM pg_constraint WHERE conname = 'bench_runners_stmt_race_fk') THEN
           ALTER TABLE bench_runners_stmt ADD CONSTRAINT bench_runners_stmt_race_fk FOREIGN KEY (race_ref) REFERENCES bench_races_stmt (id);
         END IF;
       END $$`,
    );
    await client.query('CREATE UNIQUE INDEX IF NOT EXISTS bench_runners_stmt_natural ON bench_runners_stmt (race_ref, tab_number)');
    for (const t of ['bench_races_stmt', 'bench_runners_stmt']) await client.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
  });
  await resetDestination(ctx, ['bench_runners_stmt', 'bench_races_stmt']);
  const parent: TablePlan = {
    sourceTable: 'bench_race',
    destTable: 'bench_races_stmt',
    sourceKey: ['race_id'],
    destKey: 'id',
    columns: [
      { source: 'race_no', dest: 'race_no' },
      { source: 'race_name', dest: 'race_name' },
    ],
    foreignKeys: [],
  };
  const child: TablePlan = {
    ...ctx.table,
    destTable: 'bench_runners_stmt',
    naturalKey: ['race_ref', 'tab_number'],
    foreignKeys: [{ childTable: 'bench_runners_stmt', childColumn: 'race_ref', parentTable: 'bench_races_stmt', parentColumn: 'id' }],
  };
  const { copiedAt } = await runOnWorker(ctx.worker, runPlan(ctx, [parent, child]));
  const ms = copiedAt.bench_runners_stmt! - copiedAt.bench_races_stmt!;
  const pct = (ctx.pipeMs / ms) * 100;
  line(
    'statement path (natural key + FK)',
    `${pct.toFixed(0)} % of the pipe   target ≥ 40 %   (${ctx.rows.toLocaleString('en')} rows ${secs(ms)}, ${Math.round((ctx.rows / ms) * 1000).toLocaleString('en')} rows/s)`,
  );
}

/**
 * Rows pgloader reads ahead per worker. Its default (100,000) took about 1 GB here and sometimes ran
 * out of its heap on the 1,000,000-row table ("Heap exhausted, game over"); 25,000 took 0.7 GB and was
 * no slower (10.6–11.6 s against 13.3 s, 2026-11-28).
 */
const PGLOADER_PREFETCH = 25_000;

/** pgloader (Debian's package, installed when missing) on the same table, database to database, no transforms. */
async function benchPgloader(ctx: ScaleContext): Promise<void> {
  const missing = () => spawnSync('pgloader', ['--version'], { encoding: 'utf8' }).error !== undefined;
  if (missing()) {
    console.log('  • installing pgloader (apt-get install -y pgloader)…');
    const install = spawnSync('apt-get', ['install', '-y', '-q', 'pgloader'], { encoding: 'utf8' });
    if (install.status !== 0 || missing()) {
      line(
        'pgloader',
        `skipped: it could not be installed (${(install.stderr || install.error?.message || 'no pgloader').trim().split('\n').at(-1)})`,
      );
      return;
    }
  }
  const version = spawnSync('pgloader', ['--version'], { encoding: 'utf8' })
    .stdout.split('\n')[0]
    ?.replace(/^pgloader version /, '');
  await withClient(ctx.url, (client) => client.query('DROP TABLE IF EXISTS bench_runners_pgloader'));
  await ctx.checkpoint(ctx.url);
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgloader-'));
  const workers = 2;
  try {
    const file = join(dir, 'bench.load');
    writeFileSync(
      file,
      `LOAD DATABASE FROM ${ctx.sourceUrl} INTO ${ctx.url}
  WITH include drop, create tables, create indexes, reset sequences, workers = ${workers}, concurrency = 1, prefetch rows = ${PGLOADER_PREFETCH}
  INCLUDING ONLY TABLE NAMES MATCHING 'bench_entry' IN SCHEMA 'public'
  ALTER TABLE NAMES MATCHING 'bench_entry' IN SCHEMA 'public' RENAME TO 'bench_runners_pgloader';\n`,
    );
    const started = performance.now();
    const run = spawnSync('pgloader', ['--root-dir', dir, '--no-ssl-cert-verification', file], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const ms = performance.now() - started;
    const copied = await withClient(ctx.url, async (client) => {
      const present = await client.query<{ ok: boolean }>(`SELECT to_regclass('bench_runners_pgloader') IS NOT NULL AS ok`);
      if (!present.rows[0]?.ok) return null;
      return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM bench_runners_pgloader')).rows[0]?.n ?? null;
    }).catch(() => null);
    if (run.status !== 0 || copied !== ctx.rows) {
      const why = (run.stderr || run.stdout || run.error?.message || '').trim().split('\n').slice(-3).join(' | ');
      line('pgloader', `skipped: the run did not copy the table (exit ${run.status}, ${copied ?? 'no'} rows: ${why})`);
      return;
    }
    const rate = Math.round((ctx.rows / ms) * 1000);
    line(
      'pgloader',
      `${secs(ms)}   ${rate.toLocaleString('en')} rows/s   Worker ÷ pgloader ${(ms / ctx.workerMs).toFixed(1)}×   (${version}, ${workers} workers, prefetch rows ${PGLOADER_PREFETCH.toLocaleString('en')}, no transforms)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await withClient(ctx.url, (client) => client.query('DROP TABLE IF EXISTS bench_runners_pgloader')).catch(() => {});
  }
}

/** The scale lines, each printed as it is measured. */
export async function benchMigrateScale(ctx: ScaleContext): Promise<void> {
  await benchParallel(ctx);
  await benchStatementPath(ctx);
  await benchPgloader(ctx);
}
