import type { SessionUser } from '../context.ts';
import type { SyncJob } from '../data/sync-jobs.ts';
import type { IncrementalTableView } from '../sync-incremental.ts';
import { Csrf, Layout } from './layout.tsx';

const METHOD_LABELS = {
  auto: 'Proposed',
  column: 'Updated-at or sequence column',
  xmin: "PostgreSQL's xmin",
  checksum: 'Key-range checksums',
  full: 'Full pass every run',
} as const;

const DELETE_LABELS = { ignore: 'Ignore (keep the row)', delete: 'Delete the row', soft: 'Mark a soft-delete column' } as const;

const methodText = (method: string, column: string | null) =>
  method === 'column'
    ? `the column ${column}`
    : method === 'xmin'
      ? "PostgreSQL's xmin"
      : method === 'checksum'
        ? 'key-range checksums'
        : 'a full pass';

/** The sync job's incremental settings: one fieldset per table, its proposal, what the next run does and the mark. */
export function SyncIncrementalPage({
  csrf,
  user,
  job,
  tables,
  errors,
  values,
}: {
  csrf: string;
  user: SessionUser;
  job: SyncJob;
  tables: IncrementalTableView[];
  errors: Record<string, string>;
  /** Posted values shown again after an error, by `<table>.<field>`. */
  values?: Record<string, string>;
}) {
  const canWrite = user.role !== 'Viewer';
  const value = (t: IncrementalTableView, field: string, stored: string | null) =>
    values?.[`${t.setting.sourceTable}.${field}`] ?? stored ?? '';
  const problem = (t: IncrementalTableView, field: string) => errors[`${t.setting.sourceTable}.${field}`];
  return (
    <Layout title={`Incremental sync: ${job.name}`} csrf={csrf} user={user}>
      <h1>{`Incremental sync: ${job.name}`}</h1>
      <p class="muted">
        Each run reads only the rows that changed since the table's high-water mark, applies inserts and updates to the rows they were
        copied to, and handles rows deleted at the source as chosen below. A table's mark moves only once a run has copied it to the end.
      </p>
      {Object.keys(errors).length ? (
        <p class="flash error" role="alert">
          Some settings need attention: see the fields marked below.
        </p>
      ) : null}
      <form method="post" action={`/Sync/Incremental/${job.id}`}>
        <Csrf token={csrf} />
        {tables.map((t) => {
          const name = t.setting.sourceTable;
          const id = (field: string) => `${field}-${name}`;
          return (
            <fieldset data-incremental-table={name}>
              <legend>{`${name} → ${t.destTable ?? '(not mapped)'}`}</legend>
              {t.proposal ? (
                <p
                  data-proposal
                >{`Proposed: ${methodText(t.proposal.method, t.proposal.column ?? null)}, because ${t.proposal.reason}.`}</p>
              ) : null}
              <p data-next-run class="flash">
                {t.fullBecause
                  ? `The next run reads the whole table (full pass): ${t.fullBecause}.`
                  : `The next run reads what changed by ${methodText(t.method, t.column)}.`}
              </p>
              <p class="muted" data-mark>
                {t.setting.mark !== null
                  ? `Mark: ${t.setting.mark} (${t.setting.markOf}), reached by run ${t.setting.markRunId ?? '—'}.`
                  : 'No mark yet: the first run of a column or xmin reads every row and sets it.'}
              </p>
              <label for={id('method')}>Change detection</label>
              <select id={id('method')} name={`${name}.method`} disabled={!canWrite}>
                {Object.entries(METHOD_LABELS).map(([key, label]) => (
                  <option value={key} selected={value(t, 'method', t.setting.method) === key}>
                    {key === 'auto' && t.proposal ? `${label} (${methodText(t.proposal.method, t.proposal.column ?? null)})` : label}
                  </option>
                ))}
              </select>
              {problem(t, 'method') ? <span class="field-error">{`Change detection ${problem(t, 'method')}`}</span> : null}
              <label for={id('column')}>Updated-at or sequence column</label>
              <select id={id('column')} name={`${name}.column`} disabled={!canWrite}>
                <option value="">—</option>
                {t.markColumns.map((c) => (
                  <option value={c} selected={value(t, 'column', t.setting.column) === c}>
                    {c}
                  </option>
                ))}
              </select>
              {problem(t, 'column') ? <span class="field-error">{`The column ${problem(t, 'column')}`}</span> : null}
              <label for={id('deletes')}>Rows deleted at the source</label>
              <select id={id('deletes')} name={`${name}.deletes`} disabled={!canWrite}>
                {Object.entries(DELETE_LABELS).map(([key, label]) => (
                  <option value={key} selected={value(t, 'deletes', t.setting.deletes) === key}>
                    {label}
                  </option>
                ))}
              </select>
              {problem(t, 'deletes') ? <span class="field-error">{`Deletes ${problem(t, 'deletes')}`}</span> : null}
              <label for={id('soft')}>Soft-delete column (destination)</label>
              <select id={id('soft')} name={`${name}.softDeleteColumn`} disabled={!canWrite}>
                <option value="">—</option>
                {t.softColumns.map((c) => (
                  <option value={c} selected={value(t, 'softDeleteColumn', t.setting.softDeleteColumn) === c}>
                    {c}
                  </option>
                ))}
              </select>
              {problem(t, 'softDeleteColumn') ? (
                <span class="field-error">{`The soft-delete column ${problem(t, 'softDeleteColumn')}`}</span>
              ) : null}
            </fieldset>
          );
        })}
        {canWrite ? <button type="submit">Save</button> : null}
      </form>
      <p>
        <a href="/Sync">Back to the sync jobs</a>
      </p>
    </Layout>
  );
}
