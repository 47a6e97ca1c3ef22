import { destForms, nameForms, tableForm, words } from './name-forms.ts';
import type { ColumnInfo, ColumnMapping, SchemaInfo, TableInfo, TablePlan, ValueTransform } from './types.ts';

// Mapping suggestions: which destination table and columns a source table's columns go to, and
// which value transform they need, from the names, the types and sampled values. Pure: the
// samples are read elsewhere (samples.ts), names compared in name-forms.ts. Every suggestion carries
// its reason in words.

/** Sampled values of a table, as text (null for NULL), column by column. */
export type TableSample = { table: string; rows: number; columns: Record<string, (string | null)[]> };

export type ColumnSuggestion = ColumnMapping & { reason: string; score: number };
export type TableSuggestion = { table: string; reason: string };
export type PlanSuggestion = { plan: TablePlan; table: TableSuggestion | null; columns: ColumnSuggestion[] };

export type TypeKind = 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'timestamp' | 'time' | 'json' | 'other';

/** The kind of a format_type() name. */
export function typeKind(type: string): TypeKind {
  const t = type.toLowerCase();
  if (/^(text|character varying|varchar|character|char|citext|name)\b/.test(t)) return 'text';
  if (/^(smallint|integer|bigint|int\d?)\b/.test(t)) return 'integer';
  if (/^(numeric|decimal|real|double precision|money)\b/.test(t)) return 'decimal';
  if (t === 'boolean') return 'boolean';
  if (t === 'date') return 'date';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t.startsWith('time')) return 'time';
  if (t.startsWith('json')) return 'json';
  return 'other';
}

const distinct = (values: readonly (string | null)[] | undefined) => [...new Set((values ?? []).filter((v): v is string => v !== null))];

const BOOLEAN_WORDS: Record<string, string> = {
  y: 'true',
  n: 'false',
  yes: 'true',
  no: 'false',
  t: 'true',
  f: 'false',
  true: 'true',
  false: 'false',
  '1': 'true',
  '0': 'false',
};

/** Text date and time formats the suggestions recognise (to_date / to_timestamp patterns), each with its shape. */
const DATE_FORMATS: { format: string; re: RegExp; order: 'dmy' | 'mdy' | 'ymd' }[] = [
  { format: 'DD/MM/YYYY', re: /^(\d{2})\/(\d{2})\/(\d{4})$/, order: 'dmy' },
  { format: 'MM/DD/YYYY', re: /^(\d{2})\/(\d{2})\/(\d{4})$/, order: 'mdy' },
  { format: 'DD-MM-YYYY', re: /^(\d{2})-(\d{2})-(\d{4})$/, order: 'dmy' },
  { format: 'DD.MM.YYYY', re: /^(\d{2})\.(\d{2})\.(\d{4})$/, order: 'dmy' },
  { format: 'YYYYMMDD', re: /^(\d{4})(\d{2})(\d{2})$/, order: 'ymd' },
];
const TIME_FORMATS: { format: string; re: RegExp }[] = [
  { format: 'YYYY-MM-DD HH24:MI:SS', re: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/ },
  { format: 'YYYY-MM-DD HH24:MI', re: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/ },
  { format: 'DD/MM/YYYY HH24:MI', re: /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/ },
];

function dateFormatOf(values: string[]): string | null {
  for (const f of DATE_FORMATS) {
    const parts = values.map((v) => f.re.exec(v));
    if (!parts.every(Boolean)) continue;
    const ok = parts.every((m) => {
      const [a, b, c] = [Number(m![1]), Number(m![2]), Number(m![3])];
      const [d, mo] = f.order === 'dmy' ? [a, b] : f.order === 'mdy' ? [b, a] : [c, b];
      return d >= 1 && d <= 31 && mo >= 1 && mo <= 12;
    });
    if (ok) return f.format;
  }
  return null;
}

const initials = (s: string) =>
  words(s)
    .map((w) => w[0])
    .join('');

