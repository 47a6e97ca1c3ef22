import { type CopyRows, type Sql, ident, literal } from './db.ts';
import { canonicalText, checksumAggregate, keyText, valueExpression } from './expressions.ts';
import { COPY_READ_TIMEOUT_MS, readSource, tableCondition } from './filter.ts';
import { conditionSql } from './condition.ts';
import { findColumn, findTable, introspectSql } from './introspect.ts';
import { allMappings, mappedId, rangesExist, rangesOverlap, recordMappings, rowsExist, sourceNumber } from './mappings.ts';
import { validatePlan } from './plan.ts';
import { commitSettingAside, isRowError } from './rejects.ts';
import { FilterError, type ForeignKey, type RunPlan, type SchemaInfo, type TablePlan, type TableValidation } from './types.ts';

// The copy step. A chunk is: keyset-read up to N source rows (read-only transaction), then ONE
// destination statement (one transaction, one round trip) that converts, translates foreign keys
// through the id mappings, matches existing rows (mapping, then natural key), inserts the new ones
// with ids drawn from the destination's sequence, updates matched ones in patch mode, records the
// new mappings, and advances the run's cursor row — guarded by the cursor it started from, and
// failing as a whole when that guard finds the cursor moved on. A chunk replayed after a lost
// answer or a reset changes nothing ("stale"); a chunk cut off mid-way rolls back whole. So a run
// resumed from any point ends with each source row copied once.

export const DEFAULT_CHUNK_SIZE = 2_000;
export const MAX_CHUNK_SIZE = 20_000;
const COPY_PHASE = 'copy';

/** A plan table with what the run looked up about it once, at the start. */
export type PreparedTable = {
  plan: TablePlan;
  sourceKeyTypes: string[];
  /** Source column → its data type, for the columns the copy reads. */
  sourceTypes: Record<string, string>;
  /** format_type() of every destination column the copy writes, and of the key. */
  destTypes: Record<string, string>;
  /** The destination key's sequence (identity or serial); null when the key is a mapped column. */
  sequence: string | null;
  /** Destination FK column → parent destination table, for the columns translated through id mappings. */
  translated: Record<string, string>;
  /** Destination FK columns copied empty to break a cycle, backfilled afterwards. */
  deferred: string[];
  /**
   * Whether its chunks may take the direct path (`directChunk`): rows converted on the source and
   * streamed by COPY into the destination table. Absent (older stored runs) means no.
   */
  direct?: boolean;
  /**
   * Whether an index of the destination table leads with a natural-key column: then each row's
   * natural key is looked up by an index probe, else by one hash join over the table. Absent (older
   * stored runs) means no.
   */
  naturalIndex?: boolean;
  /**
   * The table's filter as printed from its parsed tree (condition.ts), `true` when it has none.
   * Absent (runs prepared before filters were parsed) with a filter refuses the run (`whereOf`).
   */
  where?: string;
};

/** The WHERE condition a prepared table's source reads use. */
export function whereOf(table: PreparedTable): string {
  if (table.where !== undefined) return table.where;
  if (table.plan.filter?.trim())
    throw new PlanError(`${table.plan.sourceTable}: this run was prepared before filters were checked; start it again`);
  return 'true';
}

/** A table's filter compiled against the source schema; a refused filter makes the plan wrong, not the run flaky. */
function preparedWhere(table: TablePlan, sourceSchema: SchemaInfo): string {
  try {
    return conditionSql(tableCondition(table.filter, table.sourceTable, sourceSchema));
  } catch (error) {
    if (error instanceof FilterError) throw new PlanError(`${table.sourceTable}: the filter was refused: ${error.message}`);
    throw error;
  }
}

const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint']);

export type Phase = { table: string; phase: string; kind: 'copy' | 'backfill'; column?: string };

export type CursorRow = {
  dest_table: string;
  phase: string;
  cursor: string | null;
  done: number;
  inserted: number;
  updated: number;
  skipped: number;
  finished: boolean;
};

export type ChunkResult =
  | {
      status: 'advanced';
      rows: number;
      finished: boolean;
      cursor: CursorRow;
      unresolved: number;
      /** Rows set aside in migration_rejects (their cast or a constraint failed; see rejects.ts). */
      rejected?: number;
    }
  | { status: 'stale' };

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

export function chunkSizeOf(plan: RunPlan): number {
  return Math.min(MAX_CHUNK_SIZE, Math.max(1, Math.floor(plan.chunkSize ?? DEFAULT_CHUNK_SIZE)));
}

export function phasesOf(plan: RunPlan): Phase[] {
  return [
    ...plan.tables.map((t): Phase => ({ table: t.destTable, phase: COPY_PHASE, kind: 'copy' })),
    ...plan.deferred.map(
      (fk): Phase => ({ table: fk.childTable, phase: `backfill:${fk.childColumn}`, kind: 'backfill', column: fk.childColumn }),
    ),
  ];
}

const isDeferred = (deferred: ForeignKey[], table: string, column: string) =>
  deferred.some((fk) => fk.childTable === table && fk.childColumn === column);

/**
 * Checks the plan against both schemas and looks up the types and sequences the chunks need.
 * Throws PlanError listing the plan's errors.
 */
