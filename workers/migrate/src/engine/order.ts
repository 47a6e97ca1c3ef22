import type { ForeignKey } from './types.ts';

const sameFk = (a: ForeignKey, b: ForeignKey) =>
  a.childTable === b.childTable && a.childColumn === b.childColumn && a.parentTable === b.parentTable && a.parentColumn === b.parentColumn;

/**
 * Parents before children (Kahn's algorithm, ties kept in the given table order). Foreign keys to
 * tables outside `tables` do not constrain the order. A self-reference is always deferred; when
 * only cycles remain, one edge of the cycle is deferred — a nullable one when there is one, since
 * a deferred column is copied empty and backfilled once every table is in — and the sort goes on.
 */
export function orderTables(tables: string[], fks: ForeignKey[]): { order: string[]; deferred: ForeignKey[] } {
  const members = new Set(tables);
  const deferred: ForeignKey[] = [];
  let edges: ForeignKey[] = [];
  for (const fk of fks) {
    if (!members.has(fk.childTable) || !members.has(fk.parentTable)) continue;
    if (fk.childTable === fk.parentTable) deferred.push(fk);
    else if (!edges.some((e) => sameFk(e, fk))) edges.push(fk);
  }
  const order: string[] = [];
  const remaining = [...new Set(tables)];
  while (remaining.length > 0) {
    const blocked = new Set(edges.filter((e) => remaining.includes(e.parentTable)).map((e) => e.childTable));
    const ready = remaining.filter((t) => !blocked.has(t));
    if (ready.length > 0) {
      for (const table of ready) {
        order.push(table);
        remaining.splice(remaining.indexOf(table), 1);
      }
      continue;
    }
    // Only cycles are left: break one, preferring a nullable column, then the latest table's edge.
    const cycle = findCycle(remaining, edges);
    const breakAt = cycle.find((e) => e.nullable !== false) ?? cycle[0]!;
    deferred.push(breakAt);
    edges = edges.filter((e) => !sameFk(e, breakAt));
  }
  return { order, deferred };
}

/** The edges of one cycle among `tables` (every table there has a parent among them). */
function findCycle(tables: string[], edges: ForeignKey[]): ForeignKey[] {
  const inner = edges.filter((e) => tables.includes(e.childTable) && tables.includes(e.parentTable));
  const path: ForeignKey[] = [];
  const seen = new Map<string, number>();
  let table = tables[0]!;
  for (;;) {
    const at = seen.get(table);
    if (at !== undefined) return path.slice(at);
    seen.set(table, path.length);
    const edge = inner.find((e) => e.childTable === table)!;
    path.push(edge);
    table = edge.parentTable;
  }
}
