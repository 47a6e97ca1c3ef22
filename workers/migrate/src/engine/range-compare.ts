import { type PreparedTable, whereOf } from './prepare.ts';
import { validationParts } from './validation.ts';
import type { RowSchema } from '#shared/pg.ts';
import { z } from 'zod';
import { type Sql, ident, rows as readRows } from './db.ts';
import { readSource } from './filter.ts';
import { sourceNumber } from './mappings.ts';

// Key-range comparison of a table with one integer source key: the source rows against the rows its
// id mappings point at in the destination. Each side aggregates a range's rows into FANOUT buckets
// (count and the sum of 60 bits of each row's md5, the hash validation uses); only the buckets that
// differ are split again, until a bucket holds at most LEAF_ROWS rows, whose keys and hashes are then
// listed on both sides and compared. So the work after the first pass, and everything sent back,
// grows with what differs, not with the table.
// - `keys` compares only which keys exist (finding deletes: keys mapped but gone from the source);
// - `rows` compares each row's canonical text as well (the checksum method: rows inserted, changed
//   or deleted at the source).

const FANOUT = 32;
const LEAF_ROWS = 512;
const MAX_LEVELS = 24;
/** Ranges listed per statement. */
const LIST_BATCH = 200;

export type RangeMode = 'keys' | 'rows';

export type RangeDiff = {
  /** Source keys (integers as text, ascending) whose row is new or differs: to copy. */
  changed: string[];
  /** Source keys the mappings hold but the source no longer has (ascending): deleted at the source. */
  deleted: string[];
  /** Statements run on each side, bucket rows received, rows listed (both sides). */
  stats: { rounds: number; buckets: number; listed: number };
};

type Span = { lo: bigint; hi: bigint };

/** Whether a table's source key is one integer column (what key ranges need). */
export const rangeComparable = (table: PreparedTable) =>
  table.plan.sourceKey.length === 1 && ['smallint', 'integer', 'bigint'].includes(table.sourceKeyTypes[0] ?? '');

const sum60 = (h: string) => `coalesce(sum(('x' || substr(${h}, 1, 15))::bit(60)::bigint), 0)::text`;

/** The source side of a range query: rows k (bigint), h (md5 text) of `table` with key in r.lo…r.hi. */
function sourceRows(table: PreparedTable, mode: RangeMode): string {
  const key = ident(table.plan.sourceKey[0]!);
  const hash = mode === 'keys' ? `md5(${key}::text)` : `md5(concat_ws(E'\\x1e', ${validationParts(table).sourceParts.join(', ')}))`;
  // The operator's filter limits the rows compared: rows outside it are not the job's (a mapped key
  // outside it is checked against the whole table before it counts as deleted).
  const where = mode === 'rows' ? `${whereOf(table)} AND ` : '';
  return `SELECT ${key}::bigint AS k, ${hash} AS h FROM ${ident(table.plan.sourceTable)} WHERE ${where}${key} BETWEEN r.lo AND r.hi`;
}

/**
 * The destination side: the table's mappings with source key in r.lo…r.hi (ranges expanded only
 * within it), as k, h; in `rows` mode joined to the destination rows they point at. $1 config,
 * $2 destination table, $3 source table.
 */
function destRows(table: PreparedTable, mode: RangeMode): string {
  const plan = table.plan;
  const mappings = `SELECT g.n AS k, (x.dest_lo + (g.n - x.source_lo))::text AS dest_id
      FROM migration_id_ranges x CROSS JOIN LATERAL generate_series(greatest(x.source_lo, r.lo), least(x.source_hi, r.hi)) AS g(n)
      WHERE x.config_id = $1 AND x.dest_table = $2 AND x.source_table = $3 AND x.source_lo <= r.hi AND x.source_hi >= r.lo
    UNION ALL
    SELECT y.n, y.dest_id FROM (
      SELECT ${sourceNumber('z.source_id')} AS n, z.dest_id FROM migration_id_mappings z
      WHERE z.config_id = $1 AND z.dest_table = $2 AND z.source_table = $3
    ) y WHERE y.n BETWEEN r.lo AND r.hi`;
  if (mode === 'keys') return `SELECT mk.k, md5(mk.k::text) AS h FROM (${mappings}) mk`;
  const { destParts, joins } = validationParts(table);
  return `SELECT m.k, md5(concat_ws(E'\\x1e', ${destParts.join(', ')})) AS h
    FROM (SELECT mk.k, mk.k::text AS source_id, mk.dest_id FROM (${mappings}) mk) m
    LEFT JOIN ${ident(plan.destTable)} d ON d.${ident(plan.destKey)} = m.dest_id::${table.destTypes[plan.destKey]}
    ${joins.join(' ')}`;
}

