import { type PreparedTable, whereOf } from './prepare.ts';
import { validationParts } from './validation.ts';
import { z } from 'zod';
import { type Sql, ident, rows } from './db.ts';
import { keyText } from './expressions.ts';
import { readSource } from './filter.ts';
import { allMappings } from './mappings.ts';

// The first source keys whose row differs between source and destination, for the Results page
// (as a validation report lists its mismatched keys): the rows' canonical texts (validation's own
// parts) hashed on each side and compared key by key over the first rows of the source.

/** Source rows compared per table. */
export const MISMATCH_SCAN_ROWS = 20_000;

/** A row's key as the mappings hold it and the md5 of its compared values. */
const keyHash = z.object({ k: z.string(), h: z.string() });

/** Up to `limit` source keys (in key order) missing from the destination or with another value there. */
export async function firstMismatchedKeys(source: Sql, dest: Sql, configId: number, table: PreparedTable, limit = 10): Promise<string[]> {
  const plan = table.plan;
  const { sourceParts, destParts, joins } = validationParts(table);
  const sourceRows = await readSource(source, (tx) =>
    rows(
      tx,
      keyHash,
      `SELECT ${keyText(plan.sourceKey.map(ident))} AS k, md5(concat_ws(E'\\x1e', ${sourceParts.join(', ')})) AS h
       FROM ${ident(plan.sourceTable)} WHERE ${whereOf(table)} ORDER BY ${plan.sourceKey.map(ident).join(', ')} LIMIT $1`,
      [MISMATCH_SCAN_ROWS],
    ),
  );
  if (sourceRows.length === 0) return [];
  const destRows = await rows(
    dest,
    keyHash,
    `SELECT m.source_id AS k, md5(concat_ws(E'\\x1e', ${destParts.join(', ')})) AS h
     FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2 AND $t.source_table = $3')} m
     JOIN ${ident(plan.destTable)} d ON d.${ident(plan.destKey)} = m.dest_id::${table.destTypes[plan.destKey]}
     ${joins.join(' ')}
     WHERE m.source_id = ANY($4::text[])`,
    [configId, plan.destTable, plan.sourceTable, sourceRows.map((r) => r.k)],
  );
  const destHash = new Map(destRows.map((r) => [r.k, r.h]));
  return sourceRows
    .filter((r) => destHash.get(r.k) !== r.h)
    .slice(0, limit)
    .map((r) => r.k);
}
