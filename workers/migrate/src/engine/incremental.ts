import { type PreparedTable, whereOf } from './prepare.ts';
import { z } from 'zod';
import { type Sql, ident, literal, rows as readRows } from './db.ts';
import { readSource } from './filter.ts';
import { type DeletePolicy, applyDeletes, compareKeyRanges, rangeComparable, softDeleteValue } from './range-compare.ts';
import type { RunPlan, TableInfo } from './types.ts';

// Incremental sync: a sync run reads only the source rows that changed since the table's last
// high-water mark, by one of three methods the operator picks per table —
// - `column`: an updated-at or sequence column of the source: rows with from < column <= to, `to`
//   being the column's greatest value when the run starts;
// - `xmin`: PostgreSQL's row version transaction ids: rows written by transactions from `from` up to
//   (not including) the oldest transaction still running when the run starts, so every transaction
//   below the mark had ended and none is missed;
// - `checksum`: key-range checksums between the source and the destination (range-compare.ts);
//   no mark: the rows that differ are the ones copied;
// - `full`: a whole pass, when none applies (said so on the sync job's page and in the run's log).
// The run's chunks then go as any run's (copy.ts: one guarded statement each, patch mode, so a
// matched row is updated through the id mappings), and the job's mark moves to `to` only once the
// table's last chunk committed (sync-marks.ts, at the run's end). A run cut anywhere leaves the old
// mark; the next run reads those rows again and finds them equal: nothing lost, nothing doubled.
// Deletes are found by key-range comparison of the keys (range-compare.ts) and applied as the job
// says, before any copy, children first.

export type ChangeMethod = 'column' | 'xmin' | 'checksum' | 'full';
export type { DeletePolicy } from './range-compare.ts';

/** A sync job's setting for one table as its run plan carries it. */
export type IncrementalTable = {
  sourceTable: string;
  method: ChangeMethod;
  /** The updated-at or sequence column (method `column`). */
  column?: string;
  /** The mark the job's last finished run of this table reached; null: none yet (a full pass sets it). */
  from: string | null;
  deletes: DeletePolicy;
  /** The destination column a soft delete marks (policy `soft`). */
  softDeleteColumn?: string;
};

export type IncrementalRunPlan = RunPlan & { incremental?: IncrementalTable[] };

/** What a table's pass found at the start of the run (kept with the prepared table). */
export type IncrementalPass = {
  method: ChangeMethod;
  /** What the mark belongs to (`column:<name>`, `xmin`); null for methods without one. */
  markOf: string | null;
  from: string | null;
  /** The mark the job takes once the table's copy has committed. */
  to: string | null;
  /** Rows found to differ (checksum), null when the copy finds them itself. */
  changed: number | null;
  /** Destination rows deleted or marked for source deletes. */
  deleted: number;
  /** Rows the comparisons listed (both sides): what they cost beyond aggregates. */
  listed: number;
  /** Whether the pass reads the whole table (a full pass, or the first pass of a mark). */
  whole: boolean;
  /** One line for the run's log and the sync page. */
  note: string;
};

export type IncrementalPrepared = PreparedTable & { incremental?: IncrementalPass };

/** Types a mark column may have: ordered values whose text reads back as the same value. */
const MARK_TYPES = /^(timestamp(\(\d\))? with(out)? time zone|date|smallint|integer|bigint|numeric(\(\d+(,\d+)?\))?)$/;
export const markColumnType = (type: string) => MARK_TYPES.test(type);

const TIMESTAMP_TYPES = /^(timestamp(\(\d\))? with(out)? time zone|date)$/;
/** Names an updated-at column usually has. */
const UPDATED_NAMES = new Set(['updated_at', 'modified', 'last_modified', 'modified_at', 'last_modified_at', 'updated']);

export const markKey = (method: ChangeMethod, column?: string): string | null =>
  method === 'column' ? `column:${column}` : method === 'xmin' ? 'xmin' : null;

export type Proposal = { method: ChangeMethod; column?: string; reason: string };

/** The method proposed for a source table, and why: an updated-at column, else xmin, else checksums. */
export function proposeMethod(table: TableInfo): Proposal {
  const updated = table.columns.find((c) => UPDATED_NAMES.has(c.ColumnName.toLowerCase()) && TIMESTAMP_TYPES.test(c.DataType));
  if (updated)
    return {
      method: 'column',
      column: updated.ColumnName,
      reason: `${updated.ColumnName} (${updated.DataType}) looks like an updated-at column: rows changed since the last run are read through it`,
    };
  return {
    method: 'xmin',
    reason:
      "no updated-at column: PostgreSQL's xmin finds the rows written since the last run (allow it only where the source keeps its transaction ids: not a database restored or replaced between runs)",
  };
}

