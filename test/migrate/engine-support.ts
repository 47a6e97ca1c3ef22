import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { type CursorRow, openCursors, readCursors } from '../../workers/migrate/src/engine/cursors';
import { type PreparedTable, prepareTables } from '../../workers/migrate/src/engine/prepare';
import { type Sql, openDestination, openSource, openUrl } from '../../workers/migrate/src/engine/db';
import { introspectSql } from '../../workers/migrate/src/engine/introspect';
import { countMappings } from '../../workers/migrate/src/engine/mappings';
import { CopyPipeline, runStep, withCursor } from '../../workers/migrate/src/engine/run';
import type { Connection, EngineEnv, RunPlan, TablePlan } from '../../workers/migrate/src/engine/types';
import { validateTable } from '../../workers/migrate/src/engine/validation';
import { rowsAs } from './rows-as';

// What the engine tests share: the legacy source (the global setup's second database), and
// destination tables of their own — copies of the racing tables under a per-file prefix — so a
// test's copy never changes the racing tables the other services' tests read.

export const engineEnv: EngineEnv = {
  DATABASE_URL: env.DATABASE_URL,
  PG_WS_PROXY: env.PG_WS_PROXY,
  MIGRATE_ALLOWED_HOSTS: env.MIGRATE_ALLOWED_HOSTS,
};

