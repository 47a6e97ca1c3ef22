import { conditionSql } from './condition.ts';
import { z } from 'zod';
import { type Sql, ident, rows as readRows } from './db.ts';
import { tableCondition } from './filter.ts';
import { findColumn, findTable, introspectSql } from './introspect.ts';
import { validatePlan } from './plan.ts';
import { FilterError, type ForeignKey, type RunPlan, type SchemaInfo, type TablePlan } from './types.ts';

// A run's preparation: the plan checked against both schemas once, at the start, and what its
// chunks need looked up (types, the key's sequence, translated and deferred foreign keys, the
// filter printed from its parsed tree, whether the direct path and natural-key probes fit).

/** A plan table with what the run looked up about it once, at the start. */
export type PreparedTable = {
  plan: TablePlan;
  sourceKeyTypes: string[];
  /** Source column → its data type, for the columns the copy reads. */
  sourceTypes: Record<string, string>;
  /** format_type() of every destination column the copy writes, and of the key. */
  destTypes: Record<string, string>;
  /** The destination key's sequence (identity or serial); null when the key is a mapped column. */
  sequence: string | null;
  /** Destination FK column → parent destination table, for the columns translated through id mappings. */
  translated: Record<string, string>;
  /** Destination FK columns copied empty to break a cycle, backfilled afterwards. */
  deferred: string[];
  /**
   * Whether its chunks may take the direct path (`directChunk`): rows converted on the source and
   * streamed by COPY into the destination table. Absent (older stored runs) means no.
   */
  direct?: boolean;
  /**
   * Whether an index of the destination table leads with a natural-key column: then each row's
   * natural key is looked up by an index probe, else by one hash join over the table. Absent (older
   * stored runs) means no.
   */
  naturalIndex?: boolean;
  /**
   * The table's filter as printed from its parsed tree (condition.ts), `true` when it has none.
   * Absent (runs prepared before filters were parsed) with a filter refuses the run (`whereOf`).
   */
  where?: string;
};

/** The WHERE condition a prepared table's source reads use. */
export function whereOf(table: PreparedTable): string {
  if (table.where !== undefined) return table.where;
  if (table.plan.filter?.trim())
    throw new PlanError(`${table.plan.sourceTable}: this run was prepared before filters were checked; start it again`);
  return 'true';
}

/** A table's filter compiled against the source schema; a refused filter makes the plan wrong, not the run flaky. */
function preparedWhere(table: TablePlan, sourceSchema: SchemaInfo): string {
  try {
    return conditionSql(tableCondition(table.filter, table.sourceTable, sourceSchema));
  } catch (error) {
    if (error instanceof FilterError) throw new PlanError(`${table.sourceTable}: the filter was refused: ${error.message}`);
    throw error;
  }
}

export const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint']);

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

const isDeferred = (deferred: ForeignKey[], table: string, column: string) =>
  deferred.some((fk) => fk.childTable === table && fk.childColumn === column);

/**
 * Checks the plan against both schemas and looks up the types and sequences the chunks need.
 * Throws PlanError listing the plan's errors.
 */
