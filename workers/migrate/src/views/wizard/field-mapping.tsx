import type { MatchSummary, WizardSession } from '../../wizard-sessions.ts';
import { Csrf, Flash, Layout } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, q, WizardPage } from './common.tsx';
import { MatchSummaries } from './progress.tsx';

/** FieldMapping: the column mappings as text; natural keys are shown here and chosen on the Relationships step. */
export function FieldMappingPage({ csrf, user, session }: Base & { session: WizardSession }) {
  return (
    <WizardPage title="Field mapping" csrf={csrf} user={user} step="ReviewMappings" session={session}>
      <h1>Field mapping</h1>
      <p class="muted">
        Natural keys are chosen on the <a href={`/Migration/RelationshipConfig?${q(session.id)}`}>Relationships</a> step.
      </p>
      <form method="post" action="/Migration/FieldMappingPost" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        {session.plans.map((plan, i) => (
          <fieldset>
            <legend>
              {plan.sourceTable} → {plan.destTable || '(not copied)'}
            </legend>
            <input type="hidden" name={`mappings[${i}].SourceTable`} value={plan.sourceTable} />
            <input type="hidden" name={`mappings[${i}].DestTable`} value={plan.destTable} />
            {plan.columns.map((col, j) => (
              <p>
                <input type="hidden" name={`mappings[${i}].Columns[${j}].Source`} value={col.source} />
                <label>
                  {col.source} → <input name={`mappings[${i}].Columns[${j}].Dest`} value={col.dest} maxlength={128} />
                </label>
              </p>
            ))}
            <p class="muted" data-natural-key={(plan.naturalKey ?? []).join(',')}>
              Natural key: {plan.naturalKey?.length ? plan.naturalKey.join(' + ') : 'none'}
            </p>
          </fieldset>
        ))}
        <button type="submit">Save and review</button>
      </form>
      <form method="post" action="/Migration/FindNaturalKeyMatches">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <button type="submit" class="secondary">
          Find natural-key matches to review
        </button>
      </form>
    </WizardPage>
  );
}

export type PendingRow = { id: number; tableName: string; sourceId: string; destId: string; matchedOn: string; state: string };

export function PendingMappingsPage({
  csrf,
  user,
  session,
  rows,
  summaries,
}: Base & { session: WizardSession; rows: PendingRow[]; summaries: MatchSummary[] }) {
  return (
    <WizardPage title="Pending mappings" csrf={csrf} user={user} step="RelationshipConfig" session={session}>
      <h1>Pending mappings</h1>
      {summaries.length === 0 ? <p class="muted">No natural-key matching has been run for this session.</p> : null}
      <MatchSummaries summaries={summaries} />
      <Grid
        scroll="Pending mappings"
        data={{ 'data-pending': true }}
        columns={['Table', 'Source id', 'Destination id', 'Matched on', 'State', 'Action']}
        rows={rows}
        row={(r) => (
          <tr data-mapping={String(r.id)}>
            <td>{r.tableName}</td>
            <td>{r.sourceId}</td>
            <td>{r.destId}</td>
            <td>{r.matchedOn}</td>
            <td>{r.state}</td>
            <td class="actions">
              {r.state === 'Pending' ? (
                <>
                  <form method="post" action="/Migration/ConfirmMapping">
                    <Csrf token={csrf} />
                    <input type="hidden" name="sessionId" value={session.id} />
                    <input type="hidden" name="mappingId" value={String(r.id)} />
                    <button type="submit">Confirm</button>
                  </form>
                  <form method="post" action="/Migration/RejectMapping">
                    <Csrf token={csrf} />
                    <input type="hidden" name="sessionId" value={session.id} />
                    <input type="hidden" name="mappingId" value={String(r.id)} />
                    <button type="submit" class="secondary">
                      Reject
                    </button>
                  </form>
                </>
              ) : null}
            </td>
          </tr>
        )}
      />
      <h2>Add a mapping by hand</h2>
      <form method="post" action="/Migration/AddManualMapping" class="inline">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <select name="tableName" aria-label="Source table">
          {session.plans.map((p) => (
            <option value={p.sourceTable}>{p.sourceTable}</option>
          ))}
        </select>
        <input name="sourceId" placeholder="Source id" aria-label="Source id" maxlength={200} required />
        <input name="destId" placeholder="Destination id" aria-label="Destination id" maxlength={200} required />
        <button type="submit">Add</button>
      </form>
      <p>
        <a href={`/Migration/RelationshipConfig?${q(session.id)}`}>Back to Relationships</a> ·{' '}
        <a href={`/Migration/Summary?${q(session.id)}`}>Summary</a>
      </p>
    </WizardPage>
  );
}

export function FkPatchPage({
  csrf,
  user,
  values,
  result,
  error,
}: Base & {
  values: Record<string, string>;
  result?: { childDestTable: string; destColumn: string; parentDestTable: string; updated: number; unresolved: number };
  error?: string;
}) {
  return (
    <Layout title="Foreign-key backfill" csrf={csrf} user={user}>
      <h1>Foreign-key backfill</h1>
      <p>Fills a destination foreign-key column from the stored id mappings of the active configuration.</p>
      <Flash message={error} kind="error" />
      {result ? (
        <p class="flash info" data-fk-result>
          {result.childDestTable}.{result.destColumn} → {result.parentDestTable}: {result.updated} rows updated, {result.unresolved}{' '}
          unresolved.
        </p>
      ) : null}
      <form method="post" action="/Migration/FkPatch" class="stack">
        <Csrf token={csrf} />
        {(
          [
            ['childSourceTable', 'Child source table'],
            ['fkSourceColumn', 'Foreign-key source column'],
            ['parentSourceTable', 'Parent source table'],
          ] as const
        ).map(([name, label]) => (
          <p>
            <label for={name}>{label}</label>
            <input id={name} name={name} value={values[name] ?? ''} required maxlength={128} />
          </p>
        ))}
        <button type="submit">Backfill</button>
      </form>
    </Layout>
  );
}
