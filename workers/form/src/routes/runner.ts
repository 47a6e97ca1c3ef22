import { Hono } from 'hono';
import type { FormEnv } from '../context.ts';
import { signedIn } from '../guards.ts';
import { racingToday } from '../config.ts';
import { runnerPartsRequest } from '../data.ts';
import { BadParams, parseDate, parseId, parseTab } from '../params.ts';
import { latestWinner } from '../queries.ts';
import type { SalesSql } from '../runner-page.ts';
import { computeStats } from '../stats.ts';
import { badRequestPage, errorPage, notFoundPage } from '../views/render.tsx';
import { runnerPage } from '../views/runner.tsx';

export function runnerRoutes(options: { salesSql?: SalesSql } = {}) {
  const runner = new Hono<FormEnv>();

  runner.get('/', signedIn, async (c) => {
    const { config, cache, racing } = c.var;
    const today = racingToday(config.RACING_TIMEZONE);
    const horseId = config.DEFAULT_HORSE_ID ?? (await cache.get('default_horse', { today }, () => latestWinner(racing, today)));
    if (horseId === null) return errorPage(c, 200, 'No horses yet', 'The racing database holds no horses.');
    return c.redirect(`/form/runner/${horseId}/?tab=brief`, 302);
  });

  runner.get('/:id/', signedIn, async (c) => {
    const horseId = parseId(c.req.param('id'));
    const bad = new BadParams();
    if (horseId === undefined) bad.problems.push(`the horse id must be a whole number from 1 (got “${c.req.param('id').slice(0, 40)}”)`);
    const tab = bad.optional('tab', c.req.query('tab'), parseTab, 'brief or detailed') ?? 'brief';
    const date = bad.optional('date', c.req.query('date'), parseDate, 'a real date as YYYY-MM-DD');
    const raceId = bad.optional('race', c.req.query('race'), parseId, 'a race id (a whole number from 1)');
    const meetingId = bad.optional('meeting', c.req.query('meeting'), parseId, 'a meeting id (a whole number from 1)');
    if (bad.problems.length > 0 || horseId === undefined) return badRequestPage(c, bad.problems);

    // Page data and sales: one cache entry; on a first view, one statement (runner-page.ts).
    const { page: data, sales } = await c.var.cache.getParts(runnerPartsRequest(c, { horseId, date, meetingId, raceId }, options.salesSql));
    const horse = data.horse;
    if (!horse) return notFoundPage(c, 'Horse', horseId);
    return c.html(runnerPage({ data: { ...data, horse }, stats: computeStats(data.runs), sales, activeTab: tab }));
  });

  return runner;
}
