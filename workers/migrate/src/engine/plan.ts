import { z } from 'zod';
import { findColumn, findTable } from './introspect.ts';
import type { ColumnMapping, MappingDocument, PlanIssue, SchemaInfo, TablePlan } from './types.ts';

/** Lower case without separators or a `tbl` prefix or a plural s: `tblRaceEntry` ~ `race_entries`. */
export function normaliseName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^tbl_?/, '')
    .replace(/[^a-z0-9]/g, '')
    .replace(/(ies)$/, 'y')
    .replace(/s$/, '');
}

/**
 * A first plan for a source table: the destination table and columns with the same normalised
 * names, the source primary key, the destination key, and the destination's foreign keys from the
 * mapped columns. The operator corrects it in ReviewMappings / FieldMapping.
 */
export function suggestTablePlan(sourceTable: string, source: SchemaInfo, dest: SchemaInfo): TablePlan | null {
  const from = findTable(source, sourceTable);
  if (!from) return null;
  const to = dest.tables.find((t) => normaliseName(t.name) === normaliseName(sourceTable));
  if (!to) return null;
  const destKey = to.primaryKey.length === 1 ? to.primaryKey[0]! : (to.columns[0]?.ColumnName ?? 'id');
  const columns: ColumnMapping[] = [];
  const tablePrefix = normaliseName(sourceTable);
  for (const column of from.columns) {
    if (from.primaryKey.includes(column.ColumnName)) continue;
    // The name itself, then without the table's name in front (horse_name), then without a kind suffix (sire_name).
    const name = normaliseName(column.ColumnName);
    const candidates = [name, name.startsWith(tablePrefix) ? name.slice(tablePrefix.length) : '', name.replace(/(code|name|no|flag)$/, '')];
    const target = candidates
      .filter(Boolean)
      .map((candidate) => to.columns.find((c) => normaliseName(c.ColumnName) === candidate))
      .find(Boolean);
    if (target && target.ColumnName !== destKey && !columns.some((m) => m.dest === target.ColumnName)) {
      columns.push({ source: column.ColumnName, dest: target.ColumnName });
    }
  }
  const mapped = new Set(columns.map((c) => c.dest));
  return {
    sourceTable,
    destTable: to.name,
    columns,
    sourceKey: from.primaryKey.length > 0 ? from.primaryKey : from.columns.slice(0, 1).map((c) => c.ColumnName),
    destKey,
    foreignKeys: dest.foreignKeys.filter((fk) => fk.childTable === to.name && mapped.has(fk.childColumn)),
  };
}

/** What would stop or spoil a run, per table and column. */
export function validatePlan(plans: TablePlan[], source: SchemaInfo, dest: SchemaInfo): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const error = (table: string, column: string | null, message: string) => issues.push({ table, column, level: 'error', message });
  const warn = (table: string, column: string | null, message: string) => issues.push({ table, column, level: 'warning', message });
  for (const plan of plans) {
    const from = findTable(source, plan.sourceTable);
    const to = findTable(dest, plan.destTable);
    if (!from) error(plan.sourceTable, null, `Source table ${plan.sourceTable} does not exist`);
    if (!to) error(plan.destTable, null, `Destination table ${plan.destTable} does not exist`);
    if (!from || !to) continue;
    if (plan.sourceKey.length === 0) error(plan.destTable, null, 'No source key to page through the source table');
    for (const key of plan.sourceKey) {
      if (!findColumn(from, key)) error(plan.destTable, key, `Source key column ${key} does not exist in ${plan.sourceTable}`);
    }
    const destKey = findColumn(to, plan.destKey);
    if (!destKey) error(plan.destTable, plan.destKey, `Destination key ${plan.destKey} does not exist in ${plan.destTable}`);
    else if (!destKey.hasDefault && !plan.columns.some((c) => c.dest === plan.destKey)) {
      error(plan.destTable, plan.destKey, `Destination key ${plan.destKey} has no default or identity and is not mapped`);
    }
    const seen = new Set<string>();
    for (const mapping of plan.columns) {
      if (!findColumn(from, mapping.source))
        error(plan.destTable, mapping.dest, `Source column ${mapping.source} does not exist in ${plan.sourceTable}`);
      if (!findColumn(to, mapping.dest))
        error(plan.destTable, mapping.dest, `Destination column ${mapping.dest} does not exist in ${plan.destTable}`);
      if (seen.has(mapping.dest)) error(plan.destTable, mapping.dest, `Destination column ${mapping.dest} is mapped twice`);
      seen.add(mapping.dest);
    }
    for (const column of to.columns) {
      if (!column.nullable && !column.hasDefault && !seen.has(column.ColumnName) && column.ColumnName !== plan.destKey) {
        error(plan.destTable, column.ColumnName, `Destination column ${column.ColumnName} is NOT NULL without a default and not mapped`);
      }
    }
    for (const key of plan.naturalKey ?? []) {
      if (!seen.has(key)) error(plan.destTable, key, `Natural key column ${key} is not a mapped destination column`);
    }
    for (const fk of plan.foreignKeys) {
      if (fk.childTable !== plan.destTable)
        error(plan.destTable, fk.childColumn, `Foreign key of ${fk.childTable} listed under ${plan.destTable}`);
      else if (!seen.has(fk.childColumn))
        warn(plan.destTable, fk.childColumn, `Foreign key column ${fk.childColumn} is not mapped; it stays empty`);
      if (!plans.some((p) => p.destTable === fk.parentTable)) {
        warn(
          plan.destTable,
          fk.childColumn,
          `Parent table ${fk.parentTable} is not in this run: only ids mapped by earlier runs translate`,
        );
      }
    }
  }
  return issues;
}

