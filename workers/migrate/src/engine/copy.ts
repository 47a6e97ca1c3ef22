import { type Sql, ident, literal } from './db.ts';
import { valueExpression } from './expressions.ts';
import { mappedId, rangesExist, rangesOverlap, recordMappings, rowsExist, sourceNumber } from './mappings.ts';
import {
  COPY_CURSOR_GUARD,
  type ChunkResult,
  type CopyCounts,
  backfillCountsSchema,
  copyCountsSchema,
  STALE_CHECK,
  normaliseCursor,
  producing,
  runGuarded,
} from './cursors.ts';
import { NotFresh, directChunk } from './direct.ts';
import { type SourcePage, pageRows, readCopyPage, readSourcePage } from './pages.ts';
import { INTEGER_TYPES, PlanError, type PreparedTable, integerSourceKey } from './prepare.ts';
import { commitSettingAside, isRowError } from './rejects.ts';
import type { ForeignKey } from './types.ts';

// The copy step. A chunk is: keyset-read up to N source rows (read-only transaction), then ONE
// destination statement (one transaction, one round trip) that converts, translates foreign keys
// through the id mappings, matches existing rows (mapping, then natural key), inserts the new ones
// with ids drawn from the destination's sequence, updates matched ones in patch mode, records the
// new mappings, and advances the run's cursor row — guarded by the cursor it started from, and
// failing as a whole when that guard finds the cursor moved on. A chunk replayed after a lost
// answer or a reset changes nothing ("stale"); a chunk cut off mid-way rolls back whole. So a run
// resumed from any point ends with each source row copied once.

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
    result = await runGuarded(dest, { text, params, row: copyCountsSchema });
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
  const result = await runGuarded(dest, { text, params, row: backfillCountsSchema });
  if (!result) return { status: 'stale' };
  return { status: 'advanced', rows, finished: rows < limit, cursor: normaliseCursor(result.cursor_row!), unresolved: 0 };
}
