import type { KeyProposal } from '../../engine/natural-keys.ts';
import type { ForeignKey } from '../../engine/types.ts';
import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, WizardPage } from './common.tsx';

export type RelationshipRow = ForeignKey & { id?: number };

/** Natural keys (asked here only), foreign keys and the preferred table order. */
export function RelationshipConfigPage({
  csrf,
  user,
  session,
  fks,
  destTables,
  proposals,
}: Base & { session: WizardSession; fks: RelationshipRow[]; destTables: string[]; proposals: Map<string, KeyProposal | null> }) {
  const order = [
    ...session.tableOrder.filter((t) => session.plans.some((p) => p.destTable === t)),
    ...session.plans.map((p) => p.destTable).filter((t) => t && !session.tableOrder.includes(t)),
  ];
  return (
    <WizardPage title="Relationships" csrf={csrf} user={user} step="RelationshipConfig" session={session}>
      <h1>Natural keys, relationships and table order</h1>
      <h2>Foreign keys</h2>
      <Grid
        scroll="Foreign keys"
        data={{ 'data-relationships': true }}
        columns={['Child', 'Parent', 'Kind', 'Action']}
        rows={fks}
        row={(fk) => (
          <tr>
            <td>
              {fk.childTable}.{fk.childColumn}
            </td>
            <td>
              {fk.parentTable}.{fk.parentColumn}
            </td>
            <td>{fk.custom ? 'custom' : 'detected'}</td>
            <td>
              {fk.id !== undefined ? (
                <button type="button" class="secondary" data-session={session.id} data-delete-relationship={String(fk.id)}>
                  Delete
                </button>
              ) : null}
            </td>
          </tr>
        )}
      />
      <form class="inline" data-add-relationship data-session={session.id}>
        <select name="childTable" aria-label="Child table" data-columns-for="childColumn">
          {destTables.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
        <select name="childColumn" aria-label="Child column"></select>
        <select name="parentTable" aria-label="Parent table" data-columns-for="parentColumn">
          {destTables.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
        <select name="parentColumn" aria-label="Parent column"></select>
        <button type="submit" class="secondary">
          Add relationship
        </button>
        <span role="status" data-relationship-result></span>
      </form>
      <form method="post" action="/Migration/RelationshipConfig" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <h2>Natural keys</h2>
        <p class="muted">
          Destination columns that identify a row already in the destination: such rows are matched, not inserted again. Without one, every
          source row not copied before is inserted.
        </p>
        {session.plans
          .filter((p) => p.destTable)
          .map((plan, i) => {
            const proposal = proposals.get(plan.sourceTable);
            const key = new Set(plan.naturalKey ?? []);
            return (
              <fieldset data-natural-key={plan.sourceTable}>
                <legend>
                  {plan.sourceTable} → {plan.destTable}
                </legend>
                <input type="hidden" name={`columnConfigs[${i}].Table`} value={plan.sourceTable} />
                <input type="hidden" name={`columnConfigs[${i}].NaturalKey`} value="" />
                {plan.columns.length === 0 ? <p class="muted">No mapped columns.</p> : null}
                {plan.columns.map((col) => (
                  <label class="check">
                    <input type="checkbox" name={`columnConfigs[${i}].NaturalKey`} value={col.dest} checked={key.has(col.dest)} />{' '}
                    {col.dest} <span class="muted">(from {col.source})</span>
                  </label>
                ))}
                <p class="muted" data-key-proposal={proposal ? proposal.columns.join(',') : ''}>
                  {proposal
                    ? `Proposed: ${proposal.columns.join(' + ')} — ${proposal.reason}.`
                    : 'No key proposed: no unique constraint covers the mapped columns, and no mapped column set is unique in the sample and the destination.'}
                </p>
              </fieldset>
            );
          })}
        <h2>Table order</h2>
        <p class="muted">Preferred order (parents are still copied before their children).</p>
        <ol>
          {order.map((t, i) => (
            <li>
              <input name={`tableOrder[${i}]`} value={t} maxlength={128} aria-label={`Table ${i + 1}`} />
            </li>
          ))}
        </ol>
        <button type="submit">Next: run</button>
      </form>
    </WizardPage>
  );
}
