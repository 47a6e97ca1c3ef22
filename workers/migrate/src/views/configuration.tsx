import type { SessionUser } from '../context.ts';
import type { ConfigurationView } from '../configurations.ts';
import { Grid } from './grid.tsx';
import { Csrf, Layout } from './layout.tsx';

export type FormValues = Partial<Record<'Id' | 'Name' | 'Host' | 'Port' | 'Database' | 'Username', string>>;

const canEdit = (user: SessionUser) => user.role === 'Admin' || user.role === 'Operator';

export function ConfigurationList({
  csrf,
  user,
  rows,
  allowed,
  notice,
}: {
  csrf: string;
  user: SessionUser;
  rows: ConfigurationView[];
  allowed: string[];
  notice?: string;
}) {
  return (
    <Layout title="Configurations" csrf={csrf} user={user}>
      <h1>Source database configurations</h1>
      {notice ? (
        <p class="notice" role="status" data-notice>
          {notice}
        </p>
      ) : null}
      <p class="muted">Hosts a configuration may name: {allowed.length ? allowed.join(', ') : 'none (MIGRATE_ALLOWED_HOSTS is empty)'}.</p>
      {canEdit(user) ? (
        <p>
          <a class="button" href="/Configuration/Create">
            New configuration
          </a>
        </p>
      ) : null}
      <Grid
        empty="No configurations yet."
        columns={['Name', 'Host', 'Port', 'Database', 'Username', 'Active', 'Actions']}
        rows={rows}
        row={(row) => (
          <tr data-configuration={row.id}>
            <td>{row.name}</td>
            <td>{row.host}</td>
            <td>{row.port}</td>
            <td>{row.database}</td>
            <td>{row.username}</td>
            <td>{row.isActive ? 'Active' : ''}</td>
            <td class="actions">
              {canEdit(user) ? <a href={`/Configuration/Edit/${row.id}`}>Edit</a> : null}
              {canEdit(user) && !row.isActive ? (
                <form method="post" action="/Configuration/SetActive">
                  <Csrf token={csrf} />
                  <input type="hidden" name="id" value={String(row.id)} />
                  <button type="submit">Set active</button>
                </form>
              ) : null}
              {user.role === 'Admin' ? <a href={`/Configuration/Delete/${row.id}`}>Delete</a> : null}
            </td>
          </tr>
        )}
      />
    </Layout>
  );
}

export function ConfigurationForm({
  csrf,
  user,
  mode,
  values,
  errors,
}: {
  csrf: string;
  user: SessionUser;
  mode: 'create' | 'edit';
  values: FormValues;
  errors: Record<string, string>;
}) {
  const field = (name: keyof FormValues, label: string, attrs: Record<string, string | number | boolean> = {}) => (
    <p>
      <label for={name}>{label}</label>
      <input id={name} name={name} value={values[name] ?? ''} {...attrs} />
      {errors[name] ? <span class="field-error">{`${label} ${errors[name]}`}</span> : null}
    </p>
  );
  return (
    <Layout title={mode === 'create' ? 'New configuration' : 'Edit configuration'} csrf={csrf} user={user}>
      <h1>{mode === 'create' ? 'New configuration' : 'Edit configuration'}</h1>
      {Object.keys(errors).length ? (
        <p class="flash error" role="alert">
          Please correct the fields marked below.
        </p>
      ) : null}
      <form
        method="post"
        action={mode === 'create' ? '/Configuration/Create' : '/Configuration/Edit'}
        class="stack"
        data-configuration-form
      >
        <Csrf token={csrf} />
        {mode === 'edit' ? <input type="hidden" name="Id" value={values.Id ?? ''} /> : null}
        {field('Name', 'Name', { maxlength: 100 })}
        {field('Host', 'Host', { required: true, maxlength: 253 })}
        {field('Port', 'Port', { required: true, type: 'number', min: 1, max: 65535 })}
        {field('Database', 'Database', { required: true, maxlength: 63 })}
        {field('Username', 'Username', { required: true, maxlength: 63, autocomplete: 'off' })}
        <p>
          <label for="Password">Password</label>
          <input id="Password" name="Password" type="password" autocomplete="new-password" maxlength={1024} required={mode === 'create'} />
          {mode === 'edit' ? <span class="muted">Leave empty to keep the stored password.</span> : null}
          {errors.Password ? <span class="field-error">{`Password ${errors.Password}`}</span> : null}
        </p>
        <p class="actions">
          <button type="submit">Save</button>
          <button type="button" class="secondary" data-test-connection>
            Test connection
          </button>
          <a href="/Configuration">Cancel</a>
        </p>
        <p data-test-result role="status" aria-live="polite"></p>
      </form>
    </Layout>
  );
}

/** Asks before a configuration goes: what goes with it, and what becomes active instead. */
export function ConfigurationDeletePage({
  csrf,
  user,
  row,
  syncJobs,
  others,
}: {
  csrf: string;
  user: SessionUser;
  row: ConfigurationView;
  syncJobs: string[];
  others: number;
}) {
  return (
    <Layout title="Delete configuration" csrf={csrf} user={user}>
      <h1>Delete the configuration {row.name}?</h1>
      <p>
        {row.host}:{row.port}/{row.database} as {row.username}.
      </p>
      {syncJobs.length ? (
        <>
          <p data-sync-jobs>Its {syncJobs.length === 1 ? 'sync job is' : `${syncJobs.length} sync jobs are`} deleted with it:</p>
          <ul>
            {syncJobs.map((name) => (
              <li>{name}</li>
            ))}
          </ul>
        </>
      ) : (
        <p data-sync-jobs>It has no sync jobs.</p>
      )}
      {row.isActive ? (
        <p>
          {others
            ? 'It is the active configuration: the most recently used of the others becomes active.'
            : 'It is the only configuration: none will be active until you create one.'}
        </p>
      ) : null}
      <form method="post" action="/Configuration/Delete">
        <Csrf token={csrf} />
        <input type="hidden" name="id" value={String(row.id)} />
        <button type="submit" class="danger">
          Delete {row.name}
          {syncJobs.length ? ` and ${syncJobs.length === 1 ? 'its sync job' : `its ${syncJobs.length} sync jobs`}` : ''}
        </button>{' '}
        <a href="/Configuration">Cancel</a>
      </form>
    </Layout>
  );
}
