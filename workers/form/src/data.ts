import type { Context } from 'hono';
import type { PartsRequest } from './cache.ts';
import type { FormEnv } from './context.ts';
import { type RaceCard, raceCard, searchHorses } from './queries.ts';
import { loadRunnerParts, type RunnerPageQuery, type RunnerParts, type SalesSql } from './runner-page.ts';

/**
 * The runner page's cache request: page data and sales in one entry (see loadRunnerParts). A failed
 * sales read is logged; the page then shows no sales, which are not cached.
 */
export function runnerPartsRequest(c: Context<FormEnv>, q: RunnerPageQuery, salesSql?: SalesSql): PartsRequest<RunnerParts> {
  return {
    kind: 'runner_page',
    parts: { horse: q.horseId, date: q.date, meeting: q.meetingId, race: q.raceId },
    partKinds: { page: 'runner_page', sales: 'sales' },
    load: (missing) =>
      loadRunnerParts(c.var.racing, q, missing, {
        salesSql,
        onSalesError: (err) =>
          console.error(
            JSON.stringify({
              level: 'warn',
              request_id: c.var.requestId,
              message: 'sales lookup failed; page shown without sales',
              error: err instanceof Error ? err.message : String(err),
            }),
          ),
      }),
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
