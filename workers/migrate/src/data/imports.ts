// The destination statements of an import area's table that the pages send themselves.

import { openDestination, withSql } from '../engine/db.ts';
import type { EngineEnv } from '../engine/types.ts';
import { destinationCount } from '../imports/areas.ts';

/**
 * Empties an import area's destination table under the area's import lock (the advisory lock an
 * import takes), in one transaction; answers how many rows it removed.
 */
export function clearImportTable(env: EngineEnv, table: string): Promise<number> {
  return withSql(
    () => openDestination(env),
    (dest) =>
      dest.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`import:${table}`]);
        const count = await destinationCount(tx, table);
        await tx.query(`TRUNCATE ${table}`);
        return count;
      }),
  );
}
