import type { SessionUser } from '../context.ts';
import type { SenderJobView, SenderRank } from '../senders.ts';
import { Layout } from './layout.tsx';

export interface SendersView {
  user: SessionUser;
  csrfToken: string;
  sort: 'volume' | 'read';
  senders: SenderRank[];
  scanned: number;
  jobs: SenderJobView[];
  error?: string;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

const OUTCOME: Record<string, string> = {
  sent: 'Unsubscribed (one-click request accepted by the list)',
  failed: 'The list refused the one-click request',
  draft: 'An unsubscribe e-mail is waiting in Drafts — send it yourself',
  shown: 'Open the list’s unsubscribe page:',
  none: 'Their mail offers no way to unsubscribe',
};

const STATUS: Record<string, string> = {
  queued: 'archive queued',
  running: 'archiving',
  waiting: 'archive paused (Graph is busy) — resumes by itself',
  done: 'archive done',
  failed: 'archive stopped',
};

function Job({ job }: { job: SenderJobView }) {
  return (
    <li data-job={job.job_id} data-status={job.status}>
      <strong>{job.sender}</strong>
      <p>
        {OUTCOME[job.outcome] ?? job.outcome}{' '}
        {job.outcome === 'shown' && /^https?:\/\//i.test(job.detail) ? (
          <a href={job.detail} rel="noopener noreferrer nofollow" target="_blank">
            {job.detail}
          </a>
        ) : null}
        {job.outcome === 'failed' ? <span>({job.detail})</span> : null}
      </p>
      <p>
        {STATUS[job.status] ?? job.status}: {job.archived} archived
        {job.failed ? `, ${job.failed} could not be moved` : ''}
        {job.resumed ? `, resumed ${job.resumed}×` : ''}
      </p>
    </li>
  );
}

/** The Senders page: who fills the Inbox, how much of it is read, and one action per sender. */
export function SendersPage({ view }: { view: SendersView }) {
  const other = view.sort === 'volume' ? 'read' : 'volume';
  return (
    <Layout title="Senders" user={view.user} csrfToken={view.csrfToken} styles={['/static/mail/settings.css']}>
      <div class="settings senders" data-shell="senders">
        <h1>Senders</h1>
        <p>
          The senders of your newest {view.scanned} Inbox messages, {view.sort === 'volume' ? 'most mail first' : 'least read first'}.{' '}
          <a href={`/senders?sort=${other}`}>{other === 'volume' ? 'Rank by volume' : 'Rank by how much is read'}</a>
        </p>
        <p>
          <strong>Unsubscribe and archive</strong> asks the sender’s list to stop (a one-click request where their mail offers it, else an
          unsubscribe e-mail left in Drafts for you to send, else their unsubscribe link shown here) and moves their Inbox mail to Archive.
          Nothing happens until you press it.
        </p>
        {view.error ? (
          <p class="flash error" role="alert">
            {view.error}
          </p>
        ) : null}
        {view.jobs.length ? (
          <section class="panel" aria-labelledby="jobs-title">
            <h2 id="jobs-title">Recent actions</h2>
            <p>
              <a href={`/senders?sort=${view.sort}`}>Refresh progress</a>
            </p>
            <ul class="jobs">
              {view.jobs.map((job) => (
                <Job job={job} />
              ))}
            </ul>
          </section>
        ) : null}
        <section class="panel" aria-labelledby="senders-title">
          <h2 id="senders-title">{view.sort === 'volume' ? 'By volume' : 'By how much is read'}</h2>
          {view.senders.length === 0 ? <p>No mail in the Inbox.</p> : null}
          <ol class="senders-list">
            {view.senders.map((s) => (
              <li data-sender={s.address}>
                <strong>{s.name || s.address}</strong> <span>{s.address}</span>
                <p>
                  {s.messages} message{s.messages === 1 ? '' : 's'}, {percent(s.read_share)} read
                </p>
                <form method="post" action="/senders/unsubscribe">
                  <input type="hidden" name="csrf_token" value={view.csrfToken} />
                  <input type="hidden" name="sender" value={s.address} />
                  <input type="hidden" name="sort" value={view.sort} />
                  <button type="submit" aria-label={`Unsubscribe and archive ${s.address}`}>
                    Unsubscribe and archive
                  </button>
                </form>
              </li>
            ))}
          </ol>
        </section>
      </div>
    </Layout>
  );
}

/** The senders page as a response body. */
export const sendersPage = (view: SendersView) => <SendersPage view={view} />;
