import { copyParams, copyStatement } from './copy.ts';
import { copyCountsSchema, openCursors } from './cursors.ts';
import { z } from 'zod';
import { readCopyPage, type SourcePage } from './pages.ts';
import { type PreparedTable, prepareTables } from './prepare.ts';
import { type Sql, openDestination, openSource, rows as readRows } from './db.ts';
import { isRowError, MAX_REJECT_LIMIT, type RejectRecord, setAside } from './rejects.ts';
import type { EngineEnv, RunPlan } from './types.ts';

// A dry run: the plan on the first N source rows of each table, through the copy's own statement
// (conversion, foreign keys through the id mappings, matching by mapping or natural key, inserts,
// patch-mode updates, bad rows set aside) inside ONE destination transaction that is always rolled
// back. New ids come from temporary sequences that start where the tables' own do, so not even a
// sequence value is drawn; the run's cursors, mappings and rejects exist only inside it. Tables go
// in the plan's order, so a child sees the parent rows the dry run inserted before it (and only those).

export const DEFAULT_DRY_RUN_ROWS = 100;
export const MAX_DRY_RUN_ROWS = 1_000;

export type DryRunTable = {
  sourceTable: string;
  table: string;
  /** Source rows read (at most the dry run's N, after the table's filter). */
  read: number;
  /** New destination rows. */
  inserted: number;
  /** Existing rows changed (patch mode). */
  updated: number;
  /** Rows matched to an existing row (id mapping or natural key) and left as they are. */
  matched: number;
  /** Rows skipped because a foreign key value has no id mapping. */
  unresolved: number;
  /** Rows set aside: their cast or a constraint failed. */
  rejected: RejectRecord[];
};

export type DryRunReport = { rowsPerTable: number; patchMode: boolean; tables: DryRunTable[] };

/** Thrown inside the transaction to end it with ROLLBACK, carrying the report out. */
class RolledBack extends Error {
  constructor(readonly report: DryRunReport) {
    super('dry run rolled back');
  }
}

/**
 * Each table's key sequence replaced, for this transaction, by a temporary one that continues from
 * it: `nextval` on a real sequence is never undone by a rollback.
 */
async function withShadowSequences(tx: Sql, tables: PreparedTable[]): Promise<PreparedTable[]> {
  const shadowed: PreparedTable[] = [];
  for (const [i, table] of tables.entries()) {
    if (!table.sequence) {
      shadowed.push(table);
      continue;
    }
    const [state] = await readRows(
      tx,
      z.object({ next: z.string(), inc: z.string() }),
      `SELECT (CASE WHEN s.is_called THEN s.last_value + p.seqincrement ELSE s.last_value END)::text AS next, p.seqincrement::text AS inc
       FROM ${table.sequence} s, pg_sequence p WHERE p.seqrelid = $1::regclass`,
      [table.sequence],
    );
    if (!state || !/^-?\d+$/.test(state.next) || !/^-?\d+$/.test(state.inc)) throw new Error(`cannot read the sequence ${table.sequence}`);
    const name = `pg_temp.dry_run_sequence_${i}`;
    await tx.query(
      `CREATE TEMP SEQUENCE dry_run_sequence_${i} AS bigint INCREMENT BY ${state.inc}
       MINVALUE -9223372036854775808 MAXVALUE 9223372036854775807 START WITH ${state.next}`,
    );
    shadowed.push({ ...table, sequence: name });
  }
  return shadowed;
}

/** One table's first page through the copy statement; bad rows set aside as a run would. */
async function dryTable(tx: Sql, plan: RunPlan, table: PreparedTable, page: SourcePage, rows: number): Promise<DryRunTable> {
  const text = copyStatement(table);
  const params = copyParams(plan, table, page, null, rows);
  await tx.query('SAVEPOINT dry_run_table');
  let counts: { inserted: number; updated: number; unresolved: number };
  let rejected: RejectRecord[] = [];
  try {
    const [row] = await readRows(tx, copyCountsSchema, text, params);
    if (!row) throw new Error('the copy statement returned no row');
    counts = row;
  } catch (error) {
    if (!isRowError(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT dry_run_table');
    const outcome = await setAside(tx, { runId: plan.runId, rejectLimit: MAX_REJECT_LIMIT }, table, text, params, true);
    counts = outcome.row!;
    rejected = outcome.rejects;
  }
  const inserted = Number(counts.inserted);
  const updated = Number(counts.updated);
  const unresolved = Number(counts.unresolved);
  return {
    sourceTable: table.plan.sourceTable,
    table: table.plan.destTable,
    read: page.rows,
    inserted,
    updated,
    unresolved,
    matched: page.rows - inserted - updated - unresolved - rejected.length,
    rejected,
  };
}

/**
 * Runs `plan` on the first `rows` source rows of each table and rolls everything back: what a run
 * would insert, update, leave, skip and set aside, and why. Nothing is written to the destination.
 */
export async function dryRun(env: EngineEnv, plan: RunPlan, rows: number): Promise<DryRunReport> {
  const n = Math.min(MAX_DRY_RUN_ROWS, Math.max(1, Math.floor(rows)));
  const source = openSource(env, plan.source);
  const dest = openDestination(env);
  try {
    // The statement path for every table (the direct path's COPY commits its own rows' ids).
    const tables = await prepareTables(source, dest, plan);
    const pages = new Map<string, SourcePage>();
    for (const table of tables) pages.set(table.plan.destTable, await readCopyPage(source, table, null, n));
    try {
      await dest.transaction(async (tx) => {
        const shadowed = await withShadowSequences(tx, tables);
        await openCursors(tx, plan);
        const report: DryRunReport = { rowsPerTable: n, patchMode: plan.patchMode, tables: [] };
        for (const table of shadowed) report.tables.push(await dryTable(tx, plan, table, pages.get(table.plan.destTable)!, n));
        throw new RolledBack(report);
      });
    } catch (error) {
      if (error instanceof RolledBack) return error.report;
      throw error;
    }
    throw new Error('the dry run was not rolled back');
  } finally {
    await Promise.all([source.end(), dest.end()]);
  }
}
