import { z } from 'zod';
import { type Reader, type Sql, ident, literal, openDestination, openSource, rows as readRows, withSql } from './db.ts';
import { valueExpression } from './expressions.ts';
import { readSource } from './filter.ts';
import { mappedId, splitRanges } from './mappings.ts';
import { type PreparedTable, PlanError, prepareTables, whereOf } from './prepare.ts';
import type { Connection, EngineEnv, IdMappingPair, NaturalKeyMatch, NaturalKeyMatches, RunPlan, TablePlan } from './types.ts';

// Natural-key matches (the wizard's Pending Mappings): source rows paired with destination rows that hold
// the same natural key, and the pairs an operator confirms or enters stored as id mappings.

/** A plan of one table, for the one-shot operations. */
export function singleTablePlan(configId: number, source: Connection, table: TablePlan): RunPlan {
  return { runId: '', sessionId: '', configId, source, tables: [table], deferred: [], patchMode: false };
}

/** A `count(*)::int AS n` row. */
const countRow = z.object({ n: z.number() });

/** The `n` of a statement that answers one `count(*)::int AS n` row (0 when it answers none). */
export async function readCount(db: Reader, text: string, values: unknown[]): Promise<number> {
  return (await readRows(db, countRow, text, values))[0]?.n ?? 0;
}

const SCAN_LIMIT = 50_000;
const SCAN_CHUNK = 5_000;

/**
 * Source rows of a table paired with existing destination rows of the same natural key (after
 * transforms and FK translation), for review (PendingMappings); rows already mapped are counted,
 * not proposed. Reads at most 50,000 source rows, in keyset pages.
 */
export async function findNaturalKeyMatches(
  env: EngineEnv,
  conn: Connection,
  configId: number,
  plan: TablePlan,
  limit = 200,
): Promise<NaturalKeyMatches> {
  const natural = plan.naturalKey ?? [];
  if (natural.length === 0) throw new PlanError(`${plan.destTable}: no natural key columns chosen`);
  const columns = natural.map((n) => {
    const mapping = plan.columns.find((c) => c.dest === n);
    if (!mapping) throw new PlanError(`${plan.destTable}.${n}: a natural key column must be a mapped column`);
    return mapping;
  });
  const keyPlan: TablePlan = { ...plan, columns, naturalKey: natural };
  const source = openSource(env, conn);
  const dest = openDestination(env);
  try {
    const [table] = await prepareTables(source, dest, singleTablePlan(configId, conn, keyPlan), { validate: false });
    const result: NaturalKeyMatches = {
      sourceTable: plan.sourceTable,
      destTable: plan.destTable,
      alreadyMapped: 0,
      matches: [],
      unmatched: 0,
      matched: 0,
      scanned: 0,
      scanLimit: SCAN_LIMIT,
      scanCapped: false,
    };
    let cursor: string | null = null;
    for (let scanned = 0; ; scanned += SCAN_CHUNK) {
      if (scanned >= SCAN_LIMIT) {
        // Capped only when rows remain past the limit (a table of exactly the limit was read whole).
        result.scanCapped = (await readSourcePage(source, table!, cursor, 1)).keys.length > 0;
        break;
      }
      const page = await readSourcePage(source, table!, cursor, SCAN_CHUNK);
      if (page.keys.length === 0) break;
      cursor = JSON.stringify(page.keys.at(-1));
      const rows = await readRows(dest, matchRow, matchStatement(table!), [
        configId,
        plan.destTable,
        page.keys.map((k) => k.join('\u001f')),
        ...page.values,
      ]);
      result.scanned! += page.keys.length;
      for (const row of rows) {
        if (row.mapped) result.alreadyMapped++;
        else if (row.dest_id === null) result.unmatched++;
        else {
          result.matched!++;
          if (result.matches.length < limit)
            result.matches.push({ sourceId: row.src_id, destId: row.dest_id, key: row.key } satisfies NaturalKeyMatch);
        }
      }
      if (page.keys.length < SCAN_CHUNK) break;
    }
    return result;
  } finally {
    await Promise.all([source.end(), dest.end()]);
  }
}

