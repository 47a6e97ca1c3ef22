import type { Context } from 'hono';
import type { FormEnv } from './context';
import { type Sale, salesOf } from './queries';
import type { RacingDb } from '../../shared/pg';

export type SalesLookup = (db: RacingDb, horseId: number) => Promise<Sale[]>;

/**
 * Sales come from their own query so that a failure there (the spec: a database error in the
 * sales lookup) leaves the page up with no sales. Failures are logged, never cached.
 */
export async function salesOrNone(c: Context<FormEnv>, horseId: number, lookup: SalesLookup = salesOf): Promise<Sale[]> {
  try {
    return await c.var.cache.get('sales', { horse: horseId }, () => lookup(c.var.racing, horseId));
  } catch (err) {
    console.error(
      JSON.stringify({
        level: 'warn',
        request_id: c.var.requestId,
        message: 'sales lookup failed; page shown without sales',
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    return [];
  }
}
