// An import area's page: its sheet's columns, the upload form and the recent imports.

import type { AutoSync, ImportEvent } from '../../imports/auto-sync.ts';
import type { ImportJobRow, UploadRow } from '../../imports/jobs.ts';
import { Grid } from '../grid.tsx';
import { Csrf, Layout } from '../layout.tsx';
import { type Base, canWrite, ImportError, Columns, FkSelects, ImportScript, when } from './common.tsx';

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
      <ImportError message={error} />
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
      <Grid
        empty="No imports yet."
        data={{ 'data-import-jobs': true }}
        columns={['Job', 'Sheet', 'How', 'By', 'Created', 'State', 'Inserted', 'Updated', 'Unchanged', 'Skipped']}
        rows={jobs}
        row={(job) => (
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
        )}
      />
      {events.length ? (
        <>
          <h2>Log</h2>
          <ol class="log" data-events tabindex={0} aria-label="Log entries">
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
