import { type Context, Hono } from 'hono';
import { categoriesOf } from '../ai/categories.ts';
import { jobView, latestJobs } from '../ai/jobs.ts';
import { createModel, modelTitle } from '../ai/model.ts';
import { summaryRow } from '../ai/pipeline.ts';
import { PROMPT_NAMES, promptFor } from '../ai/prompts.ts';
import type { MailEnv } from '../context.ts';
import { latestSummaries } from '../data/summaries.ts';
import { assistant, pageSession } from '../guards.ts';
import { adminPage, dashboardPage, latestSummariesPage, tracePage } from '../views/assistant.tsx';
import { errorPage } from '../views/layout.tsx';
import { dashboardFigures, traceIdParam, traceOf } from './dashboard.ts';

/** The assistant's pages (server-rendered from SQL): dashboard, admin, a trace, the latest summaries. */
export const assistantPages = new Hono<MailEnv>();

/** The signed-in user and the page's token: every assistant page shows them. */
const page = (c: Context<MailEnv>) => ({ user: c.var.user, csrfToken: c.var.csrfToken });

/** Which model works now (the admin and latest-summaries pages name it). */
const modelOf = (c: Context<MailEnv>) => {
  const model = createModel(c.var.config, c.env);
  return { kind: model.kind, title: modelTitle(model) };
};

assistantPages.get('/dashboard', pageSession, assistant, async (c) => c.html(dashboardPage({ ...page(c), d: await dashboardFigures(c) })));

assistantPages.get('/trace/:trace_id', pageSession, assistant, async (c) => {
  const id = traceIdParam.safeParse(c.req.param('trace_id'));
  if (!id.success) return c.html(errorPage('Not a trace id', 'A trace id is 1–100 letters, digits, - or _.', c.var.user), 400);
  const trace = await traceOf(c, id.data);
  if (!trace) return c.html(errorPage('No such trace', `No trace ${id.data} of yours.`, c.var.user), 404);
  return c.html(tracePage({ ...page(c), id: id.data, trace }));
});

assistantPages.get('/admin', pageSession, assistant, async (c) => {
  const userId = c.var.user.id;
  const [categories, jobs, prompts] = await Promise.all([
    categoriesOf(c.var.db, userId),
    latestJobs(c.var.db, userId, 5),
    Promise.all(PROMPT_NAMES.map(async (n) => ({ name: n, ...(await promptFor(c.var.db, userId, n))! }))),
  ]);
  const views = jobs.map(jobView);
  const running = views.some((j) => j.status === 'queued' || j.status === 'running');
  return c.html(adminPage({ ...page(c), model: modelOf(c), running, categories, jobs: views, prompts }));
});

assistantPages.get('/admin/docdb-latest', pageSession, assistant, async (c) => {
  const rows = await latestSummaries(c.var.db, c.var.user.id, 20);
  return c.html(latestSummariesPage({ ...page(c), model: modelOf(c), summaries: rows.map(summaryRow) }));
});
