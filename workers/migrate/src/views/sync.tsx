import type { SessionUser } from '../context.ts';
import type { ConfigurationView } from '../configurations.ts';
import type { ForeignKey, PlanIssue, TablePlan } from '../engine/types.ts';
import type { SyncJob } from '../data/sync-jobs.ts';
import { INTERVAL_MINUTES } from '../sync-jobs.ts';
import { Grid } from './grid.tsx';
import { asset, Csrf, Flash, Layout } from './layout.tsx';

const when = (ms: number | null) => (ms ? `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '—');
const canWrite = (user: SessionUser) => user.role !== 'Viewer';
const SyncScript = () => <script src={asset('/static/sync.js')} defer />;

export function SyncListPage({ csrf, user, jobs }: { csrf: string; user: SessionUser; jobs: (SyncJob & { configName: string })[] }) {
  return (
    <Layout title="Sync jobs" csrf={csrf} user={user}>
      <SyncScript />
      <h1>Sync jobs</h1>
      <p class="muted">
        Every minute the enabled jobs that are due start a copy of their tables from the configuration's source into the racing database. A
        job whose previous run is still going waits for it.
      </p>
      <dl class="stats" data-sync-status>
        {(['total', 'enabled', 'running', 'errored'] as const).map((key) => (
          <>
            <dt>{key}</dt>
            <dd data-count={key}>…</dd>
          </>
        ))}
      </dl>
      {canWrite(user) ? (
        <p>
          <a class="button" href="/Sync/Create">
            New sync job
          </a>
        </p>
      ) : null}
      <Grid
        empty="No sync jobs yet."
        data={{ 'data-sync-jobs': true }}
        columns={['Name', 'Configuration', 'Tables', 'Interval', 'Enabled', 'Last run', 'Next run', 'Actions']}
        rows={jobs}
        row={(job) => (
          <tr data-sync-job={job.id}>
            <td>{job.name}</td>
            <td>{job.configName}</td>
            <td>{job.tables.join(', ')}</td>
            <td>{`${job.intervalMinutes} min`}</td>
            <td data-enabled>{job.enabled ? 'yes' : 'no'}</td>
            <td data-last-status>
              {job.lastStatus ?? 'never run'}
              {job.lastRunAt ? <span class="muted">{` (${when(job.lastRunAt)})`}</span> : null}
              {job.lastError ? <span class="field-error">{` ${job.lastError}`}</span> : null}
            </td>
            <td data-next-run>{job.enabled ? when(job.nextRunAt) : '—'}</td>
            <td class="actions">
              <a href={`/Sync/Preview/${job.id}`}>Preview</a>
              <a href={`/Sync/Incremental/${job.id}`}>Incremental</a>
              {canWrite(user) ? (
                <>
                  <a href={`/Sync/Edit/${job.id}`}>Edit</a>
                  <button type="button" class="secondary" data-sync-toggle={String(job.id)}>
                    {job.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" class="secondary" data-sync-run={String(job.id)}>
                    Run now
                  </button>
                  <form method="post" action={`/Sync/Delete/${job.id}`} data-confirm="Delete this sync job?">
                    <Csrf token={csrf} />
                    <button type="submit" class="danger">
                      Delete
                    </button>
                  </form>
                </>
              ) : null}
              <span data-sync-result role="status" aria-live="polite"></span>
            </td>
          </tr>
        )}
      />
    </Layout>
  );
}

export type SyncFormValues = {
  Id?: string;
  Name: string;
  ConfigId: string;
  Tables: string[];
  IntervalMinutes: string;
  Enabled: boolean;
  PatchMode: boolean;
};

export function SyncFormPage({
  csrf,
  user,
  values,
  configurations,
  sourceTables,
  sourceError,
  hasDocument,
  errors,
}: {
  csrf: string;
  user: SessionUser;
  values: SyncFormValues;
  configurations: ConfigurationView[];
  sourceTables: string[];
  sourceError?: string;
  hasDocument: boolean;
  errors: Record<string, string>;
}) {
  const editing = values.Id !== undefined;
  const title = editing ? 'Edit sync job' : 'New sync job';
  const tables = [...new Set([...sourceTables, ...values.Tables])];
  const error = (name: string, label: string) => (errors[name] ? <span class="field-error">{`${label} ${errors[name]}`}</span> : null);
  return (
    <Layout title={title} csrf={csrf} user={user}>
      <SyncScript />
      <h1>{title}</h1>
      {Object.keys(errors).length ? (
        <p class="flash error" role="alert">
          Please correct the fields marked below.
        </p>
      ) : null}
      {editing ? null : (
        <form method="get" action="/Sync/Create" class="inline">
          <label for="choose-config">Configuration</label>
          <select id="choose-config" name="configId">
            {configurations.map((cfg) => (
              <option value={String(cfg.id)} selected={String(cfg.id) === values.ConfigId}>
                {cfg.name}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary">
            List its tables
          </button>
        </form>
      )}
      <form method="post" action="/Sync/Save" class="stack" data-sync-form>
        <Csrf token={csrf} />
        {editing ? <input type="hidden" name="Id" value={values.Id} /> : null}
        <p>
          <label for="Name">Name</label>
          <input id="Name" name="Name" value={values.Name} required maxlength={100} />
          {error('Name', 'Name')}
        </p>
        <p>
          <label for="ConfigId">Configuration</label>
          <select id="ConfigId" name="ConfigId">
            {configurations.map((cfg) => (
              <option value={String(cfg.id)} selected={String(cfg.id) === values.ConfigId}>
                {cfg.name}
              </option>
            ))}
          </select>
          {error('ConfigId', 'Configuration')}
        </p>
        <fieldset>
          <legend>Source tables</legend>
          {sourceError ? <Flash kind="error" message={sourceError} /> : null}
          {tables.map((table) => (
            <label class="check">
              <input type="checkbox" name="Tables" value={table} checked={values.Tables.includes(table)} /> {table}
            </label>
          ))}
          {error('Tables', 'Tables')}
        </fieldset>
        <p class="muted" data-schema-status>
          {hasDocument
            ? 'The configuration has a mapping document: its tables are mapped as it says; others by name.'
            : 'No mapping document for this configuration: tables are mapped by name.'}
        </p>
        <p>
          <label for="IntervalMinutes">{`Interval (minutes, ${INTERVAL_MINUTES.min}–${INTERVAL_MINUTES.max})`}</label>
          <input
            id="IntervalMinutes"
            name="IntervalMinutes"
            type="number"
            min={INTERVAL_MINUTES.min}
            max={INTERVAL_MINUTES.max}
            value={values.IntervalMinutes}
            required
          />
          {error('IntervalMinutes', 'Interval')}
        </p>
        <label class="check">
          <input type="checkbox" name="Enabled" value="true" checked={values.Enabled} /> Enabled
        </label>
        <label class="check">
          <input type="checkbox" name="PatchMode" value="true" checked={values.PatchMode} /> Update rows that already exist (patch mode)
        </label>
        <p class="actions">
          <button type="submit">Save</button>
          <a href="/Sync">Cancel</a>
        </p>
      </form>
      <form
        method="post"
        action={`/Sync/UploadSchema?configId=${values.ConfigId}`}
        enctype="multipart/form-data"
        class="stack"
        data-sync-upload
      >
        <Csrf token={csrf} />
        <p>
          <label for="schemaFile">Mapping document for this configuration (JSON, as at the wizard's schema import)</label>
          <input id="schemaFile" name="schemaFile" type="file" accept="application/json,.json" />
        </p>
        <p class="actions">
          <button type="submit" class="secondary">
            Upload
          </button>
        </p>
        <p data-upload-result role="status" aria-live="polite"></p>
      </form>
    </Layout>
  );
}

export type PreviewTable = { plan: TablePlan; origin: 'document' | 'suggested' | 'none'; foreignKeys: ForeignKey[] };

export function SyncPreviewPage({
  csrf,
  user,
  job,
  configName,
  tables,
  issues,
}: {
  csrf: string;
  user: SessionUser;
  job: SyncJob;
  configName: string;
  tables: PreviewTable[];
  issues: PlanIssue[];
}) {
  return (
    <Layout title={`Preview: ${job.name}`} csrf={csrf} user={user}>
      <h1>{`Preview: ${job.name}`}</h1>
      <p class="muted">{`Configuration ${configName}; every ${job.intervalMinutes} minutes; ${job.enabled ? `next run ${when(job.nextRunAt)}` : 'disabled'}.`}</p>
      {issues.length ? (
        <ul class="issues" data-issues>
          {issues.map((issue) => (
            <li class={issue.level}>{`${issue.level}: ${issue.table}${issue.column ? `.${issue.column}` : ''}: ${issue.message}`}</li>
          ))}
        </ul>
      ) : (
        <p class="flash info">The mappings fit both schemas.</p>
      )}
      {tables.map(({ plan, origin, foreignKeys }) => (
        <section data-preview-table={plan.sourceTable}>
          <h2>{`${plan.sourceTable} → ${plan.destTable || '(not mapped)'}`}</h2>
          <p class="muted">
            {origin === 'document'
              ? 'From the mapping document.'
              : origin === 'suggested'
                ? 'Suggested by name.'
                : 'No destination table found.'}
            {` Source key ${plan.sourceKey.join(', ') || '—'}; destination key ${plan.destKey}${plan.naturalKey?.length ? `; natural key ${plan.naturalKey.join(', ')}` : ''}.`}
          </p>
          <Grid
            columns={['Source column', 'Destination column', 'Transform']}
            rows={plan.columns}
            row={(col) => (
              <tr>
                <td>{col.source}</td>
                <td>{col.dest}</td>
                <td>{col.transform ? col.transform.kind : ''}</td>
              </tr>
            )}
          />
          <h3>Foreign keys</h3>
          {foreignKeys.length ? (
            <ul data-foreign-keys>
              {foreignKeys.map((fk) => (
                <li>{`${fk.childTable}.${fk.childColumn} → ${fk.parentTable}.${fk.parentColumn}${fk.custom ? ' (custom)' : ''}`}</li>
              ))}
            </ul>
          ) : (
            <p class="muted">None.</p>
          )}
        </section>
      ))}
      <p>
        <a href="/Sync">Back to the sync jobs</a>
      </p>
    </Layout>
  );
}