/** The ranges r(lo, hi, i) of a statement: two bigint[] parameters, the source's $1 and $2, the destination's $4 and $5. */
const ranges = (side: 'source' | 'dest') =>
  side === 'source'
    ? 'unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS r(lo, hi, i)'
    : 'unnest($4::bigint[], $5::bigint[]) WITH ORDINALITY AS r(lo, hi, i)';

type RangeQuery = (rows: string, side: 'source' | 'dest') => string;

const bucketQuery: RangeQuery = (rows, side) =>
  `SELECT r.i::int AS i, floor((s.k - r.lo)::numeric * ${FANOUT} / (r.hi - r.lo + 1))::int AS b, count(*)::int AS n, ${sum60('s.h')} AS sum
    FROM ${ranges(side)} CROSS JOIN LATERAL (${rows}) s GROUP BY 1, 2`;

const listQuery: RangeQuery = (rows, side) =>
  `SELECT s.k::text AS k, substr(s.h, 1, 15) AS h FROM ${ranges(side)} CROSS JOIN LATERAL (${rows}) s`;

/** A bucket of a range on one side: range and bucket numbers, row count, the sum of the rows' 60-bit hashes (text). */
const bucketRow = z.object({ i: z.number(), b: z.number(), n: z.number(), sum: z.string() });
type Bucket = z.output<typeof bucketRow>;
/** A listed row: its key and hash, as text. */
const keyHash = z.object({ k: z.string(), h: z.string() });

type Side = { source: Sql; dest: Sql; configId: number; table: PreparedTable; mode: RangeMode };

/** Runs a range query over `spans` on both sides at once: the source read-only, the destination through the mappings. */
async function bothSides<S extends RowSchema>(side: Side, spans: Span[], query: RangeQuery, row: S) {
  const { table, mode } = side;
  const lo = spans.map((s) => s.lo.toString());
  const hi = spans.map((s) => s.hi.toString());
  const [src, dst] = await Promise.all([
    readSource(side.source, (tx) => readRows(tx, row, query(sourceRows(table, mode), 'source'), [lo, hi])),
    readRows(side.dest, row, query(destRows(table, mode), 'dest'), [side.configId, table.plan.destTable, table.plan.sourceTable, lo, hi]),
  ]);
  return { src, dst };
}

/** The keys of bucket `b` of a span: exactly those with floor((k - lo) * FANOUT / width) = b. */
export function bucketSpan(span: Span, b: number): Span {
  const width = span.hi - span.lo + 1n;
  const ceilDiv = (a: bigint, d: bigint) => (a + d - 1n) / d;
  const start = span.lo + ceilDiv(BigInt(b) * width, BigInt(FANOUT));
  const end = span.lo + ceilDiv(BigInt(b + 1) * width, BigInt(FANOUT)) - 1n;
  return { lo: start, hi: end };
}

/** The least and greatest key of a side, as text (null when it has none). */
const loHi = z.object({ lo: z.string().nullable(), hi: z.string().nullable() });

/** The least and greatest key on either side (the source whole, the table's mappings). */
async function outerSpan(source: Sql, dest: Sql, configId: number, table: PreparedTable): Promise<Span | null> {
  const key = ident(table.plan.sourceKey[0]!);
  const [src] = await readSource(source, (tx) =>
    readRows(tx, loHi, `SELECT min(${key})::text AS lo, max(${key})::text AS hi FROM ${ident(table.plan.sourceTable)}`),
  );
  const [dst] = await readRows(
    dest,
    loHi,
    `SELECT least(min(lo), min(n))::text AS lo, greatest(max(hi), max(n))::text AS hi FROM (
       SELECT min(x.source_lo) AS lo, max(x.source_hi) AS hi, NULL::bigint AS n FROM migration_id_ranges x
       WHERE x.config_id = $1 AND x.dest_table = $2 AND x.source_table = $3
       UNION ALL
       SELECT NULL, NULL, ${sourceNumber('z.source_id')} FROM migration_id_mappings z
       WHERE z.config_id = $1 AND z.dest_table = $2 AND z.source_table = $3
     ) s`,
    [configId, table.plan.destTable, table.plan.sourceTable],
  );
  const ends = [src?.lo, src?.hi, dst?.lo, dst?.hi].filter((v): v is string => v !== null && v !== undefined).map((v) => BigInt(v));
  if (ends.length === 0) return null;
  return { lo: ends.reduce((a, b) => (b < a ? b : a)), hi: ends.reduce((a, b) => (b > a ? b : a)) };
}