/** A source row's match: its id, the destination row with the same natural key (if any), whether already mapped, the key's values. */
const matchRow = z.object({
  src_id: z.string(),
  dest_id: z.string().nullable(),
  mapped: z.boolean(),
  key: z.record(z.string(), z.string().nullable()),
});
function matchStatement(table: PreparedTable): string {
  const plan = table.plan;
  const values = plan.columns.map((c, i) => {
    const type = table.destTypes[c.dest]!;
    const parent = table.translated[c.dest];
    if (parent) {
      return `(${mappedId('$1', literal(parent), `i.c${i}`)})::${type} AS v${i}`;
    }
    return `${valueExpression(`i.c${i}`, type, c.transform)} AS v${i}`;
  });
  const arrays = plan.columns.map((_, i) => `$${i + 4}::text[]`).join(', ');
  const inputs = plan.columns.map((_, i) => `c${i}`).join(', ');
  const key = ident(plan.destKey);
  return `WITH input AS (SELECT * FROM unnest($3::text[], ${arrays}) WITH ORDINALITY AS u(src_id, ${inputs}, ord)),
  conv AS (SELECT i.src_id, i.ord, ${values.join(', ')} FROM input i),
  known AS (SELECT c.*, ${mappedId('$1', '$2', 'c.src_id')} AS mapped_id FROM conv c)
  SELECT DISTINCT ON (k.ord) k.src_id, d.${key}::text AS dest_id, k.mapped_id IS NOT NULL AS mapped,
         json_build_object(${plan.columns.map((c, i) => `${literal(c.dest)}, k.v${i}::text`).join(', ')}) AS key
  FROM known k LEFT JOIN ${ident(plan.destTable)} d ON k.mapped_id IS NULL AND ${plan.columns.map((c, i) => `d.${ident(c.dest)} = k.v${i}`).join(' AND ')}
  ORDER BY k.ord, d.${key}`;
}

async function readSourcePage(source: Sql, table: PreparedTable, cursor: string | null, limit: number) {
  const plan = table.plan;
  const keys = plan.sourceKey.map(ident);
  const after: unknown[] = cursor ? (JSON.parse(cursor) as unknown[]) : [];
  const keyset = cursor ? `(${keys.join(', ')}) > (${after.map((_, i) => `$${i + 1}::${table.sourceKeyTypes[i]}`).join(', ')})` : 'true';
  const select = [...keys.map((k, i) => `${k}::text AS k${i}`), ...plan.columns.map((c, i) => `${ident(c.source)}::text AS c${i}`)];
  const rows = await readSource(source, (tx) =>
    tx.query(
      `SELECT ${select.join(', ')} FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)} AND ${keyset}
       ORDER BY ${keys.join(', ')} LIMIT $${after.length + 1}`,
      [...after, limit],
    ),
  );
  return {
    keys: rows.map((row) => plan.sourceKey.map((_, i) => String(row[`k${i}`]))),
    values: plan.columns.map((_, i) => rows.map((row) => (row[`c${i}`] ?? null) as string | null)),
  };
}

/** Stores confirmed or manual pairs; a source row already mapped is re-pointed. */
export async function saveIdMappings(
  env: EngineEnv,
  configId: number,
  sourceTable: string,
  destTable: string,
  pairs: IdMappingPair[],
): Promise<number> {
  if (pairs.length === 0) return 0;
  return withSql(
    () => openDestination(env),
    (sql) =>
      readCount(
        sql,
        `WITH ${splitRanges('$1', '$2', '$4::text[]')}
         saved AS (
           INSERT INTO migration_id_mappings (config_id, dest_table, source_id, source_table, dest_id)
           SELECT $1, $2, s, $3, d FROM unnest($4::text[], $5::text[]) AS u(s, d)
           ON CONFLICT (config_id, dest_table, source_id) DO UPDATE SET dest_id = excluded.dest_id, source_table = excluded.source_table, run_id = NULL
           RETURNING 1)
         SELECT count(*)::int AS n FROM saved`,
        [configId, destTable, sourceTable, pairs.map((p) => p.sourceId), pairs.map((p) => p.destId)],
      ),
  );
}
