import { SESSION_STATUSES, type SessionStatus } from '#d1/migrate/schema.ts';
import type { SessionUser } from '../context.ts';
import { sessionName, type SortBy, type WizardSession } from '../wizard-sessions.ts';
import { Grid } from './grid.tsx';
import { Csrf, Layout } from './layout.tsx';

const when = (ms: number | null) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '');

export function SessionListPage({
  csrf,
  user,
  sessions,
  byStatus,
  total,
  options,
}: {
  csrf: string;
  user: SessionUser;
  sessions: WizardSession[];
  byStatus: Record<SessionStatus, number>;
  total: number;
  options: { status?: SessionStatus; sortBy: SortBy; descending: boolean };
}) {
  const canDelete = user.role !== 'Viewer';
  return (
    <Layout title="Sessions" csrf={csrf} user={user} styles={['/static/wizard.css']}>
      <h1>Migration sessions</h1>
      <dl class="stats" data-stats>
        <dt>Total</dt>
        <dd data-status="total">{total}</dd>
        {SESSION_STATUSES.map((s) => (
          <>
            <dt>{s}</dt>
            <dd data-status={s}>{byStatus[s]}</dd>
          </>
        ))}
      </dl>
      <form method="get" action="/Session" class="inline">
        <label>
          Status{' '}
          <select name="status">
            <option value="">any</option>
            {SESSION_STATUSES.map((s) => (
              <option value={s} selected={options.status === s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by{' '}
          <select name="sortBy">
            {(['created', 'updated', 'started', 'status'] as const).map((s) => (
              <option value={s} selected={options.sortBy === s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order{' '}
          <select name="descending">
            <option value="true" selected={options.descending}>
              newest first
            </option>
            <option value="false" selected={!options.descending}>
              oldest first
            </option>
          </select>
        </label>
        <button type="submit">Show</button>
      </form>
      <Grid
        scroll="Sessions"
        data={{ 'data-sessions': true }}
        columns={['Session', 'Status', 'Tables', 'Created', 'Started', 'Finished', 'By', '']}
        rows={sessions}
        row={(s) => (
          <tr data-session={s.id}>
            <td>
              <a href={`/Migration/${s.runId ? 'Progress' : 'SchemaImport'}?sessionId=${s.id}`} data-session-link>
                {sessionName(s)}
              </a>
            </td>
            <td>{s.status}</td>
            <td>{s.selectedTables.join(', ')}</td>
            <td>{when(s.createdAt)}</td>
            <td>{when(s.startedAt)}</td>
            <td>{when(s.finishedAt)}</td>
            <td>{s.createdBy}</td>
            <td>
              {canDelete ? (
                <form method="post" action="/Session/Delete" data-confirm={`Delete the session ${sessionName(s)}?`}>
                  <Csrf token={csrf} />
                  <input type="hidden" name="sessionId" value={s.id} />
                  <button type="submit" class="danger" aria-label={`Delete ${sessionName(s)}`}>
                    Delete
                  </button>
                </form>
              ) : null}
            </td>
          </tr>
        )}
      />
    </Layout>
  );
}
