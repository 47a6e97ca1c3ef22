import type { SessionUser } from '../context.ts';
import type { Analysis } from '../imports/analyse.ts';
import type { FkChoice, ImportAreaDef } from '../imports/areas.ts';
import type { AutoSync, ImportEvent } from '../imports/auto-sync.ts';
import { type ImportJobRow, type ImportProgress, TERMINAL_IMPORT_STATES, type UploadRow } from '../imports/jobs.ts';
import { asset, CancelJobForm, Csrf, JobLogList, Layout } from './layout.tsx';

const when = (ms: number | null) => (ms === null ? '—' : `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`);
const canWrite = (user: SessionUser) => user.role !== 'Viewer';
const ImportScript = () => <script src={asset('/static/imports.js')} defer />;
/** Rows the preview page lists (all rows with problems are counted; the first are listed too). */
export const PREVIEW_ROWS = 200;
export const PREVIEW_PROBLEM_ROWS = 500;

type Base = { csrf: string; user: SessionUser; def: ImportAreaDef };

function FkSelects({ def, fk }: { def: ImportAreaDef; fk: Record<string, string> }) {
  return (
    <fieldset>
      <legend>Foreign keys: how each reference finds its racing-database row</legend>
      {def.fk.map((f: FkChoice) => (
        <label>
          {f.label}{' '}
          <select name={`fk.${f.key}`}>
            {f.options.map((o) => (
              <option value={o.value} selected={(fk[f.key] ?? def.defaultFk[f.key]) === o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      ))}
    </fieldset>
  );
}

function FilterInput({ def, value, tempPath }: { def: ImportAreaDef; value: string; tempPath?: string }) {
  return (
    <fieldset data-filter-box data-prefix={def.prefix} data-temp-path={tempPath ?? ''}>
      <legend>Filter (optional): which rows to import</legend>
      <input
        type="text"
        name="filter"
        value={value}
        maxlength={2000}
        size={60}
        placeholder="date >= '2026-11-01' and course = 'Randwick'"
        data-filter
      />
      <button type="button" data-test-filter>
        Test filter
      </button>{' '}
      <span data-filter-result aria-live="polite"></span>
      <p class="muted">
        Columns: {def.columns.map((c) => c.key).join(', ')}. Operators: = != &lt; &lt;= &gt; &gt;= in (…) like between … and … is [not]
        null, and, or, not. Text compares without case; dates as YYYY-MM-DD.
      </p>
    </fieldset>
  );
}

function Columns({ def }: { def: ImportAreaDef }) {
  return (
    <table class="grid" data-columns>
      <thead>
        <tr>
          <th>Heading</th>
          <th>Also accepted</th>
          <th>Required</th>
          <th>Value</th>
        </tr>
      </thead>
      <tbody>
        {def.columns.map((c) => (
          <tr>
            <td>{c.heading}</td>
            <td>{c.aliases.join(', ')}</td>
            <td>{c.required ? 'yes' : 'no'}</td>
            <td>{c.help}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ImportIndexPage({
  csrf,
  user,
  def,
  jobs,
  upload,
  autoSync,
  events,
  examples,
  error,
}: Base & {
  jobs: ImportJobRow[];
  upload: UploadRow | null;
  autoSync: AutoSync | null;
  events: ImportEvent[];
  examples: string[];
  error?: string;
}) {
  const page = `/${def.area}`;
  return (
    <Layout title={def.title} csrf={csrf} user={user}>
      <ImportScript />
      <h1>{def.title}</h1>
      <p>
        Imports a spreadsheet (.xlsx or .csv, up to 20 MB) into <code>{def.table}</code>. The preview checks every row before anything is
        written; the import then writes the valid rows and reports the rest. A row that is already there is left alone, so importing the
        same sheet again changes nothing.
      </p>
      {error ? (
        <p class="field-error" role="alert" data-error>
          {error.slice(0, 700)}
        </p>
      ) : null}
      {canWrite(user) ? (
        <section>
          <h2>Upload a sheet</h2>
          <form method="post" action={`${page}/Preview`} enctype="multipart/form-data" data-upload-form>
            <Csrf token={csrf} />
            <label class="check" for="upload-excel-file">
              Sheet (.xlsx or .csv)
            </label>
            <input
              id="upload-excel-file"
              type="file"
              name="excelFile"
              accept=".xlsx,.csv,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              required
            />
            <FkSelects def={def} fk={def.defaultFk} />
            <button type="submit">Preview</button>
          </form>
          {examples.length ? (
            <div data-examples>
              <p>Example sheets:</p>
              {examples.map((name) => (
                <form method="post" action={`${page}/Preview`} class="inline">
                  <Csrf token={csrf} />
                  <input type="hidden" name="example" value={name} />
                  <button type="submit" data-example={name}>
                    Preview {name}
                  </button>
                </form>
              ))}
            </div>
          ) : null}
          <p>
            <a href={`${page}/AutoSync`}>Auto-sync settings</a> ·{' '}
            {autoSync
              ? `${autoSync.enabled ? `enabled, every ${autoSync.intervalMinutes} min, next ${when(autoSync.nextRunAt)}` : 'disabled'}${autoSync.lastStatus ? `; last run ${autoSync.lastStatus}` : ''}`
              : 'not set up'}
          </p>
        </section>
      ) : null}
      <h2>Columns</h2>
      <Columns def={def} />
      <h2>Live counts</h2>
      <dl class="stats" data-livecounts={def.prefix}>
        <dt>rows in the latest sheet</dt>
        <dd data-live="source">{upload?.rows ?? 0}</dd>
        <dt>rows in {def.table}</dt>
        <dd data-live="destination">…</dd>
      </dl>
      {upload ? (
        <p class="muted">
          Latest sheet: {upload.fileName}, uploaded {when(upload.uploadedAt)} by {upload.uploadedBy}.
        </p>
      ) : null}
      <h2>Recent imports</h2>
      {jobs.length === 0 ? (
        <p>No imports yet.</p>
      ) : (
        <table class="grid" data-import-jobs>
          <thead>
            <tr>
              <th>Job</th>
              <th>Sheet</th>
              <th>How</th>
              <th>By</th>
              <th>Created</th>
              <th>State</th>
              <th>Inserted</th>
              <th>Updated</th>
              <th>Unchanged</th>
              <th>Skipped</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr data-import-job={job.jobId}>
                <td>
                  <a href={`${page}/Progress?jobId=${job.jobId}`}>{job.jobId.slice(0, 8)}</a>
                </td>
                <td>{job.fileName}</td>
                <td>{job.trigger}</td>
                <td>{job.startedBy}</td>
                <td>{when(job.createdAt)}</td>
                <td>{job.state}</td>
                <td>{job.inserted}</td>
                <td>{job.updated}</td>
                <td>{job.unchanged}</td>
                <td>{job.skipped}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {events.length ? (
        <>
          <h2>Log</h2>
          <ol class="log" data-events>
            {events.map((e) => (
              <li>
                {when(e.at)} {e.user}: {e.action}
                {e.detail ? ` (${e.detail})` : ''}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {user.role === 'Admin' ? (
        <section>
          <h2>Clear data</h2>
          <form
            method="post"
            action={`${page}/ClearData`}
            data-clear-form
            data-confirm={`Delete every row of ${def.table}? This cannot be undone.`}
          >
            <Csrf token={csrf} />
            <label>
              <input type="checkbox" name="confirm" value="yes" required /> I understand that this deletes every row of{' '}
              <code>{def.table}</code>, imported or not
            </label>{' '}
            <button type="submit" class="danger">
              Clear {def.table}
            </button>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

export function ImportPreviewPage({
  csrf,
  user,
  def,
  tempPath,
  fileName,
  analysis,
  fk,
}: Base & { tempPath: string; fileName: string; analysis: Analysis; fk: Record<string, string> }) {
  const page = `/${def.area}`;
  const listed = analysis.records.slice(0, PREVIEW_ROWS);
  const laterProblems = analysis.records
    .slice(PREVIEW_ROWS)
    .filter((r) => r.problems.length)
    .slice(0, PREVIEW_PROBLEM_ROWS);
  return (
    <Layout title={`${def.title}: preview`} csrf={csrf} user={user}>
      <ImportScript />
      <h1>{def.title}: preview</h1>
      <section data-preview data-temp-path={tempPath}>
        <p>
          <strong>{fileName}</strong> ({analysis.format}
          {analysis.sheetName ? `, sheet "${analysis.sheetName}"` : ''}): <span data-rows>{analysis.rows}</span> rows,{' '}
          <strong data-valid>{analysis.valid.length}</strong> to import, <strong data-invalid>{analysis.invalid}</strong> with problems.
          Nothing has been written yet.
        </p>
        {Object.keys(analysis.problemCounts).length ? (
          <ul data-problem-counts>
            {Object.entries(analysis.problemCounts).map(([kind, n]) => (
              <li data-problem-kind={kind}>
                {n} × {kind}
              </li>
            ))}
          </ul>
        ) : null}
        <p class="muted">
          References found:{' '}
          {Object.entries(analysis.fkCounts)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}
          .{analysis.ignored.length ? ` Columns ignored: ${analysis.ignored.join(', ')}.` : ''}
        </p>
        <form method="post" action={`${page}/Start`} data-start-form>
          <Csrf token={csrf} />
          <input type="hidden" name="tempPath" value={tempPath} />
          <FkSelects def={def} fk={fk} />
          <FilterInput def={def} value="" tempPath={tempPath} />
          <button type="submit" data-start>
            Start import
          </button>
        </form>
        <h2>Rows{analysis.records.length > PREVIEW_ROWS ? ` (the first ${PREVIEW_ROWS})` : ''}</h2>
        <table class="grid" data-preview-rows>
          <thead>
            <tr>
              <th>Row</th>
              {def.columns.map((c) => (
                <th>{c.heading}</th>
              ))}
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((r) => (
              <tr
                class={r.problems.length ? 'error' : undefined}
                data-line={String(r.line)}
                data-problems={r.problems.map((p) => p.kind).join(',')}
              >
                <td>{r.line}</td>
                {def.columns.map((c) => (
                  <td>{r.values[c.key] === null ? '' : String(r.values[c.key])}</td>
                ))}
                <td>{r.problems.map((p) => p.message).join('; ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {laterProblems.length ? (
          <>
            <h2>Later rows with problems</h2>
            <table class="grid" data-later-problems>
              <tbody>
                {laterProblems.map((r) => (
                  <tr class="error" data-line={String(r.line)} data-problems={r.problems.map((p) => p.kind).join(',')}>
                    <td>{r.line}</td>
                    <td>{def.label(r.values)}</td>
                    <td>{r.problems.map((p) => p.message).join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
        <p>
          <a href={page}>Back</a>
        </p>
      </section>
    </Layout>
  );
}

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
        <table class="grid">
          <thead>
            <tr>
              <th>Row</th>
              <th>What</th>
              <th>Problem</th>
            </tr>
          </thead>
          <tbody data-problems>
            {progress.summary.problems.map((p) => (
              <tr class="error">
                <td>{p.line}</td>
                <td>{p.row}</td>
                <td>{p.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
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
      {error ? (
        <p class="field-error" role="alert" data-error>
          {error.slice(0, 700)}
        </p>
      ) : null}
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
