import { describeTransform, type PlanSuggestion } from '../../engine/suggest.ts';
import type { SchemaInfo } from '../../engine/types.ts';
import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf, Flash } from '../layout.tsx';
import { Scroll } from '../grid.tsx';
import { type Base, ColumnSelect, q, WizardPage } from './common.tsx';

/** Whether a plan differs from its suggestion (so accepting the suggestions changes something). */
function differs(session: WizardSession, suggestions: Map<string, PlanSuggestion>): boolean {
  return session.plans.some((plan) => {
    const s = suggestions.get(plan.sourceTable);
    if (!s || !s.plan.destTable) return false;
    if (s.plan.destTable !== plan.destTable) return true;
    return s.columns.some((c) => {
      const m = plan.columns.find((x) => x.source === c.source);
      return !m || m.dest !== c.dest || JSON.stringify(m.transform ?? null) !== JSON.stringify(c.transform ?? null);
    });
  });
}

export function ReviewMappingsPage({
  csrf,
  user,
  session,
  source,
  dest,
  suggestions,
  error,
  notice,
}: Base & {
  session: WizardSession;
  source: SchemaInfo;
  dest: SchemaInfo;
  suggestions: Map<string, PlanSuggestion>;
  error?: string;
  notice?: string;
}) {
  return (
    <WizardPage title="Review mappings" csrf={csrf} user={user} step="ReviewMappings" session={session}>
      <h1>Review mappings</h1>
      <Flash message={error} kind="error" />
      <Flash message={notice} />
      <p>
        Suggestions come from the column names (case, separators, prefixes and suffixes, abbreviations), their types and sampled values;
        each says why. <a href={`/Migration/ValidateSchema?${q(session.id)}`}>Check the mappings against both schemas</a>
      </p>
      {differs(session, suggestions) ? (
        <form method="post" action="/Migration/AcceptSuggestions" class="inline">
          <Csrf token={csrf} />
          <input type="hidden" name="sessionId" value={session.id} />
          <button type="submit" class="secondary" data-accept-suggestions>
            Accept all suggestions
          </button>
        </form>
      ) : null}
      <form method="post" action="/Migration/ReviewMappings" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <input type="hidden" name="next" value="FilterConfig" />
        {session.plans.map((plan, i) => {
          const sourceColumns = source.tables.find((t) => t.name === plan.sourceTable)?.columns ?? [];
          const destColumns = dest.tables.find((t) => t.name === plan.destTable)?.columns ?? [];
          const suggestion = suggestions.get(plan.sourceTable);
          const sameTable = suggestion?.plan.destTable === plan.destTable;
          return (
            <fieldset data-table={plan.sourceTable}>
              <legend>{plan.sourceTable}</legend>
              <input type="hidden" name={`Mappings[${i}].SourceTable`} value={plan.sourceTable} />
              <input type="hidden" name={`Mappings[${i}].ColumnsFor`} value={plan.destTable} />
              <p>
                <label for={`dest-${i}`}>Destination table</label>{' '}
                <select id={`dest-${i}`} name={`Mappings[${i}].DestTable`}>
                  <option value="">(not copied)</option>
                  {dest.tables.map((t) => (
                    <option value={t.name} selected={t.name === plan.destTable}>
                      {t.name}
                    </option>
                  ))}
                </select>{' '}
                {suggestion?.table ? (
                  <span class="suggestion" data-table-suggestion={suggestion.table.table}>
                    suggested: {suggestion.table.table} — {suggestion.table.reason}
                  </span>
                ) : (
                  <span class="muted">no destination table suggested</span>
                )}
              </p>
              <p class="muted">Choosing another destination table fills its columns from the suggestions when you go on.</p>
              <Scroll label={`Columns of ${plan.sourceTable}`}>
                <table class="grid mapping">
                  <thead>
                    <tr>
                      <th>Source column</th>
                      <th>Destination column</th>
                      <th>Transform</th>
                      <th>Suggestion</th>
                    </tr>
                  </thead>
                  <tbody>
                    {sourceColumns.map((col, j) => {
                      const mapped = plan.columns.find((m) => m.source === col.ColumnName);
                      const suggested = sameTable ? suggestion?.columns.find((s) => s.source === col.ColumnName) : undefined;
                      return (
                        <tr data-column={col.ColumnName}>
                          <td>
                            {col.ColumnName} <span class="muted">({col.DataType})</span>
                            <input type="hidden" name={`Mappings[${i}].Columns[${j}].Source`} value={col.ColumnName} />
                          </td>
                          <td>
                            <ColumnSelect
                              name={`Mappings[${i}].Columns[${j}].Dest`}
                              value={mapped?.dest ?? ''}
                              columns={destColumns}
                              label={`Destination column for ${plan.sourceTable}.${col.ColumnName}`}
                            />
                          </td>
                          <td class="muted">{describeTransform(mapped?.transform)}</td>
                          <td data-suggestion={suggested ? suggested.dest : undefined}>
                            {suggested ? (
                              <>
                                → {suggested.dest}
                                {suggested.transform ? ` (${describeTransform(suggested.transform)})` : ''}:{' '}
                                <span class="muted">{suggested.reason}</span>
                              </>
                            ) : (
                              <span class="muted">{col.IsPrimaryKey ? 'source key (kept in the id mappings)' : 'none'}</span>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </Scroll>
            </fieldset>
          );
        })}
        <button type="submit">Next: filters</button>
      </form>
    </WizardPage>
  );
}