/**
 * A code table from sampled source codes to sampled destination values: each code names exactly
 * one destination value (the same, its first letters, its initials, or its end), no two codes the
 * same value. Null when any sampled code stays unexplained.
 */
export function inferCodeMap(sourceValues: string[], destValues: string[]): Record<string, string> | null {
  if (sourceValues.length === 0 || sourceValues.length > 30 || destValues.length === 0 || destValues.length > 60) return null;
  const map: Record<string, string> = {};
  const used = new Set<string>();
  for (const code of sourceValues) {
    const c = code.toLowerCase();
    const exact = destValues.filter((d) => d.toLowerCase() === c);
    const candidates = exact.length
      ? exact
      : destValues.filter((d) => {
          const l = d.toLowerCase();
          return (c.length >= 1 && l.startsWith(c)) || initials(d) === c || (c.length >= 2 && l.endsWith(c));
        });
    if (candidates.length !== 1 || used.has(candidates[0]!)) return null;
    used.add(candidates[0]!);
    map[code] = candidates[0]!;
  }
  return Object.entries(map).some(([k, v]) => k !== v) ? map : null;
}

const list = (values: string[], n = 4) => `${values.slice(0, n).join(', ')}${values.length > n ? ', …' : ''}`;

/**
 * The transform a source column needs to fill a destination column, judged from sampled values:
 * text dates and times (their format), Y/N-style flags to boolean, codes to the destination's
 * values. `compatible` false: the sampled values cannot become the destination type at all.
 */
export function suggestTransform(
  source: ColumnInfo,
  dest: ColumnInfo,
  sourceValues: readonly (string | null)[] | undefined,
  destValues: readonly (string | null)[] | undefined,
): { transform?: ValueTransform; reason?: string; compatible: boolean } {
  const from = typeKind(source.DataType);
  const to = typeKind(dest.DataType);
  const values = distinct(sourceValues);
  if (from === to || (to === 'text' && from !== 'text')) return { compatible: true };
  if (from === 'integer' && to === 'decimal') return { compatible: true };
  if (from !== 'text') return { compatible: to === 'text' };
  // Text into another type: what the sampled values look like decides.
  if (to === 'text') return { compatible: true };
  if (values.length === 0) return { compatible: true, reason: 'no sampled values to check the text against' };
  if (to === 'boolean') {
    if (values.every((v) => BOOLEAN_WORDS[v.toLowerCase()] !== undefined)) {
      if (values.every((v) => ['true', 'false'].includes(v.toLowerCase()))) return { compatible: true };
      const map = Object.fromEntries(values.map((v) => [v, BOOLEAN_WORDS[v.toLowerCase()]!]));
      return { compatible: true, transform: { kind: 'map', values: map }, reason: `sampled values ${list(values)} read as true/false` };
    }
    return { compatible: false };
  }
  if (to === 'date') {
    if (values.every((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))) return { compatible: true };
    const format = dateFormatOf(values);
    return format
      ? { compatible: true, transform: { kind: 'date', format }, reason: `text dates in the format ${format} (e.g. ${values[0]})` }
      : { compatible: false };
  }
  if (to === 'timestamp') {
    const format = TIME_FORMATS.find((f) => values.every((v) => f.re.test(v)))?.format;
    if (format)
      return {
        compatible: true,
        transform: { kind: 'timestamp', format },
        reason: `text times in the format ${format}, read as UTC (e.g. ${values[0]})`,
      };
    return { compatible: values.every((v) => !Number.isNaN(Date.parse(v))) };
  }
  if (to === 'integer') return { compatible: values.every((v) => /^-?\d{1,18}$/.test(v.trim())) };
  if (to === 'decimal') return { compatible: values.every((v) => /^-?\d+(\.\d+)?$/.test(v.trim())) };
  void destValues;
  return { compatible: false };
}

