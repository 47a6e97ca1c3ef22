import type { DryRunReport, DryRunTable } from '../../engine/dry-run.ts';
import { DEFAULT_DRY_RUN_ROWS, MAX_DRY_RUN_ROWS } from '../../engine/dry-run.ts';
import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, WholeNumberField, WizardPage, q } from './common.tsx';

/** RunConfig's dry run: the plan on the first N rows of each table, rolled back. */
export function DryRunForm({ csrf, session, disabled }: { csrf: string; session: WizardSession; disabled: boolean }) {
  return (
    <form method="post" action="/Migration/DryRun" class="stack" data-dry-run-form>
      <h2>Dry run</h2>
      <p class="muted">
        Runs the plan on the first rows of each table in a transaction that is rolled back, and reports what a run would insert, update,
        leave and set aside. It uses the row filters and patch mode as saved (start or save them first). Nothing is written.
      </p>
      <Csrf token={csrf} />
      <input type="hidden" name="sessionId" value={session.id} />
      <WholeNumberField label="Dry run (first N rows per table)" name="rows" min={1} max={MAX_DRY_RUN_ROWS} value={DEFAULT_DRY_RUN_ROWS} />
      <button type="submit" disabled={disabled}>
        Dry run
      </button>
    </form>
  );
}

function reasons(t: DryRunTable, patchMode: boolean): string[] {
  const out: string[] = [];
  if (t.inserted) out.push(`${t.inserted} new: no id mapping, and no destination row with the same natural key.`);
  if (t.updated) out.push(`${t.updated} updated: matched an existing row whose values differ (patch mode).`);
  if (t.matched)
    out.push(
      patchMode
        ? `${t.matched} left as they are: matched an existing row (id mapping or natural key) with the same values.`
        : `${t.matched} left as they are: matched an existing row (id mapping or natural key); patch mode is off.`,
    );
  if (t.unresolved)
    out.push(
      `${t.unresolved} skipped: a foreign key value has no id mapping (its parent row is not copied yet; a dry run copies only the parent table's first rows).`,
    );
  if (t.rejected.length) out.push(`${t.rejected.length} set aside: their cast or a constraint failed (listed below).`);
  if (t.read === 0) out.push('No source rows (after the row filter).');
  return out;
}

export function DryRunPage({ csrf, user, session, report }: Base & { session: WizardSession; report: DryRunReport }) {
  const rejected = report.tables.flatMap((t) => t.rejected.map((r) => ({ ...r, table: t.table })));
  return (
    <WizardPage title="Dry run" csrf={csrf} user={user} step="RunConfig" session={session}>
      <h1>Dry run</h1>
      <p data-dry-run-rows={String(report.rowsPerTable)}>
        The first {report.rowsPerTable} source rows of each table{report.patchMode ? ', patch mode' : ''}, run and rolled back: nothing was
        written to the destination.
      </p>
      <Grid
        scroll="Dry run by table"
        data={{ 'data-dry-run': true }}
        columns={['Table', 'Rows read', 'Would insert', 'Would update', 'Would skip', 'Would reject', 'Why']}
        rows={report.tables}
        row={(t) => (
          <tr data-table={t.table}>
            <td>
              {t.sourceTable} → {t.table}
            </td>
            <td data-read>{t.read}</td>
            <td data-inserted>{t.inserted}</td>
            <td data-updated>{t.updated}</td>
            <td data-skipped>{t.matched + t.unresolved}</td>
            <td data-rejected>{t.rejected.length}</td>
            <td>
              <ul class="plain">
                {reasons(t, report.patchMode).map((r) => (
                  <li>{r}</li>
                ))}
              </ul>
            </td>
          </tr>
        )}
      />
      {rejected.length ? (
        <>
          <h2>Rows that would be set aside</h2>
          <Grid
            scroll="Rows that would be set aside"
            data={{ 'data-dry-run-rejects': true }}
            columns={['Table', 'Source key', 'Column', 'Value', 'Why']}
            rows={rejected}
            row={(r) => (
              <tr>
                <td>{r.table}</td>
                <td>{r.sourceId}</td>
                <td>{r.column ?? '(not named)'}</td>
                <td>{r.value ?? '(empty)'}</td>
                <td>{r.message}</td>
              </tr>
            )}
          />
        </>
      ) : null}
      <p>
        <a href={`/Migration/RunConfig?${q(session.id)}`}>Back to the run settings</a>
      </p>
    </WizardPage>
  );
}
