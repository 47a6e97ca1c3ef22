import { connectionOf, engineEnv } from './configurations.ts';
import type { MigrateServices } from './context.ts';
import * as engine from './engine/index.ts';
import { type ChangeMethod, type Proposal, markColumnType } from './engine/incremental.ts';
import { softDeleteValue } from './engine/range-compare.ts';
import { buildPlans } from './runs.ts';
import type { SyncJob } from './data/sync-jobs.ts';
import { syncMappingDocument } from './data/sync-jobs.ts';
import {
  type ChosenMethod,
  SYNC_CHANGE_METHODS,
  SYNC_DELETE_POLICIES,
  type SettingInput,
  type SyncTableSetting,
  resolvedMethod,
  syncTableSettings,
} from './sync-marks.ts';

// What the sync job's incremental settings page and its JSON route show and accept: per table the
// operator's choice, the proposed method and why, the method a run will use (or why a full pass),
// the mark, and the columns that may serve (source columns for a mark, destination columns for a
// soft delete). Every name the operator sends is checked against those lists: never SQL.

export type IncrementalTableView = {
  setting: SyncTableSetting;
  destTable: string | null;
  proposal: Proposal | null;
  /** What the next run does. */
  method: ChangeMethod;
  column: string | null;
  /** Why the next run reads the whole table, or null. */
  fullBecause: string | null;
  /** Source columns a mark may use (timestamp, date or number). */
  markColumns: string[];
  /** Destination columns a soft delete may mark (boolean, timestamp or date). */
  softColumns: string[];
};

export async function incrementalView(s: MigrateServices, job: SyncJob): Promise<IncrementalTableView[]> {
  const env = engineEnv(s);
  const [source, dest, doc, settings] = await Promise.all([
    engine.introspect(env, await connectionOf(s, job.configId)),
    engine.introspect(env, 'destination'),
    syncMappingDocument(s.var.db, job.configId),
    syncTableSettings(s.var.db, job.id, job.tables),
  ]);
  const present = job.tables.filter((t) => source.tables.some((info) => info.name === t));
  const plans = buildPlans(present, doc, source, dest);
  return settings.map((setting) => {
    const table = source.tables.find((t) => t.name === setting.sourceTable);
    const destTable = plans.find((p) => p.sourceTable === setting.sourceTable)?.destTable || null;
    const resolved = resolvedMethod(setting, table);
    const destInfo = destTable ? dest.tables.find((t) => t.name === destTable) : undefined;
    return {
      setting,
      destTable,
      proposal: resolved.proposal,
      method: resolved.method,
      column: resolved.column ?? null,
      fullBecause: resolved.fullBecause,
      markColumns: (table?.columns ?? []).filter((c) => markColumnType(c.DataType)).map((c) => c.ColumnName),
      softColumns: (destInfo?.columns ?? []).filter((c) => softDeleteValue(c.DataType) !== null).map((c) => c.ColumnName),
    };
  });
}

export type IncrementalInput = {
  sourceTable: string;
  method: string;
  column?: string | null;
  deletes: string;
  softDeleteColumn?: string | null;
};

/**
 * The operator's settings checked against the view: every table of the job once, a method and a
 * delete policy from their lists, a mark column among the source's mark columns, a soft-delete column
 * among the destination's. The settings to save, or the problems by field (`<table>.<field>`).
 */
export function checkIncrementalInput(
  view: IncrementalTableView[],
  input: IncrementalInput[],
): { ok: true; settings: SettingInput[] } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const settings: SettingInput[] = [];
  for (const entry of input) {
    if (!view.some((v) => v.setting.sourceTable === entry.sourceTable))
      errors[`${entry.sourceTable}.table`] = 'is not a table of this sync job';
  }
  for (const v of view) {
    const table = v.setting.sourceTable;
    const entry = input.find((i) => i.sourceTable === table);
    if (!entry) {
      errors[`${table}.method`] = 'is missing';
      continue;
    }
    const method = (SYNC_CHANGE_METHODS as readonly string[]).includes(entry.method) ? (entry.method as ChosenMethod) : null;
    const deletes = (SYNC_DELETE_POLICIES as readonly string[]).includes(entry.deletes)
      ? (entry.deletes as SyncTableSetting['deletes'])
      : null;
    if (!method) errors[`${table}.method`] = `must be one of ${SYNC_CHANGE_METHODS.join(', ')}`;
    if (!deletes) errors[`${table}.deletes`] = `must be one of ${SYNC_DELETE_POLICIES.join(', ')}`;
    const column = entry.column?.trim() || null;
    if (method === 'column' && !column) errors[`${table}.column`] = 'choose the updated-at or sequence column';
    else if (method === 'column' && column && !v.markColumns.includes(column))
      errors[`${table}.column`] = `is not a timestamp, date or number column of ${table}`;
    const soft = entry.softDeleteColumn?.trim() || null;
    if (deletes === 'soft' && !soft) errors[`${table}.softDeleteColumn`] = 'choose the column that marks a deleted row';
    else if (deletes === 'soft' && soft && !v.softColumns.includes(soft))
      errors[`${table}.softDeleteColumn`] = `is not a boolean, timestamp or date column of ${v.destTable ?? 'the destination table'}`;
    if (method && deletes)
      settings.push({
        sourceTable: table,
        method,
        column: method === 'column' ? column : null,
        deletes,
        softDeleteColumn: deletes === 'soft' ? soft : null,
      });
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, settings };
}
