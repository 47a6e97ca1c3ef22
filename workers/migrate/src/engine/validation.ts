import { pgCount } from '#shared/pg.ts';
import { z } from 'zod';
import { type Sql, ident, literal, rows } from './db.ts';
import { canonicalText, checksumAggregate, keyText, valueExpression } from './expressions.ts';
import { readSource } from './filter.ts';
import { allMappings } from './mappings.ts';
import { type PreparedTable, whereOf } from './prepare.ts';
import type { TableValidation } from './types.ts';

// Validation of a copied table: the same canonical row text hashed on both sides.

/** A side's row count (int8) and checksum (text). */
const countChecksum = z.object({ n: pgCount, checksum: z.string() });

/**
 * Validation of one table: count and checksum of the mapped columns over the source rows (after
 * the filter, values transformed and cast as the copy does) and over the destination rows the id
 * mappings point at (foreign keys turned back into source ids through the parents' mappings).
 */
export async function validateTable(source: Sql, dest: Sql, configId: number, table: PreparedTable): Promise<TableValidation> {
  const plan = table.plan;
  const { sourceParts, destParts, joins } = validationParts(table);
  const sourceRows = await readSource(source, (tx) =>
    rows(
      tx,
      countChecksum,
      `SELECT count(*)::bigint AS n, ${checksumAggregate(`concat_ws(E'\\x1e', ${sourceParts.join(', ')})`)} AS checksum
       FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)}`,
    ),
  );
  const destRows = await rows(
    dest,
    countChecksum,
    `SELECT count(*)::bigint AS n, ${checksumAggregate(`concat_ws(E'\\x1e', ${destParts.join(', ')})`)} AS checksum
     FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2 AND $t.source_table = $3')} m
     JOIN ${ident(plan.destTable)} d ON d.${ident(plan.destKey)} = m.dest_id::${table.destTypes[plan.destKey]}
     ${joins.join(' ')}`,
    [configId, plan.destTable, plan.sourceTable],
  );
  const sourceCount = Number(sourceRows[0]?.n ?? 0);
  const destCount = Number(destRows[0]?.n ?? 0);
  const sourceChecksum = String(sourceRows[0]?.checksum ?? '0');
  const destChecksum = String(destRows[0]?.checksum ?? '0');
  return {
    table: plan.destTable,
    sourceCount,
    destCount,
    sourceChecksum,
    destChecksum,
    ok: sourceCount === destCount && sourceChecksum === destChecksum,
  };
}

/**
 * The canonical row text of a table on each side, as validation hashes it: the source's parts (over
 * the source table), the destination's (over the mappings `m` joined to the table `d`, with `joins`
 * for foreign keys turned back into source ids). Parameter $1 of the joins is the configuration.
 */
export function validationParts(table: PreparedTable): { sourceParts: string[]; destParts: string[]; joins: string[] } {
  const plan = table.plan;
  const fkColumns = new Set([...Object.keys(table.translated), ...table.deferred]);
  const sourceParts = [
    keyText(plan.sourceKey.map(ident)),
    ...plan.columns.map((c) => {
      const type = table.destTypes[c.dest]!;
      if (fkColumns.has(c.dest)) return `coalesce(${ident(c.source)}::text, '\\N')`;
      return canonicalText(valueExpression(`${ident(c.source)}::text`, type, c.transform), type);
    }),
  ];
  const joins: string[] = [];
  const destParts = [
    'm.source_id',
    ...plan.columns.map((c, i) => {
      const type = table.destTypes[c.dest]!;
      const parent =
        table.translated[c.dest] ??
        (table.deferred.includes(c.dest) ? plan.foreignKeys.find((fk) => fk.childColumn === c.dest)?.parentTable : undefined);
      if (parent) {
        joins.push(
          `LEFT JOIN (SELECT p.dest_id, min(p.source_id) AS source_id FROM ${allMappings(`$t.config_id = $1 AND $t.dest_table = ${literal(parent)}`)} p GROUP BY p.dest_id) p${i} ON p${i}.dest_id = d.${ident(c.dest)}::text`,
        );
        return `coalesce(p${i}.source_id, d.${ident(c.dest)}::text, '\\N')`;
      }
      return canonicalText(`d.${ident(c.dest)}`, type);
    }),
  ];
  return { sourceParts, destParts, joins };
}
