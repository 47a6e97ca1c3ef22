import type { Context } from 'hono';
import type { RacingReads } from '#shared/pg.ts';
import type { CacheRequest } from './cache.ts';
import type { FormEnv } from './context.ts';
import { type RaceCard, type Sale, raceCard, salesOf, searchHorses } from './queries.ts';

export type SalesLookup = (db: RacingReads, horseId: number) => Promise<Sale[]>;

/**
 * Sales come from their own query so that a failure there (the spec: a database error in the
 * sales lookup) leaves the page up with no sales. Failures are logged, never cached.
 */
export function salesRequest(c: Context<FormEnv>, horseId: number, lookup: SalesLookup = salesOf): CacheRequest<Sale[]> {
  return {
    kind: 'sales',
    parts: { horse: horseId },
    load: () => lookup(c.var.racing, horseId),
    onError: (err) => {
      console.error(
        JSON.stringify({
          level: 'warn',
          request_id: c.var.requestId,
          message: 'sales lookup failed; page shown without sales',
          error: err instanceof Error ? err.message : String(err),
        }),
      );
      return [];
    },
  };
}

/** A race's field, cached under `runners`: the runners lookup and the guide's inline field share it. */
export function cachedRaceCard(c: Context<FormEnv>, raceId: number): Promise<RaceCard> {
  return c.var.cache.get('runners', { race: raceId }, () => raceCard(c.var.racing, raceId));
}

/** Horse search, cached by the lower-cased query: the JSON lookup and the search page share it. */
export function cachedSearch(c: Context<FormEnv>, query: string): ReturnType<typeof searchHorses> {
  return c.var.cache.get('search', { q: query.toLowerCase() }, () => searchHorses(c.var.racing, query));
}
