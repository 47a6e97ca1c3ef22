// Pairing rows of the two sides: by id mapping first, then by a natural key.

import type { Row } from '../engine/db.ts';
import { mappedId } from '../engine/mappings.ts';

type Keyed<T> = { row: T; id: number };

/**
 * Pairs source and destination rows: first the pairs the id mappings name (`mappedTo`: source id →
 * destination id), then, in order, by each key function among the rows still unpaired (a key
 * shared by several rows on one side pairs none of them).
 */
export function pairRows<S, D, K extends string>(
  sources: Keyed<S>[],
  destinations: Keyed<D>[],
  mappedTo: Map<number, number>,
  keys: { by: K; source: (s: S) => string | null; destination: (d: D) => string | null }[],
): { source: S | null; destination: D | null; pairedBy: 'id mapping' | K | null }[] {
  const pairs: { source: S | null; destination: D | null; pairedBy: 'id mapping' | K | null }[] = [];
  const freeSources = new Set(sources);
  const freeDestinations = new Set(destinations);
  const destById = new Map(destinations.map((d) => [d.id, d]));
  for (const s of sources) {
    const d = destById.get(mappedTo.get(s.id) ?? -1);
    if (d && freeDestinations.has(d)) {
      pairs.push({ source: s.row, destination: d.row, pairedBy: 'id mapping' });
      freeSources.delete(s);
      freeDestinations.delete(d);
    }
  }
  for (const key of keys) {
    const unique = <T>(rows: Set<Keyed<T>>, keyOf: (row: T) => string | null) => {
      const byKey = new Map<string, Keyed<T> | null>();
      for (const r of rows) {
        const k = keyOf(r.row);
        if (k !== null) byKey.set(k, byKey.has(k) ? null : r);
      }
      return byKey;
    };
    const destByKey = unique(freeDestinations, key.destination);
    for (const [k, s] of unique(freeSources, key.source)) {
      const d = destByKey.get(k);
      if (!s || !d) continue;
      pairs.push({ source: s.row, destination: d.row, pairedBy: key.by });
      freeSources.delete(s);
      freeDestinations.delete(d);
    }
  }
  for (const s of freeSources) pairs.push({ source: s.row, destination: null, pairedBy: null });
  for (const d of freeDestinations) pairs.push({ source: null, destination: d.row, pairedBy: null });
  return pairs;
}

/** Destination ids the id mappings of `table` give the source ids, and which of them exist there. */
export function mappedIdsSql(table: 'races' | 'runners'): string {
  return `maps AS (
      SELECT u.s AS src_id, ${mappedId('$1::int', `'${table}'`, 'u.s::text')} AS dest_text FROM unnest($2::int[]) AS u(s)
    ), mapped AS (
      SELECT src_id, CASE WHEN dest_text ~ '^[0-9]{1,9}$' THEN dest_text::int END AS dest_id FROM maps
    )`;
}

export function mappingsOf(rows: Row[]): Map<number, number> {
  const mapped = new Map<number, number>();
  for (const row of rows) for (const src of (row.mapped_from as number[] | null) ?? []) mapped.set(Number(src), Number(row.id));
  return mapped;
}
