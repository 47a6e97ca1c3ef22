import { literal } from './db.ts';
import type { ValueTransform } from './types.ts';

// SQL for one value: a source value (as text) turned into a destination column's value, and the
// canonical text of a typed value that both sides' checksums hash. The same expressions run on
// the destination (copy) and on the source (validation), so they use core PostgreSQL only.

/** `x` (an SQL expression of type text) transformed and cast to `destType` (a format_type() name). */
export function valueExpression(x: string, destType: string, transform?: ValueTransform): string {
  if (!transform) return `(${x})::${destType}`;
  switch (transform.kind) {
    case 'date':
      return `to_date(${x}, ${literal(transform.format)})::${destType}`;
    case 'timestamp':
      // Read the text as a UTC wall-clock time, whatever the session's time zone.
      return `(to_timestamp(${x}, ${literal(transform.format)})::timestamp AT TIME ZONE 'UTC')::${destType}`;
    case 'map': {
      const cases = Object.entries(transform.values)
        .map(([from, to]) => `WHEN ${literal(from)} THEN ${to === null ? 'NULL' : literal(to)}`)
        .join(' ');
      const otherwise = transform.default === undefined || transform.default === null ? 'NULL' : literal(transform.default);
      const mapped = cases ? `CASE ${x} ${cases} ELSE ${otherwise} END` : otherwise;
      return `(CASE WHEN ${x} IS NULL THEN NULL ELSE ${mapped} END)::${destType}`;
    }
  }
}

/** Canonical text of a typed value for checksums: time zone independent, NULL as `\N`. */
export function canonicalText(expr: string, type: string): string {
  const t = type.toLowerCase();
  let text: string;
  if (t.startsWith('timestamp') && t.includes('with time zone')) {
    text = `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
  } else if (t.startsWith('timestamp')) {
    text = `to_char(${expr}, 'YYYY-MM-DD HH24:MI:SS.US')`;
  } else if (t === 'date') {
    text = `to_char(${expr}, 'YYYY-MM-DD')`;
  } else {
    text = `(${expr})::text`;
  }
  return `coalesce(${text}, '\\N')`;
}

/** An order-independent checksum of rows' canonical texts: the sum of 60 bits of each row's md5. */
export function checksumAggregate(rowText: string): string {
  return `coalesce(sum(('x' || substr(md5(${rowText}), 1, 15))::bit(60)::bigint), 0)::text`;
}

/** Joins key values as the id mappings store them: one key as is, several with U+001F between. */
export function keyText(columns: string[]): string {
  return columns.length === 1 ? `(${columns[0]})::text` : `concat_ws(E'\\x1f', ${columns.map((c) => `(${c})::text`).join(', ')})`;
}
