// An import as it runs, and the auto-sync of an area's sheets.

import type { AutoSync } from '../../imports/auto-sync.ts';
import { type ImportProgress, TERMINAL_IMPORT_STATES } from '../../imports/jobs.ts';
import { Grid } from '../grid.tsx';
import { CancelJobForm, Csrf, JobLogList, Layout } from '../layout.tsx';
import { type Base, canWrite, ImportError, FilterInput, FkSelects, ImportScript, when } from './common.tsx';

export function ImportProgressPage({ csrf, user, def, progress }: Base & { progress: ImportProgress }) {
  const finished = TERMINAL_IMPORT_STATES.includes(progress.state);
  const page = `/${def.area}`;
  return (
    <Layout title={`${def.title}: import`} csrf={csrf} user={user}>
      <ImportScript />
      <h1>{def.title}: import</h1>
      <section data-import-progress={progress.jobId} data-prefix={def.prefix} data-state={progress.state}>
        <p>
          Job <code>{progress.jobId}</code> · {progress.summary.fileName} · {progress.summary.trigger} by {progress.summary.startedBy}
          {progress.summary.filter ? ` · filter ${progress.summary.filter}` : ''}
        </p>
        <p>
          State: <strong data-import-state>{progress.state}</strong> · <span data-processed>{progress.processed}</span> /{' '}
          <span data-total>{progress.total}</span> valid rows written
        </p>
        <progress data-bar max={Math.max(progress.total, 1)} value={progress.processed}></progress>
        <dl class="stats" data-summary>
          {(['inserted', 'updated', 'unchanged', 'skipped'] as const).map((key) => (
            <>
              <dt>{key === 'skipped' ? 'skipped (problems)' : key}</dt>
              <dd data-count={key}>{progress[key]}</dd>
            </>
          ))}
          <dt>left out by the filter</dt>
          <dd data-count="filteredOut">{progress.summary.filteredOut}</dd>
        </dl>
        {canWrite(user) && !finished ? <CancelJobForm action={`${page}/Cancel`} jobId={progress.jobId} csrf={csrf} /> : null}
        <div data-finished hidden={!finished}>
          <h2>Summary</h2>
          <p data-summary-text>
            {progress.inserted} inserted, {progress.updated} updated, {progress.unchanged} unchanged, {progress.skipped} skipped.
          </p>
        </div>
        <h2>Skipped rows</h2>
        <Grid
          body={{ 'data-problems': true }}
          columns={['Row', 'What', 'Problem']}
          rows={progress.summary.problems}
          row={(p) => (
            <tr class="error">
              <td>{p.line}</td>
              <td>{p.row}</td>
              <td>{p.message}</td>
            </tr>
          )}
        />
        <JobLogList entries={progress.log} />
        <p>
          <a href={page}>Back to {def.title.toLowerCase()}</a>
        </p>
      </section>
    </Layout>
  );
}

export function ImportAutoSyncPage({
  csrf,
  user,
  def,
  autoSync,
  sheetHosts,
  preview,
  previewError,
  error,
  saved,
}: Base & {
  autoSync: AutoSync | null;
  sheetHosts: readonly string[];
  preview: { rows: number; valid: number; invalid: number; filteredOut: number; problemCounts: Record<string, number> } | null;
  previewError?: string;
  error?: string;
  saved: boolean;
}) {
  const page = `/${def.area}`;
  return (
    <Layout title={`${def.title}: auto-sync`} csrf={csrf} user={user}>
      <ImportScript />
      <h1>{def.title}: auto-sync</h1>
      <p>
        Imports the saved sheet, or the sheet at an https:// address, every interval while enabled. A run never overlaps the previous one; a
        failure shows here and the schedule goes on.
      </p>
      <ImportError message={error} />
      {saved ? <p data-saved>Settings saved.</p> : null}
      <section data-auto-sync={def.prefix}>
        <dl class="stats">
          <dt>enabled</dt>
          <dd data-enabled>{autoSync?.enabled ? 'yes' : 'no'}</dd>
          <dt>next run</dt>
          <dd data-next-run>{when(autoSync?.nextRunAt ?? null)}</dd>
          <dt>last run</dt>
          <dd>{when(autoSync?.lastRunAt ?? null)}</dd>
          <dt>last status</dt>
          <dd data-last-status>{autoSync?.lastStatus ?? '—'}</dd>
        </dl>
        {autoSync?.lastError ? (
          <p class="field-error" data-last-error>
            Last error: {autoSync.lastError}
          </p>
        ) : null}
        {autoSync?.lastJobId ? (
          <p>
            <a href={`${page}/Progress?jobId=${autoSync.lastJobId}`}>Last run's progress</a>
          </p>
        ) : null}
        <p>
          <button type="button" data-auto-toggle>
            {autoSync?.enabled ? 'Disable' : 'Enable'}
          </button>{' '}
          <button type="button" data-auto-run>
            Run now
          </button>{' '}
          <span data-auto-result aria-live="polite"></span>
        </p>
      </section>
      <h2>What the saved sheet holds now</h2>
      {previewError ? <p class="field-error">{previewError}</p> : null}
      {preview ? (
        <p data-auto-preview>
          {preview.rows} rows: {preview.valid} to import, {preview.invalid} with problems
          {Object.keys(preview.problemCounts).length
            ? ` (${Object.entries(preview.problemCounts)
                .map(([k, n]) => `${n} ${k}`)
                .join(', ')})`
            : ''}
          , {preview.filteredOut} left out by the filter.
        </p>
      ) : !previewError ? (
        <p>No sheet saved yet.</p>
      ) : null}
      <h2>Settings</h2>
      <form method="post" action={`${page}/SaveAutoSync`} enctype="multipart/form-data" data-auto-form>
        <Csrf token={csrf} />
        <label>
          <input type="checkbox" name="enabled" value="true" checked={autoSync?.enabled ?? false} /> Enabled
        </label>
        <label>
          Every <input type="number" name="intervalMinutes" min={5} max={10080} value={String(autoSync?.intervalMinutes ?? 60)} /> minutes
        </label>
        <label>
          Sheet {autoSync?.sheetName ? `(saved: ${autoSync.sheetName}; choose a file to replace it)` : ''}{' '}
          <input type="file" name="excelFile" accept=".xlsx,.csv" />
        </label>
        <label>
          or fetch it from <input type="url" name="sourceUrl" value={autoSync?.sourceUrl ?? ''} placeholder="https://…" size={60} />
        </label>
        <p class="muted" data-sheet-hosts>
          Addresses on these hosts only: {sheetHosts.length ? sheetHosts.join(', ') : 'none (MIGRATE_SHEET_HOSTS is empty)'}.
        </p>
        <FkSelects def={def} fk={autoSync?.fk ?? def.defaultFk} />
        <FilterInput def={def} value={autoSync?.filter ?? ''} />
        <button type="submit">Save</button>
      </form>
      <p>
        <a href={page}>Back to {def.title.toLowerCase()}</a>
      </p>
    </Layout>
  );
}
