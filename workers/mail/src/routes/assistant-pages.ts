import { type Context, Hono } from 'hono';
import { categoriesOf } from '../ai/categories.ts';
import { jobView, latestJobs } from '../ai/jobs.ts';
import { createModel, modelTitle } from '../ai/model.ts';
import { summaryRow } from '../ai/pipeline.ts';
import { PROMPT_NAMES, promptFor } from '../ai/prompts.ts';
import type { MailEnv } from '../context.ts';
import { latestSummaries } from '../data/summaries.ts';
import { assistant, pageSession } from '../guards.ts';
import { ErrorPage, Layout } from '../views/layout.tsx';
import { dashboardFigures, traceIdParam, traceOf } from './dashboard.ts';

/** The assistant's pages (server-rendered from SQL): dashboard, admin, a trace, the latest summaries. */
export const assistantPages = new Hono<MailEnv>();

/** Which model works now; the offline one's categories and summaries are named for what they are. */
const ModelLine = ({ c }: { c: Context<MailEnv> }) => {
  const model = createModel(c.var.config, c.env);
  return (
    <p data-model data-model-kind={model.kind}>
      Model: <strong>{modelTitle(model)}</strong>
      {model.kind === 'template' ? ' — its categories are keyword categories and its summaries the first sentences.' : ''}
    </p>
  );
};

const percent = (done: number, total: number) => (total ? Math.round((done / total) * 100) : 100);

