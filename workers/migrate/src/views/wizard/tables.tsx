import { Csrf, Flash } from '../layout.tsx';
import type { WizardSession } from '../../wizard-sessions.ts';
import { type Base, WizardPage } from './common.tsx';

/** TableSelection: the source's tables; the session is created by the first post, not by this page. */
export function TableSelectionPage({
  csrf,
  user,
  session,
  tables,
  error,
}: Base & { session: WizardSession | null; tables: { name: string; estimatedRows: number }[]; error?: string }) {
  const chosen = new Set(session?.selectedTables ?? []);
  return (
    <WizardPage title="Select tables" csrf={csrf} user={user} step="TableSelection" session={session}>
      <h1>Select the source tables</h1>
      <Flash message={error} kind="error" />
      <form method="post" action="/Migration/TableSelection" class="stack">
        <Csrf token={csrf} />
        {session ? <input type="hidden" name="sessionId" value={session.id} /> : null}
        <fieldset>
          <legend>Tables of the active source database</legend>
          {tables.map((t) => (
            <label class="check">
              <input type="checkbox" name="selectedTables" value={t.name} checked={chosen.has(t.name)} /> {t.name}{' '}
              <span class="muted">(≈{t.estimatedRows} rows)</span>
            </label>
          ))}
        </fieldset>
        <button type="submit">Next: schema</button>
      </form>
    </WizardPage>
  );
}
