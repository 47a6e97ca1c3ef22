import { Hono } from 'hono';
import type { FormEnv } from '../context.ts';
import { signedIn } from '../guards.ts';
import { BadParams, parseId, parseTab } from '../params.ts';
import { type PersonKind, personPage } from '../queries.ts';
import { computeStats } from '../stats.ts';
import { personProfilePage } from '../views/person.tsx';
import { badRequestPage, notFoundPage } from '../views/render.tsx';

/** Jockey and trainer pages: profile, runs and stats. */
export function personRoutes(kind: PersonKind) {
  const routes = new Hono<FormEnv>();
  const title = kind === 'jockey' ? 'Jockey' : 'Trainer';
  routes.get('/:id/', signedIn, async (c) => {
    const id = parseId(c.req.param('id'));
    const bad = new BadParams();
    if (id === undefined) bad.problems.push(`the ${kind} id must be a whole number from 1 (got “${c.req.param('id').slice(0, 40)}”)`);
    const tab = bad.optional('tab', c.req.query('tab'), parseTab, 'brief or detailed') ?? 'brief';
    if (bad.problems.length > 0 || id === undefined) return badRequestPage(c, bad.problems);
    const { person, runs } = await c.var.cache.get('person_page', { kind, id }, () => personPage(c.var.racing, kind, id));
    if (!person) return notFoundPage(c, title, id);
    return c.html(personProfilePage({ kind, person, runs, stats: computeStats(runs), activeTab: tab }));
  });
  return routes;
}