/** Why a table's chosen method cannot run (a full pass then), or null when it can. */
export function methodProblem(setting: Pick<IncrementalTable, 'method' | 'column'>, table: TableInfo): string | null {
  if (setting.method === 'column') {
    const column = table.columns.find((c) => c.ColumnName === setting.column);
    if (!column) return `the source has no column ${setting.column ?? '(none chosen)'}`;
    if (!markColumnType(column.DataType)) return `${column.ColumnName} is ${column.DataType}, not a timestamp, date or number`;
  }
  if (setting.method === 'checksum') {
    const keys = table.primaryKey;
    const type = table.columns.find((c) => c.ColumnName === keys[0])?.DataType;
    if (keys.length !== 1 || !['smallint', 'integer', 'bigint'].includes(type ?? ''))
      return 'key-range checksums need a source key of one integer column';
  }
  return null;
}

const EPOCH = 4_294_967_296n;

/** The condition of a mark window on the source table, or null when there is no previous mark (a full pass). */
function windowCondition(
  method: ChangeMethod,
  from: string | null,
  to: string | null,
  column?: { name: string; type: string },
): string | null {
  if (from === null) return null;
  if (method === 'column') {
    if (to === null) return 'false';
    const c = ident(column!.name);
    return `(${c} > ${literal(from)}::${column!.type} AND ${c} <= ${literal(to)}::${column!.type})`;
  }
  // xmin is 32 bits: each row's is read as the 64-bit id nearest below the run's mark `to`.
  const upper = BigInt(to!);
  const lower = BigInt(from);
  if (upper <= lower) return 'false';
  const full = `(${upper}::bigint - ((${upper % EPOCH}::bigint - xmin::text::bigint + ${EPOCH}) % ${EPOCH}))`;
  return `(${full} >= ${lower} AND ${full} < ${upper})`;
}

/** A column's type as format_type writes it. */
const typeRow = z.object({ type: z.string() });

