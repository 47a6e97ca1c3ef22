import type { Category } from '../ai/categories.ts';
import type { JobView } from '../ai/jobs.ts';
import type { SummaryRow } from '../ai/pipeline.ts';
import type { SessionUser } from '../context.ts';
import type { dashboardFigures, traceOf } from '../routes/dashboard.ts';
import { Layout } from './layout.tsx';

/** The assistant's pages (server-rendered from SQL): dashboard, admin, a trace, the latest summaries. */

interface PageProps {
  user: SessionUser;
  csrfToken: string;
}

/** The model that works now. */
type Model = { kind: string; title: string };

/** Which model works now; the offline one's categories and summaries are named for what they are. */
const ModelLine = ({ model }: { model: Model }) => (
  <p data-model data-model-kind={model.kind}>
    Model: <strong>{model.title}</strong>
    {model.kind === 'template' ? ' — its categories are keyword categories and its summaries the first sentences.' : ''}
  </p>
);

const percent = (done: number, total: number) => (total ? Math.round((done / total) * 100) : 100);

type DashboardProps = PageProps & { d: Awaited<ReturnType<typeof dashboardFigures>> };

export const dashboardPage = (props: DashboardProps) => (
  <Layout title="Dashboard" user={props.user} csrfToken={props.csrfToken}>
    <section class="panel" data-shell="dashboard">
      <h1>Dashboard</h1>
      <p>
        Model:{' '}
        <strong data-model data-model-kind={props.d.model_kind}>
          {props.d.model_title}
        </strong>
      </p>
      <dl class="figures">
        <dt>E-mails summarised</dt>
        <dd data-figure="emails">{props.d.emails}</dd>
        <dt>Received / sent</dt>
        <dd>
          {props.d.inbound} / {props.d.outbound}
        </dd>
        <dt>Needing a reply</dt>
        <dd data-figure="needs_reply">{props.d.needs_reply}</dd>
        <dt>Pinned</dt>
        <dd>{props.d.pinned}</dd>
        <dt>Drafts made / sent</dt>
        <dd data-figure="drafts">
          {props.d.drafts.made} / {props.d.drafts.sent}
          {props.d.drafts.suggested
            ? ` (and ${props.d.drafts.suggested} ${props.d.model_kind === 'template' ? 'template replies' : 'replies'} suggested, not drafted)`
            : ''}
        </dd>
        <dt>Model calls (7 days)</dt>
        <dd data-figure="model_calls">
          {props.d.model_calls_7d.calls} ({props.d.model_calls_7d.failed} failed, {props.d.model_calls_7d.avg_ms} ms on average,{' '}
          {props.d.model_calls_7d.tokens_in} + {props.d.model_calls_7d.tokens_out} tokens
          {props.d.model_calls_7d.tokens_estimated ? `, estimated for ${props.d.model_calls_7d.tokens_estimated} of them` : ''})
        </dd>
        <dt>New mail queue</dt>
        <dd>
          {props.d.new_mail_queue.queued} waiting, {props.d.new_mail_queue.done} done, {props.d.new_mail_queue.failed} failed
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
          {props.d.by_category.map((r) => (
            <tr>
              <td>{r.category}</td>
              <td>{r.emails}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Recent traces</h2>
      <ul class="recent-traces">
        {props.d.recent_traces.map((t) => (
          <li>
            <a href={`/trace/${t.trace_id}`}>{t.name}</a> — {t.outcome}, {t.created_at}
          </li>
        ))}
      </ul>
    </section>
  </Layout>
);

type TraceProps = PageProps & { id: string; trace: NonNullable<Awaited<ReturnType<typeof traceOf>>> };

export const tracePage = (props: TraceProps) => (
  <Layout title={`Trace ${props.id}`} user={props.user} csrfToken={props.csrfToken}>
    <section class="panel" data-shell="trace" data-trace-id={props.id}>
      <h1>Trace {props.id}</h1>
      <p>
        {props.trace.name} — {props.trace.outcome}, {props.trace.created_at}
      </p>
      {props.trace.steps.length ? (
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
            {props.trace.steps.map((s) => (
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
  </Layout>
);

type AdminProps = PageProps & {
  model: Model;
  /** A re-categorisation is queued or running: the page refreshes itself. */
  running: boolean;
  categories: Category[];
  jobs: JobView[];
  prompts: { name: string; custom: boolean; body: string }[];
};

export const adminPage = (props: AdminProps) => (
  <Layout title="Admin" user={props.user} csrfToken={props.csrfToken}>
    {props.running ? <meta http-equiv="refresh" content="2" /> : null}
    <section class="panel" data-shell="admin">
      <h1>Admin</h1>
      <ModelLine model={props.model} />
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
          {props.categories.map((x) => (
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
        {props.jobs.map((j) => (
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
        {props.prompts.map((p) => (
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
  </Layout>
);

export const latestSummariesPage = (props: PageProps & { model: Model; summaries: SummaryRow[] }) => (
  <Layout title="Latest summaries" user={props.user} csrfToken={props.csrfToken}>
    <section class="panel" data-shell="docdb-latest">
      <h1>The 20 most recent summaries</h1>
      <ModelLine model={props.model} />
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
          {props.summaries.map((s) => (
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
  </Layout>
);
