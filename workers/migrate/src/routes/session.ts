import { Hono } from 'hono';
import { z } from 'zod';
import { SESSION_STATUSES } from '#d1/migrate/schema.ts';
import type { MigrateEnv } from '../context.ts';
import { guard } from '../guards.ts';
import { formBody, query } from '../input.ts';
import { migrationJob } from '../runs.ts';
import { SessionListPage } from '../views/session.tsx';
import { deleteWizardSession, listWizardSessions, SORTS, wizardSession, type SortBy } from '../wizard-sessions.ts';

/** Session: the wizard sessions, their statistics, and deleting one (spec 002 A, Session). */
export const sessionRoutes = new Hono<MigrateEnv>();

const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);

const ListQuery = z.object({
  status: z.preprocess(last, z.union([z.enum(SESSION_STATUSES), z.literal('')]).optional()),
  sortBy: z.preprocess(last, z.enum(Object.keys(SORTS) as [SortBy, ...SortBy[]]).default('created')),
  descending: z.preprocess(last, z.enum(['true', 'false']).default('true')),
});

sessionRoutes.get('/Session', guard.read('any'), async (c) => {
  const q = query(c, ListQuery);
  const options = { status: q.status || undefined, sortBy: q.sortBy, descending: q.descending === 'true' };
  const list = await listWizardSessions(c.var.db, options);
  return c.html(SessionListPage({ csrf: c.var.csrfToken, user: c.var.user, ...list, options }));
});
sessionRoutes.get('/Session/Index', guard.read('any'), (c) => c.redirect('/Session', 302));

sessionRoutes.post('/Session/Delete', guard.write('operator'), async (c) => {
  const session = await wizardSession(c, (await formBody(c)).sessionId);
  // A run in progress is asked to stop first; its copied rows and id mappings stay.
  if (session.runId && session.status === 'Running') await migrationJob(c, session.runId).cancel();
  await deleteWizardSession(c.var.db, session.id);
  return c.redirect('/Session', 302);
});