/** The source column's type, or null when the table has no such column. */
async function sourceColumnType(source: Sql, table: string, column: string): Promise<string | null> {
  const rows = await readSource(source, (tx) =>
    readRows(
      tx,
      typeRow,
      `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
       WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
      [ident(table), column],
    ),
  );
  return rows[0]?.type ?? null;
}

/** The mark a run reaches: the column's greatest value (ISO text), or the source's oldest running transaction. */
async function upperMark(source: Sql, method: ChangeMethod, table: string, column?: string): Promise<string | null> {
  const text =
    method === 'column'
      ? `SELECT set_config('DateStyle', 'ISO', true) IS NOT NULL AS iso, max(${ident(column!)})::text AS mark FROM ${ident(table)}`
      : 'SELECT txid_snapshot_xmin(txid_current_snapshot())::text AS mark';
  const rows = await readSource(source, (tx) => readRows(tx, z.object({ mark: z.string().nullable() }), text));
  return rows[0]?.mark ?? null;
}

/** Keys listed in a copy's condition at most; more differing rows make a full pass. */
const MAX_LISTED_KEYS = 20_000;
/** The key types a listed-keys condition is written for. */
const INTEGER_KEY_TYPES = ['smallint', 'integer', 'bigint'];
/** Terms (single keys and runs) in that condition at most. */
const MAX_TERMS = 2_000;

/** A condition selecting `keys` (ascending integers as text): runs as BETWEEN, the rest as one ANY; null when too long or not integers (a full pass then). */
export function keysCondition(column: string, type: string, keys: readonly string[]): string | null {
  if (keys.length === 0) return 'false';
  if (keys.length > MAX_LISTED_KEYS) return null;
  // Keys and type go into the statement's text: only integers of an integer column ever do.
  if (!INTEGER_KEY_TYPES.includes(type) || !keys.every((key) => /^-?\d{1,19}$/.test(key))) return null;
  const singles: string[] = [];
  const runs: string[] = [];
  let start = 0;
  for (let i = 1; i <= keys.length; i++) {
    if (i < keys.length && BigInt(keys[i]!) === BigInt(keys[i - 1]!) + 1n) continue;
    if (i - start >= 3) runs.push(`${ident(column)} BETWEEN ${keys[start]} AND ${keys[i - 1]}`);
    else singles.push(...keys.slice(start, i));
    start = i;
  }
  if (runs.length + (singles.length ? 1 : 0) > MAX_TERMS) return null;
  const any = singles.length ? [`${ident(column)} = ANY('{${singles.join(',')}}'::${type}[])`] : [];
  return `(${[...any, ...runs].join(' OR ')})`;
}

/**
 * The incremental side of a run's preparation (after prepareTables, before any chunk): applies
 * each table's source deletes as its job says (children first, each once), and narrows each
 * table's source condition to what changed since its mark. The tables come back with their pass;
 * only a pass that reads every row may take the direct path. Run again after a
 * cut, it finds the deletes already applied and the same changes (or fewer: those that committed).
 */
export async function prepareIncremental(
  source: Sql,
  dest: Sql,
  plan: IncrementalRunPlan,
  tables: readonly PreparedTable[],
): Promise<IncrementalPrepared[]> {
  const settings = new Map((plan.incremental ?? []).map((s) => [s.sourceTable, s]));
  const passes = new Map<string, { pass: IncrementalPass; condition: string | null }>();
  for (const table of [...tables].reverse()) {
    const setting = settings.get(table.plan.sourceTable);
    if (!setting) continue;
    passes.set(table.plan.destTable, await tablePass(source, dest, plan.configId, table, setting));
  }
  return tables.map((table) => {
    const found = passes.get(table.plan.destTable);
    if (!found) return table;
    const where = found.condition ? `(${whereOf(table)}) AND ${found.condition}` : whereOf(table);
    // A pass that reads only some rows meets mapped ones: the statement path. A whole pass may
    // still go direct (each direct chunk checks that none of its rows is mapped yet).
    return { ...table, where, direct: found.pass.whole ? table.direct : false, incremental: found.pass };
  });
}

async function tablePass(
  source: Sql,
  dest: Sql,
  configId: number,
  table: PreparedTable,
  setting: IncrementalTable,
): Promise<{ pass: IncrementalPass; condition: string | null }> {
  const name = table.plan.sourceTable;
  let method = setting.method;
  let why = '';
  let column: { name: string; type: string } | undefined;
  if (method === 'column') {
    const type = setting.column ? await sourceColumnType(source, name, setting.column) : null;
    if (type && markColumnType(type)) column = { name: setting.column!, type };
    else [method, why] = ['full', `the column ${setting.column ?? '(none)'} is missing or not a timestamp, date or number`];
  }
  if (method === 'checksum' && !rangeComparable(table)) [method, why] = ['full', 'key-range checksums need one integer source key'];
  // Deletes: the checksum comparison finds them with the changes; the other methods compare keys.
  let deleted = 0;
  let listed = 0;
  let changedKeys: string[] | undefined;
  const softColumn = setting.softDeleteColumn
    ? { name: setting.softDeleteColumn, type: await destColumnType(dest, table.plan.destTable, setting.softDeleteColumn) }
    : undefined;
  const deleteNote: string[] = [];
  if (method === 'checksum' || setting.deletes !== 'ignore') {
    if (rangeComparable(table)) {
      const diff = await compareKeyRanges(source, dest, configId, table, method === 'checksum' ? 'rows' : 'keys');
      listed = diff.stats.listed;
      if (method === 'checksum') changedKeys = diff.changed;
      deleted = await applyDeletes(dest, configId, table, diff.deleted, setting.deletes, softColumn);
      if (diff.deleted.length) deleteNote.push(`${diff.deleted.length} deleted at the source (${setting.deletes})`);
    } else deleteNote.push('deletes not looked for: the source key is not one integer column');
  }
  const markOf = markKey(method, column?.name);
  const from = markOf !== null && markOf === markKey(setting.method, setting.column) ? setting.from : null;
  const to = markOf ? await upperMark(source, method, name, column?.name) : null;
  let condition: string | null = null;
  if (method === 'column' || method === 'xmin') condition = windowCondition(method, from, to, column);
  if (changedKeys) {
    condition = keysCondition(table.plan.sourceKey[0]!, table.sourceKeyTypes[0]!, changedKeys);
    if (condition === null) [method, why] = ['full', `${changedKeys.length} rows differ`];
  }
  const note =
    method === 'full'
      ? `full pass${why ? `: ${why}` : ''}`
      : from === null && markOf
        ? `first ${method === 'xmin' ? 'xmin' : `${column!.name}`} pass: every row is read and the mark set to ${to ?? 'none'}`
        : method === 'checksum'
          ? `key-range checksums: ${changedKeys!.length} rows differ`
          : `${method === 'xmin' ? 'xmin' : column!.name} after ${from} up to ${to}`;
  // The first pass of a mark reads every row, as a full pass does.
  const whole = method === 'full' || (markOf !== null && from === null);
  const pass = {
    method,
    markOf,
    from,
    to,
    whole,
    changed: changedKeys ? changedKeys.length : null,
    deleted,
    listed,
    note: [note, ...deleteNote].join('; '),
  };
  return { pass, condition: method === 'full' ? null : condition };
}

async function destColumnType(dest: Sql, table: string, column: string): Promise<string> {
  const rows = await readRows(
    dest,
    typeRow,
    `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
     WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
    [ident(table), column],
  );
  const type = rows[0]?.type;
  if (!type || softDeleteValue(type) === null)
    throw new Error(`${table}.${column} cannot mark a deleted row: it must be a boolean, timestamp or date column`);
  return type;
}

/** The marks a finished run moves its job to: per source table whose copy committed to its end. */
export function reachedMarks(
  tables: readonly IncrementalPrepared[] | null,
  finished: (destTable: string) => boolean,
): { sourceTable: string; markOf: string; mark: string | null }[] {
  return (tables ?? []).flatMap((t) => {
    const pass = t.incremental;
    if (!pass?.markOf || !finished(t.plan.destTable)) return [];
    return [{ sourceTable: t.plan.sourceTable, markOf: pass.markOf, mark: pass.to }];
  });
}

/** A prepared table's incremental pass, when it has one (a sync job's run). */
export const incrementalOf = (table: PreparedTable): IncrementalPass | undefined => (table as IncrementalPrepared).incremental;
