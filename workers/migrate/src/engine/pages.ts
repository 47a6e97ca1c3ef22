import { pgCount } from '#shared/pg.ts';
import { z } from 'zod';
import { type CopyRows, type Sql, ident, rows as readRows } from './db.ts';
import { keyText, valueExpression } from './expressions.ts';
import { COPY_READ_TIMEOUT_MS, readSource } from './filter.ts';
import { sourceNumber } from './mappings.ts';
import { INTEGER_TYPES, type PreparedTable, integerSourceKey, keyTypeOf, whereOf } from './prepare.ts';
import { isRowError } from './rejects.ts';

// The source side of a chunk: keyset pages of a table's rows, as one text the destination splits
// (the statement path) or as COPY rows already converted on the source (the direct path).

/** Source rows each table will copy (after its filter), by destination table. */
export async function sourceTotals(source: Sql, tables: readonly PreparedTable[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  await readSource(source, async (tx) => {
    for (const table of tables) {
      const rows = await readRows(
        tx,
        z.object({ n: pgCount }),
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
export async function readSourcePage(
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
export function pageRows(param: string, table: PreparedTable, columns: { name: string; source: string }[]): string {
  const values = [
    `${pageValue('f[1]', keyTypeOf(table))} AS src_id`,
    ...columns.map((c, i) => `${pageValue(`f[${i + 2}]`, table.sourceTypes[c.source])} AS ${c.name}`),
  ];
  return `(SELECT ${values.join(', ')}, l.ord
    FROM string_to_table(${param}::text, E'\\n') WITH ORDINALITY AS l(line, ord)
    CROSS JOIN LATERAL string_to_array(l.line, E'\\t', '\\N') AS s(f))`;
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
      const [head] = await readRows(
        tx,
        z.object({ n: z.number(), lo: z.string().nullable(), hi: z.string().nullable(), keys: z.string().nullable() }),
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