/**
 * Compares a table's source rows with the destination rows its mappings point at by key ranges
 * (see the file comment), config `configId`. Source reads are read-only; nothing is written.
 */
export async function compareKeyRanges(
  source: Sql,
  dest: Sql,
  configId: number,
  table: PreparedTable,
  mode: RangeMode,
): Promise<RangeDiff> {
  const stats = { rounds: 0, buckets: 0, listed: 0 };
  const span = await outerSpan(source, dest, configId, table);
  if (!span) return { changed: [], deleted: [], stats };
  const side: Side = { source, dest, configId, table, mode };
  let pending: Span[] = [span];
  const leaves: Span[] = [];
  for (let level = 0; pending.length > 0 && level < MAX_LEVELS; level++) {
    const { src, dst } = await bothSides(side, pending, bucketQuery, bucketRow);
    stats.rounds++;
    stats.buckets += src.length + dst.length;
    const bySide = new Map<string, { s?: Bucket; d?: Bucket }>();
    for (const row of src) bySide.set(`${row.i}:${row.b}`, { s: row });
    for (const row of dst) bySide.set(`${row.i}:${row.b}`, { ...bySide.get(`${row.i}:${row.b}`), d: row });
    const next: Span[] = [];
    for (const [id, { s, d }] of bySide) {
      if (s && d && s.n === d.n && s.sum === d.sum) continue;
      const [i, b] = id.split(':').map(Number) as [number, number];
      const sub = bucketSpan(pending[i - 1]!, b);
      const rows = Math.max(s?.n ?? 0, d?.n ?? 0);
      if (rows <= LEAF_ROWS || sub.hi - sub.lo < BigInt(LEAF_ROWS)) leaves.push(sub);
      else next.push(sub);
    }
    pending = next;
  }
  leaves.push(...pending);
  const source_ = new Map<string, string>();
  const dest_ = new Map<string, string>();
  leaves.sort((a, b) => (a.lo < b.lo ? -1 : 1));
  for (let at = 0; at < leaves.length; at += LIST_BATCH) {
    const { src, dst } = await bothSides(side, leaves.slice(at, at + LIST_BATCH), listQuery, keyHash);
    stats.listed += src.length + dst.length;
    for (const row of src) source_.set(row.k, row.h);
    for (const row of dst) dest_.set(row.k, row.h);
  }
  const changed = [...source_].filter(([k, h]) => dest_.get(k) !== h).map(([k]) => k);
  let deleted = [...dest_.keys()].filter((k) => !source_.has(k));
  if (mode === 'rows' && deleted.length > 0) deleted = await goneFromSource(source, table, deleted);
  const byNumber = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
  return { changed: changed.sort(byNumber), deleted: deleted.sort(byNumber), stats };
}

/** Of `keys`, those the source table no longer has at all (whatever the filter). */
async function goneFromSource(source: Sql, table: PreparedTable, keys: string[]): Promise<string[]> {
  const key = ident(table.plan.sourceKey[0]!);
  const present = await readSource(source, (tx) =>
    readRows(
      tx,
      z.object({ k: z.string() }),
      `SELECT ${key}::text AS k FROM ${ident(table.plan.sourceTable)} WHERE ${key} = ANY($1::bigint[])`,
      [keys],
    ),
  );
  const have = new Set(present.map((r) => r.k));
  return keys.filter((k) => !have.has(k));
}

export type DeletePolicy = 'ignore' | 'delete' | 'soft';

/** What a soft-delete column is set to, by its type; null when the type cannot mark a row. */
export function softDeleteValue(type: string): string | null {
  if (type === 'boolean') return 'true';
  if (type.startsWith('timestamp')) return 'now()';
  if (type === 'date') return 'current_date';
  return null;
}

/** Keys per delete statement. */
const DELETE_BATCH = 1_000;