const identifier = z
  .string()
  .min(1)
  .max(128)
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL');
const transform = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('date'), format: z.string().min(1).max(64) }),
  z.object({ kind: z.literal('timestamp'), format: z.string().min(1).max(64) }),
  z.object({
    kind: z.literal('map'),
    values: z.record(z.string().max(256), z.string().max(256).nullable()),
    default: z.string().max(256).nullable().optional(),
  }),
]);
export const columnMappingSchema = z.object({ source: identifier, dest: identifier, transform: transform.optional() });
export const mappingDocumentSchema = z.object({
  version: z.literal(1),
  tables: z
    .array(
      z.object({
        sourceTable: identifier,
        destTable: identifier,
        destKey: identifier,
        sourceKey: z.array(identifier).min(1).max(8),
        columns: z.array(columnMappingSchema).max(500),
        naturalKey: z.array(identifier).max(16).optional(),
      }),
    )
    .max(500),
});

/** A schema file's JSON as a MappingDocument, or an Error saying in words which field of which table is wrong. */
export function parseMappingDocument(json: unknown): MappingDocument {
  const parsed = mappingDocumentSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = [...new Set(parsed.error.issues.slice(0, 20).map((issue) => describeIssue(json, issue)))];
  throw new Error(`${problems.join('; ')}${parsed.error.issues.length > 20 ? `; and ${parsed.error.issues.length - 20} more` : ''}.`);
}

/** A schema file's text as a MappingDocument; an Error in words when it is not JSON or not such a document. */
export function parseMappingDocumentText(text: string): MappingDocument {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`the file is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return parseMappingDocument(json);
}

const valueAt = (json: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? Reflect.get(value, key) : undefined), json);

const NOUNS: Record<string, string> = {
  string: 'text',
  array: 'a list',
  object: 'an object',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

/** Where an issue is, in the document's own terms: "table 2 (horse), column 3 (name), field dest". */
function placeOf(json: unknown, path: readonly PropertyKey[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const next = path[i + 1];
    if ((key === 'tables' || key === 'columns') && typeof next === 'number') {
      const item = valueAt(json, path.slice(0, i + 2));
      const name = key === 'tables' ? valueAt(item, ['sourceTable']) : valueAt(item, ['source']);
      parts.push(`${key === 'tables' ? 'table' : 'column'} ${next + 1}${typeof name === 'string' && name ? ` (${name})` : ''}`);
      i++;
    } else if (typeof next === 'number') {
      parts.push(`entry ${next + 1} of ${String(key)}`);
      i++;
    } else {
      parts.push(`field ${String(key)}`);
    }
  }
  return parts.join(', ') || 'the file';
}

function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  const value = valueAt(json, issue.path);
  const place = placeOf(json, issue.path);
  if (issue.path.length === 0) return 'the file is not a JSON object with version and tables';
  if (issue.path.length === 1 && issue.path[0] === 'version') {
    return value === undefined
      ? 'the file has no version (it must say "version": 1)'
      : `the version must be 1, the file says ${JSON.stringify(value)}`;
  }
  if (value === undefined && issue.code === 'invalid_type') return `${place} is missing`;
  switch (issue.code) {
    case 'invalid_type':
      return `${place} must be ${NOUNS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `${place} is empty`
        : `${place} needs at least ${issue.minimum} entr${Number(issue.minimum) === 1 ? 'y' : 'ies'}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `${place} is longer than ${issue.maximum} characters`
        : `${place} has more than ${issue.maximum} entries`;
    case 'invalid_union':
      return `${place} is not a known transform (kind date, timestamp or map)`;
    case 'invalid_value':
      return `${place} must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    default:
      return `${place} ${issue.message}`;
  }
}
