import { eq } from 'drizzle-orm';
import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type * as schema from '#d1/migrate/schema.ts';
import { SYNC_CHANGE_METHODS, SYNC_DELETE_POLICIES, syncJobTables, syncJobs } from '#d1/migrate/schema.ts';
import {
  type ChangeMethod,
  type DeletePolicy,
  type IncrementalPrepared,
  type IncrementalTable,
  type Proposal,
  markKey,
  methodProblem,
  proposeMethod,
  reachedMarks,
} from './engine/incremental.ts';
import type { SchemaInfo } from './engine/types.ts';

// A sync job's per-table incremental settings and high-water marks (D1 `sync_job_tables`): what the
// job's page edits, what a run's plan carries, and the marks a run moves once it has finished a table.

type MigrateDb = DrizzleD1Database<typeof schema>;

export type ChosenMethod = (typeof SYNC_CHANGE_METHODS)[number];
export { SYNC_CHANGE_METHODS, SYNC_DELETE_POLICIES };

export type SyncTableSetting = {
  sourceTable: string;
  method: ChosenMethod;
  column: string | null;
  deletes: DeletePolicy;
  softDeleteColumn: string | null;
  markOf: string | null;
  mark: string | null;
  markRunId: string | null;
};

const DEFAULT: Omit<SyncTableSetting, 'sourceTable'> = {
  method: 'auto',
  column: null,
  deletes: 'ignore',
  softDeleteColumn: null,
  markOf: null,
  mark: null,
  markRunId: null,
};

/** The job's setting for each of `tables` (the default, `auto` and `ignore`, where none was saved). */
export async function syncTableSettings(db: MigrateDb, jobId: number, tables: readonly string[]): Promise<SyncTableSetting[]> {
  const rows = await db.select().from(syncJobTables).where(eq(syncJobTables.jobId, jobId)).all();
  return tables.map((sourceTable) => {
    const row = rows.find((r) => r.sourceTable === sourceTable);
    return row
      ? {
          sourceTable,
          method: row.method,
          column: row.column,
          deletes: row.deletes,
          softDeleteColumn: row.softDeleteColumn,
          markOf: row.markOf,
          mark: row.mark,
          markRunId: row.markRunId,
        }
      : { sourceTable, ...DEFAULT };
  });
}

export type SettingInput = Pick<SyncTableSetting, 'sourceTable' | 'method' | 'column' | 'deletes' | 'softDeleteColumn'>;

/** Saves the operator's choices; the marks stay (a mark of another method is simply not used). */
export async function saveSyncTableSettings(db: MigrateDb, jobId: number, settings: readonly SettingInput[], now: number): Promise<void> {
  for (const s of settings) {
    const values = { method: s.method, column: s.column, deletes: s.deletes, softDeleteColumn: s.softDeleteColumn, updatedAt: now };
    await db
      .insert(syncJobTables)
      .values({ jobId, sourceTable: s.sourceTable, ...values })
      .onConflictDoUpdate({ target: [syncJobTables.jobId, syncJobTables.sourceTable], set: values });
  }
}

/** The method a setting resolves to for a source table (`auto`: the proposal), with why a full pass when none applies. */
export function resolvedMethod(
  setting: Pick<SyncTableSetting, 'method' | 'column'>,
  table: SchemaInfo['tables'][number] | undefined,
): { method: ChangeMethod; column?: string; proposal: Proposal | null; fullBecause: string | null } {
  if (!table) return { method: 'full', proposal: null, fullBecause: 'the source no longer has this table' };
  const proposal = proposeMethod(table);
  const chosen = setting.method === 'auto' ? proposal : { method: setting.method, column: setting.column ?? undefined };
  if (chosen.method === 'full') return { method: 'full', proposal, fullBecause: 'the operator chose a full pass' };
  const problem = methodProblem(chosen, table);
  if (problem) return { method: 'full', proposal, fullBecause: problem };
  return { method: chosen.method, ...(chosen.column ? { column: chosen.column } : {}), proposal, fullBecause: null };
}

/** The job's tables as its run plan carries them: each resolved method, its mark (when it belongs to it) and delete policy. */
export async function incrementalPlan(
  db: MigrateDb,
  jobId: number,
  tables: readonly string[],
  source: SchemaInfo,
): Promise<IncrementalTable[]> {
  const settings = await syncTableSettings(db, jobId, tables);
  return settings.map((s) => {
    const { method, column } = resolvedMethod(
      s,
      source.tables.find((t) => t.name === s.sourceTable),
    );
    const key = markKey(method, column);
    return {
      sourceTable: s.sourceTable,
      method,
      ...(column ? { column } : {}),
      from: key !== null && s.markOf === key ? s.mark : null,
      deletes: s.deletes,
      ...(s.softDeleteColumn ? { softDeleteColumn: s.softDeleteColumn } : {}),
    };
  });
}

/**
 * Moves the job's marks to those a run reached, for each table whose copy finished (its last chunk
 * committed in the destination). Only while the run is still the job's current one, so an older
 * run's end never moves a mark back. A sync job's run only (`sync-job:<id>`).
 */
export async function advanceSyncMarks(
  db: MigrateDb,
  owner: string,
  runId: string,
  tables: readonly IncrementalPrepared[] | null,
  finished: (destTable: string) => boolean,
  now: number,
): Promise<number> {
  const id = owner.startsWith('sync-job:') ? Number(owner.slice('sync-job:'.length)) : Number.NaN;
  if (!Number.isSafeInteger(id)) return 0;
  const marks = reachedMarks(tables, finished);
  if (marks.length === 0) return 0;
  const current = await db.select({ runId: syncJobs.lastRunId }).from(syncJobs).where(eq(syncJobs.id, id)).get();
  if (current?.runId !== runId) return 0;
  for (const m of marks) {
    const values = { markOf: m.markOf, mark: m.mark, markRunId: runId, updatedAt: now };
    await db
      .insert(syncJobTables)
      .values({ jobId: id, sourceTable: m.sourceTable, ...values })
      .onConflictDoUpdate({ target: [syncJobTables.jobId, syncJobTables.sourceTable], set: values });
  }
  return marks.length;
}
