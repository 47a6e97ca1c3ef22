import { z } from 'zod';
import { type Reader, type Reads, parsedRows, rows } from './db.ts';
import type { ColumnInfo, ForeignKey, SchemaInfo, TableInfo } from './types.ts';

// Tables, columns, primary and foreign keys of a database's public schema, from pg_catalog in
// two statements (information_schema is slower and hides constraints from non-owners).

/** The engine's own bookkeeping tables in the destination: never offered for copying. */
export const ENGINE_TABLES = new Set([
  'migration_id_mappings',
  'migration_id_ranges',
  'migration_run_cursors',
  'migration_rejects',
  'config_id_mappings',
]);

const columnRow = z.object({
  table_name: z.string(),
  column_name: z.string(),
  data_type: z.string(),
  nullable: z.boolean(),
  has_default: z.boolean(),
  estimated_rows: z.union([z.number(), z.string()]),
});
type ColumnRow = z.output<typeof columnRow>;
const constraintRow = z.object({
  kind: z.enum(['p', 'f']),
  table_name: z.string(),
  columns: z.unknown().transform((v) => textArray(v)),
  parent_table: z.string().nullable(),
  parent_columns: z.unknown().transform((v) => (v === null || v === undefined ? null : textArray(v))),
});
type ConstraintRow = z.output<typeof constraintRow>;

const COLUMNS = `
SELECT c.relname::text AS table_name, a.attname::text AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type,
       NOT a.attnotnull AS nullable, (a.atthasdef OR a.attidentity <> '') AS has_default,
       greatest(c.reltuples, 0)::bigint AS estimated_rows
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum`;

const CONSTRAINTS = `
SELECT con.contype::text AS kind, cl.relname::text AS table_name,
       ARRAY(SELECT att.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(num, ord)
             JOIN pg_attribute att ON att.attrelid = con.conrelid AND att.attnum = k.num ORDER BY k.ord) AS columns,
       fcl.relname::text AS parent_table,
       CASE WHEN con.contype = 'f' THEN
         ARRAY(SELECT att.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(num, ord)
               JOIN pg_attribute att ON att.attrelid = con.confrelid AND att.attnum = k.num ORDER BY k.ord)
       END AS parent_columns
FROM pg_constraint con
JOIN pg_class cl ON cl.oid = con.conrelid
JOIN pg_namespace n ON n.oid = cl.relnamespace
LEFT JOIN pg_class fcl ON fcl.oid = con.confrelid
WHERE n.nspname = 'public' AND con.contype IN ('p', 'f')
ORDER BY cl.relname, con.conname`;

/** The driver hands back text[] as an array; a server without the array parser gives `{a,b}`. */
function textArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== 'string') return [];
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',').map((s) => s.replace(/^"|"$/g, '')) : [];
}

/** The schema read on a connection (or any reader), one statement after the other. */
export async function introspectSql(sql: Reader, options: { hideEngineTables?: boolean } = {}): Promise<SchemaInfo> {
  return schemaFrom(await rows(sql, columnRow, COLUMNS), await rows(sql, constraintRow, CONSTRAINTS), options);
}

/** The schema read over HTTP: both statements in one batch, one round trip, one snapshot. */
export async function introspectReads(reads: Reads, options: { hideEngineTables?: boolean } = {}): Promise<SchemaInfo> {
  const [columns = [], constraints = []] = await reads.batch([{ text: COLUMNS }, { text: CONSTRAINTS }]);
  return schemaFrom(parsedRows(columnRow, COLUMNS, columns), parsedRows(constraintRow, CONSTRAINTS, constraints), options);
}

function schemaFrom(
  columns: readonly ColumnRow[],
  constraints: readonly ConstraintRow[],
  options: { hideEngineTables?: boolean },
): SchemaInfo {
  const tables = new Map<string, TableInfo>();
  for (const row of columns) {
    if (options.hideEngineTables && ENGINE_TABLES.has(row.table_name)) continue;
    let table = tables.get(row.table_name);
    if (!table) {
      table = { name: row.table_name, columns: [], primaryKey: [], estimatedRows: Number(row.estimated_rows) };
      tables.set(row.table_name, table);
    }
    table.columns.push({
      ColumnName: row.column_name,
      DataType: row.data_type,
      IsPrimaryKey: false,
      nullable: row.nullable,
      hasDefault: row.has_default,
    });
  }
  const foreignKeys: ForeignKey[] = [];
  for (const row of constraints) {
    const table = tables.get(row.table_name);
    if (!table) continue;
    const cols = textArray(row.columns);
    if (row.kind === 'p') {
      table.primaryKey = cols;
      for (const column of table.columns) column.IsPrimaryKey = cols.includes(column.ColumnName);
      continue;
    }
    const parentCols = textArray(row.parent_columns);
    // Single-column foreign keys are what id mappings can translate.
    if (cols.length !== 1 || parentCols.length !== 1 || !row.parent_table || !tables.has(row.parent_table)) continue;
    const column = table.columns.find((c) => c.ColumnName === cols[0]);
    foreignKeys.push({
      childTable: row.table_name,
      childColumn: cols[0]!,
      parentTable: row.parent_table,
      parentColumn: parentCols[0]!,
      nullable: column?.nullable ?? true,
    });
  }
  return { tables: [...tables.values()], foreignKeys };
}

export function findTable(schema: SchemaInfo, name: string): TableInfo | undefined {
  return schema.tables.find((t) => t.name === name);
}

export function findColumn(table: TableInfo | undefined, name: string): ColumnInfo | undefined {
  return table?.columns.find((c) => c.ColumnName === name);
}