assistantPages.get('/dashboard', pageSession, assistant, async (c) => {
  const d = await dashboardFigures(c);
  return c.html(
    <Layout title="Dashboard" user={c.var.user} csrfToken={c.var.csrfToken}>
      <section class="panel" data-shell="dashboard">
        <h1>Dashboard</h1>
        <p>
          Model:{' '}
          <strong data-model data-model-kind={d.model_kind}>
            {d.model_title}
          </strong>
        </p>
        <dl class="figures">
          <dt>E-mails summarised</dt>
          <dd data-figure="emails">{d.emails}</dd>
          <dt>Received / sent</dt>
          <dd>
            {d.inbound} / {d.outbound}
          </dd>
          <dt>Needing a reply</dt>
          <dd data-figure="needs_reply">{d.needs_reply}</dd>
          <dt>Pinned</dt>
          <dd>{d.pinned}</dd>
          <dt>Drafts made / sent</dt>
          <dd data-figure="drafts">
            {d.drafts.made} / {d.drafts.sent}
            {d.drafts.suggested
              ? ` (and ${d.drafts.suggested} ${d.model_kind === 'template' ? 'template replies' : 'replies'} suggested, not drafted)`
              : ''}
          </dd>
          <dt>Model calls (7 days)</dt>
          <dd data-figure="model_calls">
            {d.model_calls_7d.calls} ({d.model_calls_7d.failed} failed, {d.model_calls_7d.avg_ms} ms on average,{' '}
            {d.model_calls_7d.tokens_in} + {d.model_calls_7d.tokens_out} tokens
            {d.model_calls_7d.tokens_estimated ? `, estimated for ${d.model_calls_7d.tokens_estimated} of them` : ''})
          </dd>
          <dt>New mail queue</dt>
          <dd>
            {d.new_mail_queue.queued} waiting, {d.new_mail_queue.done} done, {d.new_mail_queue.failed} failed
          </dd>
        </dl>
        <h2>By category</h2>
        <table class="by-category">
          <thead>
            <tr>
              <th>Category</th>
              <th>E-mails</th>
            </tr>
          </thead>
          <tbody>
            {d.by_category.map((r) => (
              <tr>
                <td>{r.category}</td>
                <td>{r.emails}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Recent traces</h2>
        <ul class="recent-traces">
          {d.recent_traces.map((t) => (
            <li>
              <a href={`/trace/${t.trace_id}`}>{t.name}</a> — {t.outcome}, {t.created_at}
            </li>
          ))}
        </ul>
      </section>
    </Layout>,
  );
});

assistantPages.get('/trace/:trace_id', pageSession, assistant, async (c) => {
  const id = traceIdParam.safeParse(c.req.param('trace_id'));
  if (!id.success)
    return c.html(<ErrorPage title="Not a trace id" message="A trace id is 1–100 letters, digits, - or _." user={c.var.user} />, 400);
  const trace = await traceOf(c, id.data);
  if (!trace) return c.html(<ErrorPage title="No such trace" message={`No trace ${id.data} of yours.`} user={c.var.user} />, 404);
  return c.html(
    <Layout title={`Trace ${id.data}`} user={c.var.user} csrfToken={c.var.csrfToken}>
      <section class="panel" data-shell="trace" data-trace-id={id.data}>
        <h1>Trace {id.data}</h1>
        <p>
          {trace.name} — {trace.outcome}, {trace.created_at}
        </p>
        {trace.steps.length ? (
          <table class="trace-steps" aria-label="Steps in order">
            <thead>
              <tr>
                <th>#</th>
                <th>Kind</th>
                <th>Step</th>
                <th>Latency (ms)</th>
                <th>Tokens in / out</th>
                <th>Outcome</th>
                <th>Detail</th>
              </tr>
            </thead>
            <tbody>
              {trace.steps.map((s) => (
                <tr data-step={s.kind}>
                  <td>{s.seq + 1}</td>
                  <td>{s.kind}</td>
                  <td>{s.name}</td>
                  <td>{s.latency_ms}</td>
                  <td>
                    {s.tokens_in} / {s.tokens_out}
                  </td>
                  <td>{s.outcome}</td>
                  <td>{s.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No steps recorded for this trace.</p>
        )}
      </section>
    </Layout>,
  );
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
  return c.html(
    <Layout title="Admin" user={c.var.user} csrfToken={c.var.csrfToken}>
      {running ? <meta http-equiv="refresh" content="2" /> : null}
      <section class="panel" data-shell="admin">
        <h1>Admin</h1>
        <ModelLine c={c} />
        <p>
          Categories, prompts and who may use the assistant are changed on the <a href="/settings">settings page</a> (or through the JSON
          routes under <code>/api/admin/</code>, see <a href="/openapi.json">the API</a>).
        </p>
        <h2>Categories</h2>
        <table class="categories">
          <thead>
            <tr>
              <th>Name</th>
              <th>Rule</th>
              <th>Replies</th>
            </tr>
          </thead>
          <tbody>
            {categories.map((x) => (
              <tr>
                <td>{x.name}</td>
                <td>{x.rule}</td>
                <td>{x.replyMode}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Re-categorisation</h2>
        <ul class="jobs">
          {views.map((j) => (
            <li data-job={j.job_id} data-status={j.status}>
              {j.status}: {j.done} of {j.total} e-mails ({j.changed} changed){' '}
              <progress max={100} value={percent(j.done, j.total)}>
                {percent(j.done, j.total)}%
              </progress>
              {j.error ? ` — ${j.error}` : ''}
            </li>
          ))}
        </ul>
        <h2>Prompts</h2>
        <ul class="prompts">
          {prompts.map((p) => (
            <li>
              <strong>{p.name}</strong>
              {p.custom ? ' (changed)' : ' (default)'}: {p.body}
            </li>
          ))}
        </ul>
        <p>
          <a href="/admin/docdb-latest">The 20 most recent summaries</a> · <a href="/dashboard">Dashboard</a>
        </p>
      </section>
    </Layout>,
  );
});

assistantPages.get('/admin/docdb-latest', pageSession, assistant, async (c) => {
  const rows = await latestSummaries(c.var.db, c.var.user.id, 20);
  return c.html(
    <Layout title="Latest summaries" user={c.var.user} csrfToken={c.var.csrfToken}>
      <section class="panel" data-shell="docdb-latest">
        <h1>The 20 most recent summaries</h1>
        <ModelLine c={c} />
        <table class="summaries">
          <thead>
            <tr>
              <th>Subject</th>
              <th>From</th>
              <th>Category</th>
              <th>Summary</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(summaryRow).map((s) => (
              <tr data-message={s.message_id}>
                <td>
                  {s.pinned ? '📌 ' : ''}
                  {s.subject}
                </td>
                <td>{s.sender}</td>
                <td>{s.category}</td>
                <td>{s.summary}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Layout>,
  );
});
