import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { SCHEMA_STATEMENT, watchSql } from '../support/sql-watch';
import type { RaceCard } from '../../workers/form/src/queries';
import type { Horse, RunnerPageData, Sale } from '../../workers/form/src/runner-page';
import type { Run } from '../../workers/form/src/runs';
import type { horses, races, runners, sales } from '#shared/racing/schema.ts';
import { fetchForm, query, sessionCookie } from './helpers';

// What the form Worker sends to PostgreSQL: every statement goes over the driver's HTTP path
// (`POST …/sql`), which these tests watch from inside the isolate. No page or lookup sends DDL or
// session settings; a row that does not match its statement's schema is refused as a 500 page.

type SqlAnswer = { fields?: { name: string }[]; rows?: unknown[][] } & Record<string, unknown>;

let cookie: string;
let horseId: number;
let jockeyId: number;
let trainerId: number;
let raceId: number;

beforeAll(async () => {
  cookie = await sessionCookie();
  const [run] = await query<{ horse_id: number; jockey_id: number; trainer_id: number; race_id: number }>(
    'select horse_id, jockey_id, trainer_id, race_id from runners where jockey_id is not null and finishing_position is not null order by id desc limit 1',
  );
  ({ horse_id: horseId, jockey_id: jockeyId, trainer_id: trainerId, race_id: raceId } = run!);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('no DDL at request time', () => {
  it('the pages and JSON lookups send only queries', async () => {
    const today = env.RACING_TODAY;
    const statements = watchSql();
    const paths = [
      '/form/runner/',
      `/form/runner/${horseId}/?tab=detailed`,
      `/form/jockey/${jockeyId}/`,
      `/form/trainer/${trainerId}/`,
      `/form/guide/?date=${today}`,
      '/form/search/?q=a',
      '/form/api/dates/',
      `/form/api/meetings/?date=${today}`,
      `/form/api/races/?date=${today}`,
      `/form/api/runners/?race_id=${raceId}`,
      '/form/api/search/?q=ab',
    ];
    for (const path of paths) {
      const res = await fetchForm(path, { cookie });
      // The runner page without a horse redirects to the default one (the latest winner, looked up).
      expect(res.status, path).toBe(path === '/form/runner/' ? 302 : 200);
      await res.arrayBuffer();
    }
    // Some answers may come from the data cache; the rest reached the database through the watched fetch.
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((s) => SCHEMA_STATEMENT.test(s))).toEqual([]);
  });
});

describe('rows off their schema', () => {
  it("a runner page whose run has a distance that is no number answers the service's 500 page", async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    let edited = false;
    watchSql<SqlAnswer>((answer) => {
      const at = answer.fields?.findIndex((f) => f.name === 'runs') ?? -1;
      const row = answer.rows?.[0];
      if (at < 0 || !row) return;
      const runs = JSON.parse(String(row[at])) as Record<string, unknown>[];
      if (!runs[0]) return;
      runs[0].distance = 'far';
      row[at] = JSON.stringify(runs);
      edited = true;
    });
    // A date no earlier request of this file asked for, so the page is not in the data cache.
    const res = await fetchForm(`/form/runner/${horseId}/?date=1999-01-01`, { cookie });
    expect(edited).toBe(true);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('Something went wrong');
    const lines = logged.mock.calls.map((args) => String(args[0]));
    expect(lines.some((line) => line.includes('Row 0 of the runner page with sales does not match its schema: runs.0.distance'))).toBe(
      true,
    );
  });
});

describe('row types follow the racing schema', () => {
  it('columns read straight from a table keep the schema type', () => {
    expectTypeOf<Sale['sale_date']>().toEqualTypeOf<(typeof sales.$inferSelect)['saleDate']>();
    expectTypeOf<Sale['price']>().toEqualTypeOf<(typeof sales.$inferSelect)['price']>();
    expectTypeOf<Horse['foaling_year']>().toEqualTypeOf<(typeof horses.$inferSelect)['foalingYear']>();
    expectTypeOf<Run['jockey_id']>().toEqualTypeOf<(typeof runners.$inferSelect)['jockeyId']>();
    expectTypeOf<Run['starting_price']>().toEqualTypeOf<(typeof runners.$inferSelect)['startingPrice']>();
    expectTypeOf<Run['finishing_position']>().toEqualTypeOf<(typeof runners.$inferSelect)['finishingPosition']>();
    expectTypeOf<NonNullable<RaceCard['race']>['distance']>().toEqualTypeOf<(typeof races.$inferSelect)['distance']>();
    expectTypeOf<RunnerPageData['selected_race_runners'][number]['scratched']>().toEqualTypeOf<
      (typeof runners.$inferSelect)['scratched']
    >();
  });
});