export async function prepareTables(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  options: { validate?: boolean; directCopy?: boolean } = {},
): Promise<PreparedTable[]> {
  const [sourceSchema, destSchema] = await Promise.all([introspectSql(source), introspectSql(dest, { hideEngineTables: true })]);
  const errors = validatePlan(plan.tables, sourceSchema, destSchema).filter(
    (i) => i.level === 'error' && (options.validate !== false || /does not exist/.test(i.message)),
  );
  if (errors.length > 0) throw new PlanError(errors.map((e) => `${e.table}${e.column ? `.${e.column}` : ''}: ${e.message}`).join('; '));
  const prepared: PreparedTable[] = [];
  for (const table of plan.tables) {
    const from = findTable(sourceSchema, table.sourceTable)!;
    const to = findTable(destSchema, table.destTable)!;
    const destTypes: Record<string, string> = {};
    for (const column of [table.destKey, ...table.columns.map((c) => c.dest)]) destTypes[column] = findColumn(to, column)!.DataType;
    let sequence: string | null = null;
    if (!table.columns.some((c) => c.dest === table.destKey)) {
      const rows = await dest.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [
        ident(table.destTable),
        table.destKey,
      ]);
      sequence = rows[0]?.seq ?? null;
      if (!sequence) throw new PlanError(`${table.destTable}.${table.destKey}: the key has no sequence or identity and is not mapped`);
    }
    const translated: Record<string, string> = {};
    const deferred: string[] = [];
    for (const fk of table.foreignKeys) {
      if (!table.columns.some((c) => c.dest === fk.childColumn)) continue;
      if (isDeferred(plan.deferred, table.destTable, fk.childColumn)) deferred.push(fk.childColumn);
      else translated[fk.childColumn] = fk.parentTable;
    }
    const entry: PreparedTable = {
      plan: table,
      sourceKeyTypes: table.sourceKey.map((k) => findColumn(from, k)!.DataType),
      sourceTypes: Object.fromEntries(table.columns.map((c) => [c.source, findColumn(from, c.source)!.DataType])),
      destTypes,
      sequence,
      translated,
      deferred,
      where: preparedWhere(table, sourceSchema),
    };
    entry.direct = options.directCopy === true && directShape(entry) && (await ascendingSequence(dest, sequence!));
    if (table.naturalKey?.length) entry.naturalIndex = await indexLeadsWith(dest, table.destTable, table.naturalKey);
    prepared.push(entry);
  }
  return prepared;
}

/**
 * Destination types the direct path may name on the source (its values are converted there, so the
 * type must exist on any PostgreSQL): core types only, never an enum, domain or extension type.
 */
const CORE_TYPES =
  /^(smallint|integer|bigint|numeric(\(\d+(,\d+)?\))?|real|double precision|boolean|text|character varying(\(\d+\))?|character(\(\d+\))?|date|time(\(\d\))? without time zone|timestamp(\(\d\))? with(out)? time zone|uuid|json|jsonb|bytea)$/;

/**
 * A table whose chunks only ever insert new rows with ids from the destination's sequence: one
 * integer source key, the destination key not copied, no natural key to match, no foreign key to
 * translate (deferred ones are copied empty), core types only. Whether a chunk's rows are all new is
 * checked per chunk (`directChunk`).
 */
function directShape(table: PreparedTable): boolean {
  const plan = table.plan;
  return (
    integerSourceKey(table) &&
    table.sequence !== null &&
    !plan.naturalKey?.length &&
    Object.keys(table.translated).length === 0 &&
    plan.columns.every((c) => CORE_TYPES.test(table.destTypes[c.dest]!))
  );
}