/** A code map for text → text when the sampled source values are codes of the destination's values. */
function codeMapFor(
  sourceValues: readonly (string | null)[] | undefined,
  destValues: readonly (string | null)[] | undefined,
): { transform: ValueTransform; reason: string } | null {
  const from = distinct(sourceValues);
  const to = distinct(destValues);
  if (from.length === 0 || to.length === 0 || from.every((v) => to.includes(v))) return null;
  const map = inferCodeMap(from, to);
  if (!map) return null;
  return {
    transform: { kind: 'map', values: map },
    reason: `codes ${list(
      Object.entries(map).map(([k, v]) => `${k} → ${v}`),
      5,
    )} from the sampled values`,
  };
}

/** How many of a column's sampled distinct values appear among another's. */
function overlap(a: readonly (string | null)[] | undefined, b: readonly (string | null)[] | undefined): { shared: number; of: number } {
  const from = distinct(a);
  const to = new Set(distinct(b).map((v) => v.toLowerCase()));
  return { shared: from.filter((v) => to.has(v.toLowerCase())).length, of: from.length };
}

/**
 * The destination columns for a source table's columns: by name forms first (best score wins,
 * each destination column once), then by sampled values for the columns left; each with the
 * transform its sampled values need. The destination key and columns the types exclude are skipped.
 */