export async function prepareTables(
  source: Sql,
  dest: Sql,
  plan: RunPlan,
  options: { validate?: boolean; directCopy?: boolean } = {},
): Promise<PreparedTable[]> {
  const [sourceSchema, destSchema] = await Promise.all([introspectSql(source), introspectSql(dest, { hideEngineTables: true })]);
  const errors = validatePlan(plan.tables, sourceSchema, destSchema).filter(
    (i) => i.level === 'error' && (options.validate !== false || /does not exist/.test(i.message)),
  );
  if (errors.length > 0) throw new PlanError(errors.map((e) => `${e.table}${e.column ? `.${e.column}` : ''}: ${e.message}`).join('; '));
  const prepared: PreparedTable[] = [];
  for (const table of plan.tables) {
    const from = findTable(sourceSchema, table.sourceTable)!;
    const to = findTable(destSchema, table.destTable)!;
    const destTypes: Record<string, string> = {};
    for (const column of [table.destKey, ...table.columns.map((c) => c.dest)]) destTypes[column] = findColumn(to, column)!.DataType;
    let sequence: string | null = null;
    if (!table.columns.some((c) => c.dest === table.destKey)) {
      const rows = await readRows(dest, z.object({ seq: z.string().nullable() }), 'SELECT pg_get_serial_sequence($1, $2) AS seq', [
        ident(table.destTable),
        table.destKey,
      ]);
      sequence = rows[0]?.seq ?? null;
      if (!sequence) throw new PlanError(`${table.destTable}.${table.destKey}: the key has no sequence or identity and is not mapped`);
    }
    const translated: Record<string, string> = {};
    const deferred: string[] = [];
    for (const fk of table.foreignKeys) {
      if (!table.columns.some((c) => c.dest === fk.childColumn)) continue;
      if (isDeferred(plan.deferred, table.destTable, fk.childColumn)) deferred.push(fk.childColumn);
      else translated[fk.childColumn] = fk.parentTable;
    }
    const entry: PreparedTable = {
      plan: table,
      sourceKeyTypes: table.sourceKey.map((k) => findColumn(from, k)!.DataType),
      sourceTypes: Object.fromEntries(table.columns.map((c) => [c.source, findColumn(from, c.source)!.DataType])),
      destTypes,
      sequence,
      translated,
      deferred,
      where: preparedWhere(table, sourceSchema),
    };
    entry.direct = options.directCopy === true && directShape(entry) && (await ascendingSequence(dest, sequence!));
    if (table.naturalKey?.length) entry.naturalIndex = await indexLeadsWith(dest, table.destTable, table.naturalKey);
    prepared.push(entry);
  }
  return prepared;
}

/**
 * Destination types the direct path may name on the source (its values are converted there, so the
 * type must exist on any PostgreSQL): core types only, never an enum, domain or extension type.
 */
const CORE_TYPES =
  /^(smallint|integer|bigint|numeric(\(\d+(,\d+)?\))?|real|double precision|boolean|text|character varying(\(\d+\))?|character(\(\d+\))?|date|time(\(\d\))? without time zone|timestamp(\(\d\))? with(out)? time zone|uuid|json|jsonb|bytea)$/;

/**
 * A table whose chunks only ever insert new rows with ids from the destination's sequence: one
 * integer source key, the destination key not copied, no natural key to match, no foreign key to
 * translate (deferred ones are copied empty), core types only. Whether a chunk's rows are all new is
 * checked per chunk (`directChunk`).
 */
function directShape(table: PreparedTable): boolean {
  const plan = table.plan;
  return (
    integerSourceKey(table) &&
    table.sequence !== null &&
    !plan.naturalKey?.length &&
    Object.keys(table.translated).length === 0 &&
    plan.columns.every((c) => CORE_TYPES.test(table.destTypes[c.dest]!))
  );
}

/** Whether a plain index of `table` has one of `columns` as its first column. */
async function indexLeadsWith(dest: Sql, table: string, columns: string[]): Promise<boolean> {
  const rows = await readRows(
    dest,
    z.object({ yes: z.boolean() }),
    `SELECT EXISTS (
       SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
       WHERE i.indrelid = $1::regclass AND i.indpred IS NULL AND a.attname = ANY($2::text[])
     ) AS yes`,
    [ident(table), columns],
  );
  return rows[0]?.yes === true;
}

/** Whether the sequence counts upwards (new ids ascend in the order they were drawn). */
async function ascendingSequence(dest: Sql, sequence: string): Promise<boolean> {
  const rows = await readRows(
    dest,
    z.object({ up: z.boolean() }),
    'SELECT seqincrement > 0 AS up FROM pg_sequence WHERE seqrelid = $1::regclass',
    [sequence],
  );
  return rows[0]?.up === true;
}

/** Whether the source key is one integer column (its values are the ranges' numbers as they are). */
export const integerSourceKey = (table: PreparedTable) => table.sourceKeyTypes.length === 1 && INTEGER_TYPES.has(table.sourceKeyTypes[0]!);

/** The source key's type when it is one column (its text is escaped by that type); else undefined (escaped). */
export const keyTypeOf = (table: PreparedTable) => (table.plan.sourceKey.length === 1 ? table.sourceKeyTypes[0] : undefined);