export function legacyConnection(): Connection {
  const url = new URL(env.TEST_LEGACY_DATABASE_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

export const openLegacy = (): Sql => openSource(engineEnv, legacyConnection());
export const openRacing = (): Sql => openDestination(engineEnv);
export const openLegacyDirect = (): Sql => openUrl(engineEnv, env.TEST_LEGACY_DATABASE_URL);

/** The racing tables the legacy mapping fills, parents first. */
export const RACING_COPY_TABLES = [
  'courses',
  'trainers',
  'jockeys',
  'horses',
  'sales',
  'meetings',
  'races',
  'runners',
  'sectional_times',
  'trial_runs',
];

export type TestDestination = { prefix: string; name: (racingTable: string) => string; drop(): Promise<void> };

/**
 * Empty copies of the racing tables (columns, defaults, identities, indexes) named `<prefix>_<table>`,
 * with the racing foreign keys between them; optionally filled with the racing rows.
 */
export async function createDestination(
  dest: Sql,
  label: string,
  options: { withRacingRows?: boolean; tables?: string[] } = {},
): Promise<TestDestination> {
  const prefix = `t_${label}_${Math.random().toString(36).slice(2, 8)}`;
  const name = (table: string) => `${prefix}_${table}`;
  const schema = await introspectSql(dest);
  const tables = options.tables ?? RACING_COPY_TABLES;
  for (const table of tables) {
    await dest.query(`CREATE TABLE "${name(table)}" (LIKE "${table}" INCLUDING ALL)`);
    if (options.withRacingRows) {
      await dest.query(`INSERT INTO "${name(table)}" OVERRIDING SYSTEM VALUE SELECT * FROM "${table}"`);
      await dest.query(
        `SELECT setval(pg_get_serial_sequence('"${name(table)}"', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM "${table}"), false)`,
      );
    }
  }
  for (const fk of schema.foreignKeys.filter((f) => tables.includes(f.childTable) && tables.includes(f.parentTable))) {
    await dest.query(
      `ALTER TABLE "${name(fk.childTable)}" ADD FOREIGN KEY ("${fk.childColumn}") REFERENCES "${name(fk.parentTable)}" ("${fk.parentColumn}")`,
    );
  }
  return {
    prefix,
    name,
    drop: async () => {
      await dest.query(`DROP TABLE IF EXISTS ${tables.map((t) => `"${name(t)}"`).join(', ')} CASCADE`);
      await forgetEngineRows(dest, prefix);
    },
  };
}

/** Deletes the engine's bookkeeping (id mappings in both stores, run cursors) of the destination tables named `<prefix>_…`. */
export async function forgetEngineRows(dest: Sql, prefix: string): Promise<void> {
  for (const table of ['migration_id_mappings', 'migration_id_ranges', 'migration_run_cursors']) {
    await dest.query(`DELETE FROM ${table} WHERE dest_table LIKE $1`, [`${prefix}\\_%`]);
  }
}

/** The legacy mapping's table plans into a test destination, with the destination's foreign keys. */
export async function legacyPlans(dest: Sql, target: TestDestination, sourceTables?: string[]): Promise<TablePlan[]> {
  const schema = await introspectSql(dest);
  return LEGACY_MAPPING.tables
    .filter((t) => !sourceTables || sourceTables.includes(t.sourceTable))
    .map((t) => {
      const destTable = target.name(t.destTable);
      return {
        ...t,
        destTable,
        foreignKeys: schema.foreignKeys.filter((fk) => fk.childTable === destTable && t.columns.some((c) => c.dest === fk.childColumn)),
      };
    });
}

let configCounter = 0;
/** A configuration id no other test file uses (the id mappings are per configuration). */
export function freshConfigId(): number {
  return 100_000 + Math.floor(Math.random() * 1_000_000) * 10 + (configCounter++ % 10);
}

export function runPlan(tables: TablePlan[], options: Partial<RunPlan> = {}): RunPlan {
  return {
    runId: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    configId: freshConfigId(),
    source: legacyConnection(),
    tables,
    deferred: [],
    patchMode: false,
    chunkSize: 1_000,
    ...options,
  };
}

type Step = Awaited<ReturnType<typeof runStep>>;

/** Steps a run's chunks until every table is copied, following each chunk's cursor (re-read when it went stale). */
async function untilCopied(
  dest: Sql,
  plan: RunPlan,
  step: (cursors: CursorRow[]) => Promise<Step>,
): Promise<{ cursors: CursorRow[]; chunks: number }> {
  let cursors = await openCursors(dest, plan);
  let chunks = 0;
  for (;;) {
    const done = await step(cursors);
    if (done.kind === 'copied') return { cursors, chunks };
    chunks++;
    if (done.result.status === 'stale') cursors = await readCursors(dest, plan.runId);
    else cursors = withCursor(cursors, done.result.cursor);
  }
}

/** Drives a run to its end the way the Durable Object does, without it: prepare, then chunk after chunk. */
export async function copyAll(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  prepare: { directCopy?: boolean } = {},
): Promise<{ tables: PreparedTable[]; cursors: CursorRow[]; chunks: number }> {
  const tables = await prepareTables(source, dest, plan, prepare);
  return { tables, ...(await untilCopied(dest, plan, (cursors) => runStep(source, dest, plan, tables, cursors))) };
}

/** The same through a CopyPipeline (chunks in flight on several connections), the way the Durable Object drives it. */
export async function copyAllPipelined(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  depth = 2,
  prepare: { directCopy?: boolean } = {},
): Promise<{ cursors: CursorRow[]; chunks: number }> {
  const tables = await prepareTables(source, dest, plan, prepare);
  const pipeline = new CopyPipeline(source, dest, plan, tables, depth);
  try {
    return await untilCopied(dest, plan, (cursors) => pipeline.step(cursors));
  } finally {
    await pipeline.drain();
  }
}

export async function count(sql: Sql, table: string, where = 'true'): Promise<number> {
  const rows = await rowsAs<{ n: number }>(sql, `SELECT count(*)::int AS n FROM "${table}" WHERE ${where}`);
  return rows[0]!.n;
}

/** Rows of a racing (destination) table, counted on a connection of its own. */
export async function destCount(table: string): Promise<number> {
  const sql = openUrl(engineEnv, env.DATABASE_URL);
  try {
    return Number((await rowsAs<{ n: string }>(sql, `SELECT count(*)::bigint AS n FROM ${table}`))[0]!.n);
  } finally {
    await sql.end();
  }
}

export class InjectedFault extends Error {
  constructor(at: number) {
    super(`injected connection drop at statement ${at}`);
    this.name = 'InjectedFault';
  }
}

/**
 * A database whose `failAt`-th statement (counting BEGIN/COMMIT inside transactions too) fails as
 * a dropped connection would: before it reaches the server, or — `afterCommit` — once the server
 * has run it but before its answer arrives.
 */
export function faulty(inner: Sql, failAt: number, mode: 'before' | 'after' = 'before'): { sql: Sql; statements: () => number } {
  let n = 0;
  // Each statement keeps its own number: with two chunks in flight, `n` moves on while one awaits.
  const hit = async <T>(run: () => Promise<T>): Promise<T> => {
    const mine = ++n;
    if (mine === failAt && mode === 'before') throw new InjectedFault(mine);
    let result: T;
    try {
      result = await run();
    } catch (error) {
      // The server's answer was an error, and it was lost with the connection all the same.
      if (mine === failAt && mode === 'after') throw new InjectedFault(mine);
      throw error;
    }
    if (mine === failAt && mode === 'after') throw new InjectedFault(mine);
    return result;
  };
  const wrap = (sql: Sql, inTx: boolean): Sql => ({
    query: (text, values) => hit(() => sql.query(text, values)),
    queryAndCommit: (text) => hit(() => sql.queryAndCommit(text)),
    copyOut: (text, options) => hit(() => sql.copyOut(text, options)),
    copyIn: (text, rows, options) => hit(() => sql.copyIn(text, rows, options)),
    transaction: (work, options) => {
      if (inTx) return sql.transaction(work, options);
      // BEGIN and COMMIT count as statements; a fault on COMMIT 'after' means the commit happened.
      return hit(async () => undefined).then(() => {
        let commit = 0;
        return sql
          .transaction(async (tx) => {
            const result = await work(wrap(tx, true));
            commit = ++n;
            if (commit === failAt && mode === 'before') throw new InjectedFault(commit);
            return result;
          }, options)
          .then((result) => {
            if (commit === failAt && mode === 'after') throw new InjectedFault(commit);
            return result;
          });
      });
    },
    end: () => sql.end(),
  });
  return { sql: wrap(inner, false), statements: () => n };
}

/** The one row of a query that always returns one. */
export async function one<T>(rows: Promise<T[]> | T[]): Promise<T> {
  const [row] = await rows;
  if (row === undefined) throw new Error('expected a row');
  return row;
}

/** The rows of each legacy table, under the racing table it copies into. */
async function sourceCountsOf(source: Sql, tables: [legacy: string, racing: string][]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [legacy, racing] of tables) {
    counts[racing] = (await one(rowsAs<{ n: number }>(source, `SELECT count(*)::int AS n FROM ${legacy}`))).n;
  }
  return counts;
}

/** What a copy test opens once: the legacy source, the racing database, its own racing tables, the legacy tables' row counts. */
export type CopyTest = { source: Sql; dest: Sql; target: TestDestination; sourceCounts: Record<string, number> };

/** Opens a copy test for the legacy tables `sources`, each with the racing table it copies into. */
export async function openCopyTest(label: string, sources: [legacy: string, racing: string][]): Promise<CopyTest> {
  const source = openLegacy();
  const dest = openRacing();
  const target = await createDestination(dest, label, { tables: sources.map(([, racing]) => racing) });
  return { source, dest, target, sourceCounts: await sourceCountsOf(source, sources) };
}

/** Drops a copy test's tables and closes its databases. */
export async function closeCopyTest(test: CopyTest): Promise<void> {
  await test.target.drop();
  await Promise.all([test.source.end(), test.dest.end()]);
}

/**
 * Every source row of the plan's tables in `target` once: the table's rows and one mapping per source
 * row, finished cursors that counted each row once, as inserted, and checksums equal.
 */
export async function expectExactlyOnce(
  source: Sql,
  dest: Sql,
  target: TestDestination,
  plan: RunPlan,
  sourceCounts: Record<string, number>,
): Promise<void> {
  const racing = (destTable: string) => destTable.slice(target.prefix.length + 1);
  for (const table of plan.tables.map((t) => racing(t.destTable))) {
    expect(await count(dest, target.name(table)), table).toBe(sourceCounts[table]);
    const { n } = await one(
      rowsAs<{ n: number }>(dest, `SELECT ${countMappings('$t.config_id = $1 AND $t.dest_table = $2')} AS n`, [
        plan.configId,
        target.name(table),
      ]),
    );
    expect(n, `${table} mappings`).toBe(sourceCounts[table]);
  }
  for (const cursor of await readCursors(dest, plan.runId)) {
    const table = racing(cursor.dest_table);
    expect(cursor.finished, table).toBe(true);
    expect(cursor.done, table).toBe(sourceCounts[table]);
    expect(cursor.inserted, table).toBe(cursor.done);
  }
  for (const table of await prepareTables(source, dest, plan)) {
    expect((await validateTable(source, dest, plan.configId, table)).ok, table.plan.destTable).toBe(true);
  }
}

/**
 * A pipelined run (chunks in flight) cut at every destination statement, before or after the
 * database ran it: counted whole first, then cut at each statement of that count on a fresh plan,
 * resumed by `resume` (a new object, knowing only the plan) and checked by `check`.
 */
export async function cutPipelinedAtEveryStatement(
  source: Sql,
  dest: Sql,
  options: {
    fresh: () => Promise<RunPlan>;
    resume: (plan: RunPlan, at: number) => Promise<unknown>;
    check: (plan: RunPlan) => Promise<void>;
  },
): Promise<void> {
  const reference = await options.fresh();
  const counter = faulty(dest, Number.POSITIVE_INFINITY);
  const { chunks } = await copyAllPipelined(source, counter.sql, reference);
  const statements = counter.statements();
  expect(chunks).toBeGreaterThan(5);
  await options.check(reference);
  for (const mode of ['before', 'after'] as const) {
    for (let at = 1; at <= statements; at++) {
      const plan = await options.fresh();
      const broken = faulty(dest, at, mode);
      await expect(copyAllPipelined(source, broken.sql, plan), `${mode} statement ${at}`).rejects.toBeInstanceOf(InjectedFault);
      await options.resume(plan, at);
      await options.check(plan);
    }
  }
}