/**
 * Applies source deletes of one table (source keys, integers as text) as the policy says, in one
 * statement per batch that also removes the keys' id mappings — a range holding one is cut around
 * it — so each delete is applied exactly once: a batch run again, or a later comparison, finds no
 * mapping left for the key and does nothing. `ignore` leaves the destination row as it is (only
 * unlinked from the source); `delete` deletes it; `soft` sets `softColumn` (true, or the time).
 * How many destination rows were deleted or marked.
 */
export async function applyDeletes(
  dest: Sql,
  configId: number,
  table: PreparedTable,
  keys: readonly string[],
  policy: DeletePolicy,
  softColumn?: { name: string; type: string },
): Promise<number> {
  const plan = table.plan;
  const target = ident(plan.destTable);
  const destKey = `t.${ident(plan.destKey)}`;
  const keyType = table.destTypes[plan.destKey]!;
  let action = 'SELECT 1 WHERE false';
  if (policy === 'delete') action = `DELETE FROM ${target} t USING targets x WHERE ${destKey} = x.dest_id::${keyType} RETURNING 1`;
  if (policy === 'soft') {
    const value = softColumn ? softDeleteValue(softColumn.type) : null;
    if (!softColumn || !value) throw new Error(`${plan.destTable}: the soft-delete column is missing or cannot mark a row`);
    action = `UPDATE ${target} t SET ${ident(softColumn.name)} = ${value} FROM targets x WHERE ${destKey} = x.dest_id::${keyType} RETURNING 1`;
  }
  const text = `WITH keys AS (SELECT DISTINCT u.n FROM unnest($4::bigint[]) AS u(n)),
  hit AS (
    SELECT x.source_lo, x.source_hi, x.dest_lo FROM migration_id_ranges x
    WHERE x.config_id = $1 AND x.dest_table = $2 AND x.source_table = $3
      AND EXISTS (SELECT 1 FROM keys k WHERE k.n BETWEEN x.source_lo AND x.source_hi)
  ),
  cuts AS (SELECT h.source_lo, h.source_hi, h.dest_lo, k.n FROM hit h JOIN keys k ON k.n BETWEEN h.source_lo AND h.source_hi),
  -- Each range keeps the ids before its first cut (or goes when that is none) and gets one new range
  -- after each cut, up to the next cut or its end.
  first_cut AS (SELECT source_lo, min(n) AS n FROM cuts GROUP BY source_lo),
  shrunk AS (
    UPDATE migration_id_ranges x SET source_hi = f.n - 1 FROM first_cut f
    WHERE x.config_id = $1 AND x.dest_table = $2 AND x.source_lo = f.source_lo AND f.n > f.source_lo RETURNING 1
  ),
  dropped AS (
    DELETE FROM migration_id_ranges x USING first_cut f
    WHERE x.config_id = $1 AND x.dest_table = $2 AND x.source_lo = f.source_lo AND f.n = f.source_lo RETURNING 1
  ),
  pieces AS (
    SELECT c.source_lo, c.dest_lo, c.n + 1 AS s, coalesce(lead(c.n) OVER (PARTITION BY c.source_lo ORDER BY c.n) - 1, c.source_hi) AS e
    FROM cuts c
  ),
  added AS (
    INSERT INTO migration_id_ranges (config_id, dest_table, source_lo, source_hi, dest_lo, source_table, run_id)
    SELECT $1, $2, p.s, p.e, p.dest_lo + (p.s - p.source_lo), $3, NULL FROM pieces p WHERE p.s <= p.e RETURNING 1
  ),
  gone_rows AS (
    DELETE FROM migration_id_mappings z USING keys k
    WHERE z.config_id = $1 AND z.dest_table = $2 AND z.source_table = $3 AND z.source_id = k.n::text RETURNING z.dest_id
  ),
  targets AS (
    SELECT (c.dest_lo + (c.n - c.source_lo))::text AS dest_id FROM cuts c UNION ALL SELECT dest_id FROM gone_rows
  ),
  applied AS (${action})
  SELECT (SELECT count(*) FROM applied)::int AS applied, (SELECT count(*) FROM shrunk)::int + (SELECT count(*) FROM dropped)::int
    + (SELECT count(*) FROM added)::int AS ranges`;
  let applied = 0;
  for (let at = 0; at < keys.length; at += DELETE_BATCH) {
    const rows = await readRows(dest, z.object({ applied: z.number() }), text, [
      configId,
      plan.destTable,
      plan.sourceTable,
      keys.slice(at, at + DELETE_BATCH),
    ]);
    applied += Number(rows[0]?.applied ?? 0);
  }
  return applied;
}