/** Whether a plain index of `table` has one of `columns` as its first column. */
async function indexLeadsWith(dest: Sql, table: string, columns: string[]): Promise<boolean> {
  const rows = await dest.query<{ yes: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
       WHERE i.indrelid = $1::regclass AND i.indpred IS NULL AND a.attname = ANY($2::text[])
     ) AS yes`,
    [ident(table), columns],
  );
  return rows[0]?.yes === true;
}

/** Whether the sequence counts upwards (new ids ascend in the order they were drawn). */
async function ascendingSequence(dest: Sql, sequence: string): Promise<boolean> {
  const rows = await dest.query<{ up: boolean }>('SELECT seqincrement > 0 AS up FROM pg_sequence WHERE seqrelid = $1::regclass', [
    sequence,
  ]);
  return rows[0]?.up === true;
}

/** Creates the run's cursor rows (idempotent) and returns every one of them. */
export async function openCursors(dest: Sql, plan: RunPlan): Promise<CursorRow[]> {
  const phases = phasesOf(plan);
  await dest.query(
    `INSERT INTO migration_run_cursors (run_id, dest_table, phase) SELECT $1, t, p FROM unnest($2::text[], $3::text[]) AS u(t, p)
     ON CONFLICT DO NOTHING`,
    [plan.runId, phases.map((p) => p.table), phases.map((p) => p.phase)],
  );
  return readCursors(dest, plan.runId);
}

export async function readCursors(dest: Sql, runId: string): Promise<CursorRow[]> {
  return dest.query<CursorRow>(
    `SELECT dest_table, phase, cursor, done, inserted, updated, skipped, finished FROM migration_run_cursors WHERE run_id = $1`,
    [runId],
  );
}

/** Source rows each table will copy (after its filter), by destination table. */
export async function sourceTotals(source: Sql, tables: readonly PreparedTable[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  await readSource(source, async (tx) => {
    for (const table of tables) {
      const rows = await tx.query<{ n: string }>(
        `SELECT count(*)::bigint AS n FROM ${ident(table.plan.sourceTable)} WHERE ${whereOf(table)}`,
      );
      totals[table.plan.destTable] = Number(rows[0]?.n ?? 0);
    }
  });
  return totals;
}

/**
 * Source column types whose text form never holds a backslash, tab or newline: their values go into
 * a page as they are; every other value is escaped (see `pageField`).
 */
const PLAIN_TEXT_TYPES = /^(smallint|integer|bigint|numeric|real|double precision|boolean|date|time|timestamp|uuid)\b/;
const isPlainText = (type: string | undefined) => type !== undefined && PLAIN_TEXT_TYPES.test(type);

/** Whether the source key is one integer column (its values are the ranges' numbers as they are). */
const integerSourceKey = (table: PreparedTable) => table.sourceKeyTypes.length === 1 && INTEGER_TYPES.has(table.sourceKeyTypes[0]!);

/** The source key's type when it is one column (its text is escaped by that type); else undefined (escaped). */
const keyTypeOf = (table: PreparedTable) => (table.plan.sourceKey.length === 1 ? table.sourceKeyTypes[0] : undefined);

/**
 * One value of a page line: NULL as `\N`; a backslash as `\.`, a tab as `\t`, a newline as `\n`.
 * Every backslash of an escaped value starts one of those pairs, so `pageValue` undoes them with
 * plain replacements, and no escaped value is `\N`.
 */
function pageField(x: string, type: string | undefined): string {
  const text = isPlainText(type) ? x : `replace(replace(replace(${x}, '\\', '\\.'), E'\\t', '\\t'), E'\\n', '\\n')`;
  return `coalesce(${text}, '\\N')`;
}

/** A page line's field `f` (text, NULL already read from `\N`) as the source value's text. */
function pageValue(f: string, type: string | undefined): string {
  if (isPlainText(type)) return f;
  return `CASE WHEN strpos(${f}, '\\') = 0 THEN ${f} ELSE replace(replace(replace(${f}, '\\t', E'\\t'), '\\n', E'\\n'), '\\.', '\\') END`;
}

/**
 * Keyset page of the source after `cursor`, aggregated on the source into one row: the row count,
 * the last key (the next cursor, JSON) and the rows as one text, a line per row in key order, its
 * fields (the source id, then the columns' values as text) separated by tabs (see `pageField`).
 * The text goes to the destination as one parameter untouched, so no value is parsed or
 * re-serialised in the Worker, and the destination splits it with two string functions — a
 * fraction of what parsing one JSON array per column costs either side.
 */
async function readSourcePage(
  source: Sql,
  table: PreparedTable,
  columns: string[],
  cursor: string | null,
  limit: number,
): Promise<SourcePage> {
  const plan = table.plan;
  const keys = plan.sourceKey.map(ident);
  const after: unknown[] = cursor ? (JSON.parse(cursor) as unknown[]) : [];
  const params: unknown[] = [...after, limit];
  const keyset = cursor
    ? `(${keys.join(', ')}) > (${plan.sourceKey.map((_, i) => `$${i + 1}::${table.sourceKeyTypes[i]}`).join(', ')})`
    : 'true';
  const inner = [...keys.map((k, i) => `${k} AS k${i}`), ...columns.map((c, i) => `${ident(c)}::text AS c${i}`)].join(', ');
  const last =
    plan.sourceKey.length === 1
      ? `json_build_array(max(k0)::text)::text`
      : `(array_agg(json_build_array(${plan.sourceKey.map((_, i) => `k${i}::text`).join(', ')})::text ORDER BY ${plan.sourceKey.map((_, i) => `k${i} DESC`).join(', ')}))[1]`;
  const fields = [
    pageField(keyText(plan.sourceKey.map((_, i) => `k${i}`)), keyTypeOf(table)),
    ...columns.map((c, i) => pageField(`c${i}`, table.sourceTypes[c])),
  ];
  const num = integerSourceKey(table) ? 'k0::bigint' : sourceNumber(keyText(plan.sourceKey.map((_, i) => `k${i}`)));
  const text = `SELECT count(*)::int AS n, ${last} AS last, min(${num})::text AS lo, max(${num})::text AS hi,
      string_agg(${fields.join(` || E'\\t' || `)}, E'\\n') AS data
    FROM (SELECT ${inner} FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)} AND ${keyset}
          ORDER BY ${keys.join(', ')} LIMIT $${params.length}) page`;
  const [row] = await readSource(source, (tx) => tx.query(text, params));
  const rows = Number(row?.n ?? 0);
  const orNull = (v: unknown) => (rows > 0 && v !== null && v !== undefined ? String(v) : null);
  return { rows, last: orNull(row?.last), data: rows > 0 ? String(row?.data ?? '') : null, lo: orNull(row?.lo), hi: orNull(row?.hi) };
}

/**
 * A page's rows (parameter `param`, see `readSourcePage`) as `src_id`, the source columns under the
 * given names, and `ord` (the line's position).
 */
function pageRows(param: string, table: PreparedTable, columns: { name: string; source: string }[]): string {
  const values = [
    `${pageValue('f[1]', keyTypeOf(table))} AS src_id`,
    ...columns.map((c, i) => `${pageValue(`f[${i + 2}]`, table.sourceTypes[c.source])} AS ${c.name}`),
  ];
  return `(SELECT ${values.join(', ')}, l.ord
    FROM string_to_table(${param}::text, E'\\n') WITH ORDINALITY AS l(line, ord)
    CROSS JOIN LATERAL string_to_array(l.line, E'\\t', '\\N') AS s(f))`;
}

/**
 * The destination statement of a copy chunk (see the file comment); its parameters are listed in
 * copyChunk. Its rows are read, converted, matched and given their new ids in ONE pass that is
 * materialised once (`rows`): every later part (insert, update, mappings, counts) scans that.
 */
export function copyStatement(table: PreparedTable): string {
  const plan = table.plan;
  const cols = plan.columns;
  const dest = ident(plan.destTable);
  const key = ident(plan.destKey);
  const keyType = table.destTypes[plan.destKey]!;
  // Foreign keys: translated through the parent's mappings, once per value (the LATERAL's OFFSET 0
  // keeps the planner from evaluating the look-up twice, for the value and the unresolved check).
  const lookups: string[] = [];
  const flags: string[] = [];
  const values = cols.map((c, i) => {
    const type = table.destTypes[c.dest]!;
    if (table.deferred.includes(c.dest)) return `NULL::${type} AS v${i}`;
    const parent = table.translated[c.dest];
    if (parent) {
      flags.push(`${rowsExist('$1', literal(parent))} AS rows_f${i}`, `${rangesExist('$1', literal(parent))} AS ranges_f${i}`);
      lookups.push(
        `${mappedId('$1', literal(parent), `i.c${i}`, { rowsMayHold: `fl.rows_f${i}`, rangesMayHold: `fl.ranges_f${i}` })} AS f${i}`,
      );
      return `f.f${i}::${type} AS v${i}`;
    }
    return `${valueExpression(`i.c${i}`, type, c.transform)} AS v${i}`;
  });
  const unresolved = cols.map((c, i) => (table.translated[c.dest] ? `(i.c${i} IS NOT NULL AND f.f${i} IS NULL)` : null)).filter(Boolean);
  const translate = lookups.length ? `CROSS JOIN LATERAL (SELECT ${lookups.join(', ')} OFFSET 0) f` : '';
  const natural = plan.naturalKey ?? [];
  // The row's natural key in the destination: with an index, one probe per row (the smallest key
  // when several rows match); without, one hash join over the table (DISTINCT ON keeps the smallest).
  // A hash join when an index exists reads the whole table for every chunk, so a chunk costs more
  // the more the run has copied (a 10,000-row chunk spent 1.2 s of 2.8 s hashing 700,000 rows).
  const naturalMatch = natural.map((n) => `d.${ident(n)} = k.v${cols.findIndex((c) => c.dest === n)}`).join(' AND ');
  const probed = natural.length > 0 && table.naturalIndex === true;
  const naturalJoin = !natural.length
    ? ''
    : probed
      ? `LEFT JOIN LATERAL (SELECT d.${key} FROM ${dest} d WHERE k.mapped_id IS NULL AND NOT k.unresolved AND ${naturalMatch} ORDER BY d.${key} LIMIT 1) d ON true`
      : `LEFT JOIN ${dest} d ON k.mapped_id IS NULL AND NOT k.unresolved AND ${naturalMatch}`;
  const matchedId = natural.length ? `coalesce(k.mapped_id, d.${key}::text)` : 'k.mapped_id';
  // Integer keys as numbers for the id ranges (see mappings.ts); other keys map row by row.
  const integerKey = INTEGER_TYPES.has(keyType);
  const srcNum = integerSourceKey(table) ? 'src_id::bigint' : sourceNumber('src_id');
  const naturalNum = natural.length && integerKey ? `d.${key}::bigint` : 'NULL::bigint';
  const byNatural = natural.length ? `(k.mapped_id IS NULL AND d.${key} IS NOT NULL)` : 'false';
  const keyMapped = cols.findIndex((c) => c.dest === plan.destKey);
  const isNew = '(x.dest_id IS NULL AND NOT x.unresolved)';
  const newNum = keyMapped >= 0 ? (integerKey ? `x.v${keyMapped}::bigint` : 'NULL::bigint') : `nextval(${literal(table.sequence!)})`;
  const newId = keyMapped >= 0 ? `v${keyMapped}::text` : 'new_num::text';
  const insertCols = keyMapped >= 0 ? cols.map((c) => ident(c.dest)) : [key, ...cols.map((c) => ident(c.dest))];
  const insertVals = keyMapped >= 0 ? cols.map((_, i) => `v${i}`) : [`new_num::${keyType}`, ...cols.map((_, i) => `v${i}`)];
  const updatable = cols.map((c, i) => ({ c, i })).filter(({ c }) => c.dest !== plan.destKey && !table.deferred.includes(c.dest));
  const update = updatable.length
    ? `upd AS (
    UPDATE ${dest} t SET ${updatable.map(({ c, i }) => `${ident(c.dest)} = m.v${i}`).join(', ')}
    FROM rows m
    WHERE $5 AND m.dest_id IS NOT NULL AND t.${key} = m.dest_id::${keyType}
      AND (${updatable.map(({ c }) => `t.${ident(c.dest)}`).join(', ')}, NULL) IS DISTINCT FROM (${updatable.map(({ i }) => `m.v${i}`).join(', ')}, NULL)
    RETURNING 1
  ),`
    : `upd AS (SELECT 1 WHERE false),`;
  const inputs = cols.map((c, i) => ({ name: `c${i}`, source: c.source }));
  return `WITH
  -- Once per statement: which mapping tables can hold anything this chunk looks up (the page's
  -- integer source ids span $11…$12), so a fresh table's chunk probes no index for its own rows.
  -- Also where the statement takes the lock its successor waits on (see COPY_CURSOR_GUARD).
  flags AS (
    SELECT ${rowsExist('$1', '$2')} AS rows_own, ${rangesOverlap('$1', '$2', '$11::bigint', '$12::bigint')} AS ranges_own,
      pg_advisory_xact_lock(${producing('$7')}) AS producing
      ${flags.map((f) => `, ${f}`).join('')}
  ),
  -- The page read, converted, matched (id mapping, then natural key) and given new ids, in one pass.
  rows AS (
    SELECT x.*, ${isNew} AS is_new, CASE WHEN ${isNew} THEN ${newNum} END AS new_num FROM (
      SELECT ${natural.length && !probed ? 'DISTINCT ON (k.ord) ' : ''}k.*, ${matchedId} AS dest_id, ${byNatural} AS by_natural, ${naturalNum} AS natural_num
      FROM (
        SELECT c.*, CASE WHEN NOT c.unresolved THEN ${mappedId('$1', '$2', 'c.src_id', { sourceNum: 'c.src_num', rowsMayHold: 'fl.rows_own', rangesMayHold: 'fl.ranges_own' })} END AS mapped_id
        FROM (
          SELECT i.src_id, ${srcNum} AS src_num, i.ord, ${values.length ? values.join(', ') + ',' : ''} ${unresolved.length ? unresolved.join(' OR ') : 'false'} AS unresolved
          FROM ${pageRows('$9', table, inputs)} i CROSS JOIN flags fl ${translate}
        ) c CROSS JOIN flags fl
      ) k ${naturalJoin}
      ${natural.length ? `ORDER BY k.ord, d.${key}` : ''}
      OFFSET 0
    ) x
  ),
  ins AS (
    INSERT INTO ${dest} (${insertCols.join(', ')}) SELECT ${insertVals.join(', ')} FROM rows WHERE is_new RETURNING 1
  ),
  ${update}
  chunk_maps AS (
    SELECT src_id, src_num, CASE WHEN is_new THEN ${newId} ELSE dest_id END AS dest_id, CASE WHEN is_new THEN new_num ELSE natural_num END AS dest_num
    FROM rows WHERE is_new OR by_natural
  )${recordMappings('chunk_maps', '$1', '$2', '$3', '$4')},
  counts AS (
    SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM upd)::int AS updated,
           (SELECT count(*) FROM rows WHERE unresolved)::int AS unresolved, (SELECT n FROM mapped) AS mapped
  ),
  ${COPY_CURSOR_GUARD}
  SELECT counts.*, (SELECT row_to_json(guard) FROM guard) AS cursor_row, ${STALE_CHECK} FROM counts`;
}

/**
 * The transaction-scoped advisory lock a chunk holds while it produces cursor `cursor` (an SQL
 * text expression) of run $4, table $2: its successor, which starts from that cursor, waits on it.
 */
const producing = (cursor: string) => `hashtextextended($4 || ':' || $2 || ':' || coalesce(${cursor}, ''), 0)`;

/** The same lock's key with literal values, for a transaction that takes it before its first statement. */
function producingKey(runId: string, table: string, cursor: string | null): string {
  return `hashtextextended(${literal(`${runId}:${table}:${cursor ?? ''}`)}, 0)`;
}

/**
 * The end of a copy chunk's statement, after a `counts` CTE (inserted, updated): the cursor row
 * advanced from $10 (the cursor the chunk started from) to $7 by $8 rows, $6 finished, for run $4 and
 * table $2 — only if it still holds $10.
 * A chunk launched while its predecessor is still in flight first waits for the predecessor's
 * transaction to end (the lock the predecessor took when it began, see `producing`), then locks
 * the cursor row and reads the cursor committed (READ COMMITTED re-reads a locked row's newest
 * version; a condition on the cursor in the UPDATE itself would see only the statement's snapshot).
 * Without the first wait a successor that got here before its predecessor locked the row would read
 * the old cursor and go stale. Both waits come after `counts`, so a chunk does all of its work first.
 */
const COPY_CURSOR_GUARD = `waited AS (
    SELECT pg_advisory_xact_lock_shared(${producing('$10')}) FROM counts
  ),
  claimed AS (
    SELECT r.cursor FROM migration_run_cursors r
    WHERE r.run_id = $4 AND r.dest_table = $2 AND r.phase = 'copy' AND (SELECT true FROM counts) AND EXISTS (SELECT 1 FROM waited)
    FOR UPDATE
  ),
  guard AS (
    UPDATE migration_run_cursors r
    SET cursor = $7, done = r.done + $8, inserted = r.inserted + counts.inserted, updated = r.updated + counts.updated,
        skipped = r.skipped + $8 - counts.inserted - counts.updated, finished = $6::boolean, updated_at = now()
    FROM counts, claimed
    WHERE r.run_id = $4 AND r.dest_table = $2 AND r.phase = 'copy' AND claimed.cursor IS NOT DISTINCT FROM $10
    RETURNING r.dest_table, r.phase, r.cursor, r.done, r.inserted, r.updated, r.skipped, r.finished
  )`;

/**
 * The last column of a chunk's statement: fails the statement — and so undoes all of its writes —
 * when the guarded cursor update found the cursor moved on. One statement is one transaction, so
 * a chunk costs one round trip and never leaves half its work behind.
 */
export const STALE_MARKER = 'migration chunk is stale';
const STALE_CHECK = `CASE WHEN NOT EXISTS (SELECT 1 FROM guard) THEN ('${STALE_MARKER} ' || random()::text)::int END AS stale_check`;

/**
 * A chunk's guarded statement run on its own (one statement, one transaction), or `work` in a
 * transaction whose last statement is the guarded one; null when it was stale (nothing written).
 */
async function runGuarded<T extends { cursor_row: CursorRow | null }>(
  dest: Sql,
  statement: string | { begin: string },
  work: unknown[] | ((tx: Sql) => Promise<T | undefined>),
): Promise<T | null> {
  try {
    const row =
      typeof statement === 'string'
        ? (await dest.query<T>(statement, work as unknown[]))[0]
        : await dest.transaction(work as (tx: Sql) => Promise<T | undefined>, { begin: statement.begin });
    if (!row?.cursor_row) throw new Error('a chunk statement returned no cursor row');
    return row;
  } catch (error) {
    if (error instanceof Error && error.message.includes(STALE_MARKER)) return null;
    throw error;
  }
}

/** A copy chunk's source page (read ahead of its write by the pipeline in run.ts). */
export type SourcePage = {
  rows: number;
  last: string | null;
  data: string | null;
  /** The least and greatest source id of the page as integers (text; null when none is one), for the range probes. */
  lo: string | null;
  hi: string | null;
  /**
   * A direct page (`readDirectPage`): the rows converted to the destination's columns, in COPY's
   * text format, and the source ids in order as an array literal when they are not lo…hi without a
   * gap (null when they are). `data` is then null.
   */
  copy?: CopyRows;
  keys?: string | null;
};

export function readCopyPage(source: Sql, table: PreparedTable, cursor: string | null, limit: number): Promise<SourcePage> {
  // A value the source cannot convert fails the direct page: the statement path converts it on the
  // destination, where the row is set aside (rejects.ts).
  if (table.direct)
    return readDirectPage(source, table, cursor, limit).catch((error: unknown) => {
      if (!isRowError(error)) throw error;
      return readCopyPage(source, { ...table, direct: false }, cursor, limit);
    });
  return readSourcePage(
    source,
    table,
    table.plan.columns.map((c) => c.source),
    cursor,
    limit,
  );
}

/**
 * Session settings of a direct page's read (set in its first statement), so the source writes every
 * value in a form the destination reads back exactly, whatever either server's defaults (ISO dates,
 * UTC times, all float digits, hex bytea), and reads its literals as the engine quotes them.
 */
const DIRECT_READ_SETTINGS = [
  ['statement_timeout', String(COPY_READ_TIMEOUT_MS)],
  ['standard_conforming_strings', 'on'],
  ['DateStyle', 'ISO'],
  ['TimeZone', 'UTC'],
  ['IntervalStyle', 'postgres'],
  ['extra_float_digits', '3'],
  ['bytea_output', 'hex'],
]
  .map(([name, value]) => `set_config('${name}', '${value}', true)`)
  .join(' || ');

/**
 * A direct page (see `directShape`), in one read-only REPEATABLE READ transaction (one snapshot for
 * both statements): the page's count, key span, cursor and — when they have gaps — its source ids;
 * then the same rows through `COPY (…) TO STDOUT`, with every value transformed and cast to its
 * destination column's type on the source (the expressions the statement path runs on the
 * destination and validation runs on the source). COPY takes no parameters and goes as a simple
 * query, so it names the page's rows by those ids (integers from the first statement) rather than
 * repeating the operator's filter.
 */
async function readDirectPage(source: Sql, table: PreparedTable, cursor: string | null, limit: number): Promise<SourcePage> {
  const plan = table.plan;
  const key = ident(plan.sourceKey[0]!);
  const keyType = table.sourceKeyTypes[0]!;
  const after = cursor ? (JSON.parse(cursor) as unknown[])[0] : undefined;
  const params: unknown[] = after === undefined || after === null ? [] : [String(after)];
  const keyset = params.length ? `${key} > $1::${keyType}` : 'true';
  params.push(Math.max(1, Math.floor(limit)));
  const values = plan.columns.map((c) => {
    const type = table.destTypes[c.dest]!;
    if (table.deferred.includes(c.dest)) return `NULL::${type}`;
    // A value already of the destination's type goes as it is (its text through ::text and back is
    // itself), an integer into another integer type by a direct cast (the same value or error).
    if (!c.transform && table.sourceTypes[c.source] === type) return ident(c.source);
    if (!c.transform && INTEGER_TYPES.has(table.sourceTypes[c.source] ?? '') && INTEGER_TYPES.has(type))
      return `${ident(c.source)}::${type}`;
    return valueExpression(`${ident(c.source)}::text`, type, c.transform);
  });
  return source.transaction(
    async (tx) => {
      // The ids' list is built only when they have gaps (a subquery in CASE runs only when reached).
      const [head] = await tx.query<{ n: number; lo: string | null; hi: string | null; keys: string | null }>(
        `WITH page AS MATERIALIZED (
           SELECT ${key} AS k FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)} AND ${keyset} ORDER BY ${key} LIMIT $${params.length}
         ),
         span AS (SELECT count(*)::int AS n, min(k) AS lo, max(k) AS hi FROM page)
         SELECT n, lo::text AS lo, hi::text AS hi,
           CASE WHEN hi - lo + 1 = n THEN NULL ELSE (SELECT '{' || string_agg(k::text, ',' ORDER BY k) || '}' FROM page) END AS keys,
           (SELECT ${DIRECT_READ_SETTINGS}) IS NOT NULL AS settings
         FROM span`,
        params,
      );
      const rows = Number(head?.n ?? 0);
      if (rows === 0) return { rows, last: null, data: null, lo: null, hi: null };
      const { lo, hi, keys } = head!;
      if (![lo, hi].every((v) => /^-?\d+$/.test(v ?? '')) || (keys !== null && !/^\{-?\d+(,-?\d+)*\}$/.test(keys))) {
        throw new Error('the source keys of a direct page are not integers');
      }
      const rowsOf = keys === null ? `${key} BETWEEN ${lo} AND ${hi}` : `${key} = ANY('${keys}'::${keyType}[])`;
      const copy = await tx.copyOut(
        `COPY (SELECT ${values.join(', ')} FROM ${ident(plan.sourceTable)} WHERE ${rowsOf} ORDER BY ${key}) TO STDOUT`,
        {
          last: true,
        },
      );
      if (copy.count !== rows) throw new Error(`the source page changed while it was read (${rows} keys, ${copy.count} rows)`);
      return { rows, last: JSON.stringify([hi]), data: null, lo, hi, copy, keys };
    },
    { readOnly: true, repeatableRead: true },
  );
}

/**
 * A chunk's commit does not wait for its WAL to reach disk. A server crash may then lose the last
 * commits — each one whole, the rows with the cursor that counted them — and the run, which always
 * resumes from the destination's cursors, copies those chunks again: nothing lost, nothing doubled.
 */
const RELAXED_COMMIT = 'SET LOCAL synchronous_commit = off';

/** A direct chunk's page overlaps mappings already recorded: it goes by the statement path. */
class NotFresh extends Error {}
export const NOT_FRESH_MARKER = 'migration chunk is not fresh';

/**
 * The statement that ends a direct chunk, after its COPY in the same transaction (see directChunk).
 * Parameters: $1 config, $2 destination table, $3 source table, $4 run, $5 the source ids when they
 * are not $9…$11 without a gap, $6 finished, $7 the new cursor, $8 rows, $10 the old cursor.
 */
export function directStatement(table: PreparedTable): string {
  const plan = table.plan;
  const destKey = ident(plan.destKey);
  return `WITH fresh AS (
    SELECT NOT (${rowsExist('$1::integer', '$2::text')} OR ${rangesOverlap('$1::integer', '$2::text', '$9::bigint', '$11::bigint')}) AS yes
  ),
  -- The rows this transaction inserted: its xmin, the highest ids up to the sequence's current value.
  mine AS NOT MATERIALIZED (
    SELECT t.${destKey}::bigint AS dest_num FROM ${ident(plan.destTable)} t
    WHERE t.${destKey} <= (SELECT currval(${literal(table.sequence!)})) AND t.xmin = pg_current_xact_id()::xid
    ORDER BY t.${destKey} DESC LIMIT $8
  ),
  span AS (SELECT count(*)::int AS n, min(dest_num) AS lo, max(dest_num) AS hi FROM mine),
  -- The usual chunk: source ids $9…$11 without a gap became as many consecutive ids: one range.
  whole AS (
    SELECT coalesce($5::bigint[] IS NULL AND n = $8 AND hi - lo + 1 = n AND $11::bigint - $9::bigint + 1 = n, false) AS yes, lo FROM span
  ),
  whole_range AS (
    INSERT INTO migration_id_ranges (config_id, dest_table, source_lo, source_hi, dest_lo, source_table, run_id)
    SELECT $1::integer, $2::text, $9::bigint, $11::bigint, w.lo, $3::text, $4::text FROM whole w WHERE w.yes
    ON CONFLICT DO NOTHING RETURNING source_hi - source_lo + 1 AS n
  ),
  -- Otherwise source ids and new ids paired in order, recorded as runs.
  ours AS (SELECT dest_num, row_number() OVER (ORDER BY dest_num) AS ord FROM mine WHERE NOT (SELECT yes FROM whole)),
  src AS (
    SELECT u.k AS src_num, u.o AS ord
    FROM unnest(coalesce($5::bigint[], ARRAY(SELECT generate_series($9::bigint, $11::bigint)))) WITH ORDINALITY AS u(k, o)
    WHERE NOT (SELECT yes FROM whole)
  ),
  chunk_maps AS (
    SELECT s.src_num::text AS src_id, s.src_num, o.dest_num::text AS dest_id, o.dest_num FROM src s JOIN ours o ON o.ord = s.ord
  )${recordMappings('chunk_maps', '$1::integer', '$2::text', '$3::text', '$4::text')},
  counts AS (
    SELECT (SELECT n FROM span) AS inserted, 0 AS updated, 0 AS unresolved,
      ((SELECT n FROM mapped) + (SELECT coalesce(sum(n), 0) FROM whole_range))::int AS mapped
  ),
  ${COPY_CURSOR_GUARD}
  SELECT counts.*, (SELECT row_to_json(guard) FROM guard) AS cursor_row,
    CASE WHEN NOT (SELECT yes FROM fresh) THEN ('${NOT_FRESH_MARKER} ' || random()::text)::int END AS fresh_check,
    ${STALE_CHECK},
    CASE WHEN counts.inserted <> $8 OR counts.mapped <> $8 THEN ('direct copy inserted ' || counts.inserted || ' rows, mapped ' || counts.mapped || ' of ' || $8)::int END AS count_check
  FROM counts`;
}

/**
 * `text` with its parameters $1…$n written in as literals, for a statement sent with its COMMIT as
 * one simple query: only values the engine produced (numbers, booleans, its own texts), each quoted.
 */
function inlineParameters(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = values[Number(n) - 1];
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'boolean') return String(value);
    return literal(String(value));
  });
}

/**
 * A direct chunk (see `directShape`), one destination transaction: COPY the converted rows into the
 * table, their ids from its default (the sequence); then one statement that fails — undoing the
 * COPY — when a mapping already covers any of the page's source ids (NotFresh: the statement path
 * takes the chunk), finds the rows this transaction inserted (this transaction's xmin, the highest
 * ids up to the sequence's current value, in id order = COPY order), pairs them with the source ids
 * in order, records the mappings as ranges and advances the cursor under the statement path's
 * guard (stale: all of it rolls back).
 */
async function directChunk(
  dest: Sql,
  run: { runId: string; configId: number },
  table: PreparedTable,
  cursor: string | null,
  limit: number,
  page: SourcePage,
): Promise<ChunkResult> {
  const plan = table.plan;
  const guarded = directStatement(table);
  const next = page.last ?? cursor;
  let result: CopyCounts | null;
  try {
    const begin = `${RELAXED_COMMIT}; SELECT pg_advisory_xact_lock(${producingKey(run.runId, plan.destTable, next)})`;
    result = await runGuarded<CopyCounts>(dest, { begin }, async (tx) => {
      const columns = plan.columns.map((c) => ident(c.dest)).join(', ');
      const copied = await tx.copyIn(`COPY ${ident(plan.destTable)} (${columns}) FROM STDIN`, page.copy!);
      if (copied !== page.rows) throw new Error(`direct copy took ${copied} of ${page.rows} rows`);
      const [row] = await tx.queryAndCommit<CopyCounts>(
        inlineParameters(guarded, [
          run.configId, // $1
          plan.destTable, // $2
          plan.sourceTable, // $3
          run.runId, // $4
          page.keys ?? null, // $5 source ids when not lo…hi
          page.rows < limit, // $6 finished
          next, // $7 new cursor
          page.rows, // $8
          page.lo, // $9
          cursor, // $10 old cursor
          page.hi, // $11
        ]),
      );
      return row;
    });
  } catch (error) {
    if (error instanceof Error && error.message.includes(NOT_FRESH_MARKER)) throw new NotFresh();
    throw error;
  }
  if (!result) return { status: 'stale' };
  return { status: 'advanced', rows: page.rows, finished: page.rows < limit, cursor: normaliseCursor(result.cursor_row!), unresolved: 0 };
}

export type CopyCounts = { inserted: number; updated: number; unresolved: number; mapped: number; cursor_row: CursorRow | null };

/**
 * One chunk of a table's copy from `cursor` (the run's committed cursor, JSON of the last source
 * key; null at the start). The destination's writes and the cursor advance are one statement.
 */
export async function copyChunk(
  source: Sql,
  dest: Sql,
  run: { runId: string; configId: number; patchMode: boolean; rejectLimit?: number },
  table: PreparedTable,
  cursor: string | null,
  limit: number,
  options: { page?: SourcePage } = {},
): Promise<ChunkResult> {
  const plan = table.plan;
  let page = options.page ?? (await readCopyPage(source, table, cursor, limit));
  if (page.copy && page.rows > 0) {
    try {
      return await directChunk(dest, run, table, cursor, limit, page);
    } catch (error) {
      if (!(error instanceof NotFresh) && !isRowError(error)) throw error;
      // Some of the page's rows are mapped already (an earlier run, or pairs an operator added):
      // the statement path matches, patches or skips them; it also sets aside rows a constraint refuses.
      page = await readSourcePage(
        source,
        table,
        plan.columns.map((c) => c.source),
        cursor,
        limit,
      );
    }
  }
  const rows = page.rows;
  const params = copyParams(run, table, page, cursor, limit);
  const text = copyStatement(table);
  let result: CopyCounts | null;
  let rejected = 0;
  try {
    // Someone else (an earlier attempt whose answer was lost) may have committed this chunk already.
    result = await runGuarded<CopyCounts>(dest, text, params);
  } catch (error) {
    if (!isRowError(error)) throw error;
    // A row's cast or a constraint failed: those rows are set aside, the others committed (rejects.ts).
    ({ result, rejected } = await commitSettingAside(dest, run, table, text, params));
  }
  if (!result) return { status: 'stale' };
  const advanced = { status: 'advanced' as const, rows, finished: rows < limit, cursor: normaliseCursor(result.cursor_row!) };
  return { ...advanced, unresolved: result.unresolved, ...(rejected ? { rejected } : {}) };
}

/** The parameters of a copy chunk's statement (`copyStatement`) for `page`, read after `cursor`. */
export function copyParams(
  run: { runId: string; configId: number; patchMode: boolean },
  table: PreparedTable,
  page: SourcePage,
  cursor: string | null,
  limit: number,
): unknown[] {
  const plan = table.plan;
  return [
    run.configId, // $1
    plan.destTable, // $2
    plan.sourceTable, // $3
    run.runId, // $4
    run.patchMode, // $5
    page.rows < limit, // $6 finished
    page.last ?? cursor, // $7 new cursor
    page.rows, // $8
    page.data, // $9
    cursor, // $10 old cursor
    page.lo, // $11 the page's least integer source id (null: none is an integer)
    page.hi, // $12 its greatest
  ];
}

function normaliseCursor(row: CursorRow): CursorRow {
  return {
    dest_table: row.dest_table,
    phase: row.phase,
    cursor: row.cursor,
    done: Number(row.done),
    inserted: Number(row.inserted),
    updated: Number(row.updated),
    skipped: Number(row.skipped),
    finished: Boolean(row.finished),
  };
}

/**
 * One chunk of a deferred foreign key's backfill: source rows with a value in the column, the
 * child's and the parent's mappings joined in the destination, the column set where it differs
 * (outside patch mode only where it is still empty). Guarded like a copy chunk.
 */
export async function backfillChunk(
  source: Sql,
  dest: Sql,
  run: { runId: string; configId: number; patchMode: boolean },
  table: PreparedTable,
  fk: ForeignKey,
  cursor: string | null,
  limit: number,
): Promise<ChunkResult> {
  const plan = table.plan;
  const mapping = plan.columns.find((c) => c.dest === fk.childColumn);
  if (!mapping) throw new PlanError(`${fk.childTable}.${fk.childColumn} is deferred but not mapped`);
  const page = await readSourcePage(source, table, [mapping.source], cursor, limit);
  const rows = page.rows;
  const next = page.last ?? cursor;
  const type = table.destTypes[fk.childColumn]!;
  const keyType = table.destTypes[plan.destKey]!;
  const column = ident(fk.childColumn);
  const text = `WITH input AS (SELECT * FROM ${pageRows('$6', table, [{ name: 'v', source: mapping.source }])} page),
  pairs AS (
    SELECT ${mappedId('$1', '$2', 'i.src_id')} AS child_id, ${mappedId('$1', '$3', 'i.v')} AS parent_id
    FROM input i WHERE i.v IS NOT NULL OFFSET 0
  ),
  upd AS (
    UPDATE ${ident(plan.destTable)} t SET ${column} = p.parent_id::${type}
    FROM pairs p
    WHERE p.child_id IS NOT NULL AND p.parent_id IS NOT NULL
      AND t.${ident(plan.destKey)} = p.child_id::${keyType} AND t.${column} IS DISTINCT FROM p.parent_id::${type}
      AND ($5 OR t.${column} IS NULL)
    RETURNING 1
  ),
  counts AS (SELECT (SELECT count(*) FROM upd)::int AS updated),
  guard AS (
    UPDATE migration_run_cursors r SET cursor = $7, done = r.done + $8, updated = r.updated + counts.updated,
      skipped = r.skipped + $8 - counts.updated, finished = $9::boolean, updated_at = now()
    FROM counts
    WHERE r.run_id = $4 AND r.dest_table = $2 AND r.phase = $10 AND r.cursor IS NOT DISTINCT FROM $11
    RETURNING r.dest_table, r.phase, r.cursor, r.done, r.inserted, r.updated, r.skipped, r.finished
  )
  SELECT counts.*, (SELECT row_to_json(guard) FROM guard) AS cursor_row, ${STALE_CHECK} FROM counts`;
  const params = [
    run.configId,
    plan.destTable,
    fk.parentTable,
    run.runId,
    run.patchMode,
    page.data,
    next,
    rows,
    rows < limit,
    `backfill:${fk.childColumn}`,
    cursor,
  ];
  const result = await runGuarded<{ updated: number; cursor_row: CursorRow | null }>(dest, text, params);
  if (!result) return { status: 'stale' };
  return { status: 'advanced', rows, finished: rows < limit, cursor: normaliseCursor(result.cursor_row!), unresolved: 0 };
}

/**
 * Validation of one table: count and checksum of the mapped columns over the source rows (after
 * the filter, values transformed and cast as the copy does) and over the destination rows the id
 * mappings point at (foreign keys turned back into source ids through the parents' mappings).
 */
export async function validateTable(source: Sql, dest: Sql, configId: number, table: PreparedTable): Promise<TableValidation> {
  const plan = table.plan;
  const { sourceParts, destParts, joins } = validationParts(table);
  const sourceRows = await readSource(source, (tx) =>
    tx.query<{ n: string; checksum: string }>(
      `SELECT count(*)::bigint AS n, ${checksumAggregate(`concat_ws(E'\\x1e', ${sourceParts.join(', ')})`)} AS checksum
       FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)}`,
    ),
  );
  const destRows = await dest.query<{ n: string; checksum: string }>(
    `SELECT count(*)::bigint AS n, ${checksumAggregate(`concat_ws(E'\\x1e', ${destParts.join(', ')})`)} AS checksum
     FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2 AND $t.source_table = $3')} m
     JOIN ${ident(plan.destTable)} d ON d.${ident(plan.destKey)} = m.dest_id::${table.destTypes[plan.destKey]}
     ${joins.join(' ')}`,
    [configId, plan.destTable, plan.sourceTable],
  );
  const sourceCount = Number(sourceRows[0]?.n ?? 0);
  const destCount = Number(destRows[0]?.n ?? 0);
  const sourceChecksum = String(sourceRows[0]?.checksum ?? '0');
  const destChecksum = String(destRows[0]?.checksum ?? '0');
  return {
    table: plan.destTable,
    sourceCount,
    destCount,
    sourceChecksum,
    destChecksum,
    ok: sourceCount === destCount && sourceChecksum === destChecksum,
  };
}

/**
 * The canonical row text of a table on each side, as validation hashes it: the source's parts (over
 * the source table), the destination's (over the mappings `m` joined to the table `d`, with `joins`
 * for foreign keys turned back into source ids). Parameter $1 of the joins is the configuration.
 */
export function validationParts(table: PreparedTable): { sourceParts: string[]; destParts: string[]; joins: string[] } {
  const plan = table.plan;
  const fkColumns = new Set([...Object.keys(table.translated), ...table.deferred]);
  const sourceParts = [
    keyText(plan.sourceKey.map(ident)),
    ...plan.columns.map((c) => {
      const type = table.destTypes[c.dest]!;
      if (fkColumns.has(c.dest)) return `coalesce(${ident(c.source)}::text, '\\N')`;
      return canonicalText(valueExpression(`${ident(c.source)}::text`, type, c.transform), type);
    }),
  ];
  const joins: string[] = [];
  const destParts = [
    'm.source_id',
    ...plan.columns.map((c, i) => {
      const type = table.destTypes[c.dest]!;
      const parent =
        table.translated[c.dest] ??
        (table.deferred.includes(c.dest) ? plan.foreignKeys.find((fk) => fk.childColumn === c.dest)?.parentTable : undefined);
      if (parent) {
        joins.push(
          `LEFT JOIN (SELECT p.dest_id, min(p.source_id) AS source_id FROM ${allMappings(`$t.config_id = $1 AND $t.dest_table = ${literal(parent)}`)} p GROUP BY p.dest_id) p${i} ON p${i}.dest_id = d.${ident(c.dest)}::text`,
        );
        return `coalesce(p${i}.source_id, d.${ident(c.dest)}::text, '\\N')`;
      }
      return canonicalText(`d.${ident(c.dest)}`, type);
    }),
  ];
  return { sourceParts, destParts, joins };
}