export function suggestColumns(
  from: TableInfo,
  to: TableInfo,
  options: { destKey?: string; sourceSample?: TableSample; destSample?: TableSample } = {},
): ColumnSuggestion[] {
  const destKey = options.destKey ?? (to.primaryKey.length === 1 ? to.primaryKey[0] : undefined);
  const candidates: ColumnSuggestion[] = [];
  const sourceValues = (c: string) => options.sourceSample?.columns[c];
  const destValues = (c: string) => options.destSample?.columns[c];
  for (const column of from.columns) {
    if (from.primaryKey.includes(column.ColumnName)) continue;
    const forms = nameForms(column.ColumnName, from.name);
    for (const target of to.columns) {
      if (target.ColumnName === destKey) continue;
      const targetForms = destForms(target.ColumnName);
      const form = forms.find((f) => targetForms.includes(f.key));
      if (!form) continue;
      const fit = suggestTransform(column, target, sourceValues(column.ColumnName), destValues(target.ColumnName));
      if (!fit.compatible) continue;
      const code =
        !fit.transform && typeKind(column.DataType) === 'text' && typeKind(target.DataType) === 'text'
          ? codeMapFor(sourceValues(column.ColumnName), destValues(target.ColumnName))
          : null;
      const transform = fit.transform ?? code?.transform;
      const why = [form.how === 'the same name' ? 'same name' : form.how, fit.transform ? fit.reason : code?.reason]
        .filter(Boolean)
        .join('; ');
      candidates.push({
        source: column.ColumnName,
        dest: target.ColumnName,
        ...(transform ? { transform } : {}),
        reason: why,
        score: form.score,
      });
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  const chosen: ColumnSuggestion[] = [];
  for (const c of candidates) {
    if (chosen.some((x) => x.source === c.source || x.dest === c.dest)) continue;
    chosen.push(c);
  }
  // Columns no name explains: by the values they share with a destination column of a fitting type.
  if (options.sourceSample && options.destSample) {
    for (const column of from.columns) {
      if (from.primaryKey.includes(column.ColumnName) || chosen.some((x) => x.source === column.ColumnName)) continue;
      let best: { target: ColumnInfo; shared: number; of: number } | null = null;
      for (const target of to.columns) {
        if (target.ColumnName === destKey || chosen.some((x) => x.dest === target.ColumnName)) continue;
        if (typeKind(column.DataType) !== typeKind(target.DataType)) continue;
        const o = overlap(sourceValues(column.ColumnName), destValues(target.ColumnName));
        if (o.of >= 3 && o.shared / o.of >= 0.6 && (!best || o.shared > best.shared)) best = { target, ...o };
      }
      if (best) {
        chosen.push({
          source: column.ColumnName,
          dest: best.target.ColumnName,
          reason: `${best.shared} of ${best.of} sampled values of ${column.ColumnName} appear in ${to.name}.${best.target.ColumnName}`,
          score: 50,
        });
      }
    }
  }
  return chosen.sort(
    (a, b) => from.columns.findIndex((c) => c.ColumnName === a.source) - from.columns.findIndex((c) => c.ColumnName === b.source),
  );
}

/**
 * The destination table for a source table: the same name (case, separators, plural), else the
 * table that holds most of the sampled values of one of its text columns (at least 60 % of at
 * least 3 distinct values).
 */
export function suggestDestTable(
  from: TableInfo,
  dest: SchemaInfo,
  samples?: { source?: TableSample; dest: Map<string, TableSample> },
): TableSuggestion | null {
  const byName = dest.tables.find((t) => tableForm(t.name) === tableForm(from.name));
  if (byName)
    return {
      table: byName.name,
      reason: byName.name === from.name ? 'same name' : `same name apart from case, separators and plural (${from.name} ~ ${byName.name})`,
    };
  if (!samples?.source) return null;
  let best: { table: string; column: string; destColumn: string; shared: number; of: number } | null = null;
  for (const column of from.columns) {
    if (typeKind(column.DataType) !== 'text') continue;
    for (const table of dest.tables) {
      const sample = samples.dest.get(table.name);
      if (!sample) continue;
      for (const target of table.columns) {
        if (typeKind(target.DataType) !== 'text') continue;
        const o = overlap(samples.source.columns[column.ColumnName], sample.columns[target.ColumnName]);
        if (o.of >= 3 && o.shared / o.of >= 0.6 && (!best || o.shared > best.shared))
          best = { table: table.name, column: column.ColumnName, destColumn: target.ColumnName, ...o };
      }
    }
  }
  return best
    ? {
        table: best.table,
        reason: `${best.shared} of ${best.of} sampled values of ${from.name}.${best.column} appear in ${best.table}.${best.destColumn}`,
      }
    : null;
}

/** A first plan for a source table into `destTable` (suggested when not given), with the reasons. */
export function suggestPlan(
  sourceTable: string,
  source: SchemaInfo,
  dest: SchemaInfo,
  samples?: { source?: TableSample; dest: Map<string, TableSample> },
  destTable?: string,
): PlanSuggestion | null {
  const from = source.tables.find((t) => t.name === sourceTable);
  if (!from) return null;
  const table = destTable ? { table: destTable, reason: 'chosen' } : suggestDestTable(from, dest, samples);
  const to = table ? dest.tables.find((t) => t.name === table.table) : undefined;
  const sourceKey = from.primaryKey.length > 0 ? from.primaryKey : from.columns.slice(0, 1).map((c) => c.ColumnName);
  if (!to)
    return { plan: { sourceTable, destTable: '', columns: [], sourceKey, destKey: 'id', foreignKeys: [] }, table: null, columns: [] };
  const destKey = to.primaryKey.length === 1 ? to.primaryKey[0]! : (to.columns[0]?.ColumnName ?? 'id');
  const columns = suggestColumns(from, to, { destKey, sourceSample: samples?.source, destSample: samples?.dest.get(to.name) });
  const mapped = new Set(columns.map((c) => c.dest));
  return {
    plan: {
      sourceTable,
      destTable: to.name,
      columns: columns.map(({ source: s, dest: d, transform }) => (transform ? { source: s, dest: d, transform } : { source: s, dest: d })),
      sourceKey,
      destKey,
      foreignKeys: dest.foreignKeys.filter((fk) => fk.childTable === to.name && mapped.has(fk.childColumn)),
    },
    table,
    columns,
  };
}

/** A transform in words, for the pages. */
export function describeTransform(t: ValueTransform | undefined): string {
  if (!t) return '';
  if (t.kind === 'date') return `text date ${t.format}`;
  if (t.kind === 'timestamp') return `text time ${t.format} (UTC)`;
  const entries = Object.entries(t.values);
  return `codes ${entries
    .slice(0, 6)
    .map(([k, v]) => `${k} → ${v ?? 'empty'}`)
    .join(', ')}${entries.length > 6 ? ', …' : ''}`;
}
