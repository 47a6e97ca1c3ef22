import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf } from '../layout.tsx';
import { type Base, WizardPage } from './common.tsx';

export function FilterConfigPage({ csrf, user, session, errors }: Base & { session: WizardSession; errors: Record<string, string> }) {
  return (
    <WizardPage title="Row filters" csrf={csrf} user={user} step="FilterConfig" session={session}>
      <h1>Row filters</h1>
      <p>
        A condition per source table (the WHERE part, e.g. <code>meeting_date &gt;= '2024-01-01'</code>); empty copies every row. Filters
        run read-only with a time limit.
      </p>
      <form method="post" action="/Migration/FilterConfig" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <FilterFields session={session} errors={errors} />
        <button type="submit">Next: relationships</button>
      </form>
    </WizardPage>
  );
}

/** One labelled row-filter box per source table of the session. */
export function FilterFields({ session, errors }: { session: WizardSession; errors: Record<string, string> }) {
  return (
    <>
      {session.plans.map((plan, i) => (
        <p>
          <label for={`filter-${i}`}>
            Row filter for {plan.sourceTable} <span class="muted">(a WHERE condition; empty: every row)</span>
          </label>
          <input type="hidden" name={`filters[${i}].TableName`} value={plan.sourceTable} />
          <input
            id={`filter-${i}`}
            name={`filters[${i}].Filter`}
            value={session.filters[plan.sourceTable] ?? ''}
            maxlength={2000}
            class="wide"
            data-filter-table={plan.sourceTable}
          />
          {errors[plan.sourceTable] ? <span class="field-error">{errors[plan.sourceTable]}</span> : null}
        </p>
      ))}
    </>
  );
}
