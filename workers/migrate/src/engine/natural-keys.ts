import type { KeyStats, UniqueIndex } from './samples.ts';
import { words } from './name-forms.ts';
import { type TableSample, typeKind } from './suggest.ts';
import type { TableInfo, TablePlan } from './types.ts';

// Natural keys proposed for a table plan: the destination's own unique constraints that the mapped
// columns cover, else a mapped column set whose values are unique in the source sample and in the
// destination. Pure: the samples and the destination's figures are read by samples.ts.

export type KeyProposal = { columns: string[]; reason: string; source: 'constraint' | 'sample' };

const NAME_LIKE = new Set(['name', 'code', 'title', 'key', 'number', 'abbreviation', 'email', 'slug', 'reference', 'ref']);
const DATE_LIKE = new Set(['date', 'day', 'time', 'year', 'start']);

/** How well a destination column's name suggests identity (higher first). */
function rank(column: string): number {
  const ws = words(column);
  if (ws.some((w) => NAME_LIKE.has(w))) return 3;
  if (ws.some((w) => DATE_LIKE.has(w))) return 2;
  if (ws.at(-1) === 'id') return 1;
  return 0;
}

/** The destination's unique constraint or index that the plan's mapped columns cover, if any. */
export function constraintKey(plan: TablePlan, uniques: readonly UniqueIndex[]): KeyProposal | null {
  const mapped = new Set(plan.columns.map((c) => c.dest));
  const covered = uniques.filter((u) => u.table === plan.destTable && u.columns.length > 0 && u.columns.every((c) => mapped.has(c)));
  covered.sort((a, b) => a.columns.length - b.columns.length);
  const best = covered[0];
  return best
    ? { columns: best.columns, reason: `unique constraint ${best.name} covers ${best.columns.join(', ')}`, source: 'constraint' }
    : null;
}

/**
 * Column sets worth checking as a key, best first: single mapped columns that look like a name or
 * code, then pairs of such a column with a date or a foreign key (name + date, meeting + number).
 */
export function keyCandidates(plan: TablePlan, dest: TableInfo, limit = 12): string[][] {
  const fkColumns = new Set(plan.foreignKeys.map((fk) => fk.childColumn));
  const usable = plan.columns
    .map((c) => c.dest)
    .filter((d) => d !== plan.destKey)
    .filter((d) => {
      const type = dest.columns.find((c) => c.ColumnName === d)?.DataType ?? 'text';
      const kind = typeKind(type);
      return kind !== 'boolean' && kind !== 'json' && kind !== 'other' && !(kind === 'decimal' && /real|double/.test(type));
    });
  const singles = usable
    .filter((d) => !fkColumns.has(d) && typeKind(dest.columns.find((c) => c.ColumnName === d)?.DataType ?? 'text') !== 'decimal')
    .sort((a, b) => rank(b) - rank(a));
  const sets: string[][] = singles.filter((d) => rank(d) > 0).map((d) => [d]);
  const partners = usable.filter((d) => fkColumns.has(d) || rank(d) >= 1).sort((a, b) => rank(b) - rank(a));
  for (let i = 0; i < partners.length; i++) {
    for (let j = i + 1; j < partners.length; j++) sets.push([partners[i]!, partners[j]!]);
  }
  for (const d of singles) if (rank(d) === 0) sets.push([d]);
  return sets.slice(0, limit);
}

/** Whether a column set's source values (through the plan's mapping) are all present and distinct in the sample. */
export function uniqueInSample(plan: TablePlan, columns: string[], sample: TableSample | undefined): boolean {
  if (!sample || sample.rows === 0) return false;
  const sourceColumns = columns.map((d) => plan.columns.find((c) => c.dest === d)?.source);
  if (sourceColumns.some((s) => !s || !sample.columns[s])) return false;
  const seen = new Set<string>();
  for (let r = 0; r < sample.rows; r++) {
    const values = sourceColumns.map((s) => sample.columns[s!]![r] ?? null);
    if (values.some((v) => v === null)) return false;
    const key = JSON.stringify(values.map((v) => v!.trim().toLowerCase()));
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * The key to propose among `candidates` (keyCandidates' order), given how each fares in the
 * destination (`stats`, same order): the first unique in the source sample and in the destination
 * with no empty value there. Null when none is.
 */
export function chooseKey(
  plan: TablePlan,
  candidates: string[][],
  stats: readonly KeyStats[],
  sample: TableSample | undefined,
): KeyProposal | null {
  for (let i = 0; i < candidates.length; i++) {
    const columns = candidates[i]!;
    const s = stats[i];
    if (!s || s.withNull > 0 || s.distinct !== s.rows) continue;
    if (!uniqueInSample(plan, columns, sample)) continue;
    const sourceNames = columns.map((d) => plan.columns.find((c) => c.dest === d)!.source).join(' + ');
    const where =
      s.rows === 0
        ? `${plan.destTable} is empty`
        : `in ${s.capped ? `the first ${s.rows} rows of ` : ''}${plan.destTable} (${s.rows} rows)`;
    return {
      columns,
      reason: `${sourceNames} ${columns.length > 1 ? 'are' : 'is'} unique in ${sample!.rows} sampled source rows and ${s.rows === 0 ? `${where}` : where}`,
      source: 'sample',
    };
  }
  return null;
}
