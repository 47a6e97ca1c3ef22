import type { SessionUser } from '../context.ts';
import type { ColumnInfo, ForeignKey, LogEntry, NaturalKeyMatches, PlanIssue, RunProgress, SchemaInfo, TablePlan } from '../engine/types.ts';
import type { WizardSession } from '../wizard-sessions.ts';
import { Csrf, Flash, Layout } from './layout.tsx';

type Base = { csrf: string; user: SessionUser };
const q = (sessionId: string) => `sessionId=${encodeURIComponent(sessionId)}`;

const STEPS = [
  ['TableSelection', 'Tables'],
  ['SchemaImport', 'Schema'],
  ['ReviewMappings', 'Mappings'],
  ['FilterConfig', 'Filters'],
  ['RelationshipConfig', 'Relationships'],
  ['RunConfig', 'Run'],
  ['Progress', 'Progress'],
  ['Results', 'Results'],
] as const;

function Steps({ current, sessionId }: { current: string; sessionId: string }) {
  return (
    <ol class="steps" aria-label="Wizard steps">
      {STEPS.map(([action, label]) => (
        <li aria-current={action === current ? 'step' : undefined}>{action === 'TableSelection' ? label : <a href={`/Migration/${action}?${q(sessionId)}`}>{label}</a>}</li>
      ))}
    </ol>
  );
}

export function TableSelectionPage({ csrf, user, sessionId, tables, error }: Base & { sessionId: string; tables: { name: string; estimatedRows: number }[]; error?: string }) {
  return (
    <Layout title="Select tables" csrf={csrf} user={user}>
      <h1>Select the source tables</h1>
      <Flash message={error} kind="error" />
      <form method="post" action="/Migration/TableSelection" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={sessionId} />
        <fieldset>
          <legend>Tables of the active source database</legend>
          {tables.map((t) => (
            <label class="check">
              <input type="checkbox" name="selectedTables" value={t.name} /> {t.name} <span class="muted">(≈{t.estimatedRows} rows)</span>
            </label>
          ))}
        </fieldset>
        <button type="submit">Next: schema</button>
      </form>
    </Layout>
  );
}

export function SchemaImportPage({ csrf, user, session, hasSaved, error }: Base & { session: WizardSession; hasSaved: boolean; error?: string }) {
  return (
    <Layout title="Schema import" csrf={csrf} user={user}>
      <Steps current="SchemaImport" sessionId={session.id} />
      <h1>Schema import</h1>
      <p>Selected tables: {session.selectedTables.join(', ') || 'none'}.</p>
      <Flash message={error} kind="error" />
      <form method="post" action="/Migration/SchemaImport" enctype="multipart/form-data" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <label for="schemaFile">Schema file (JSON mapping document; optional — without one, mappings are suggested by name)</label>
        <input id="schemaFile" name="schemaFile" type="file" accept="application/json,.json" />
        <button type="submit">Import</button>
      </form>
      <form method="post" action="/Migration/SchemaImportUseSaved" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <button type="submit" class="secondary">
          {hasSaved ? 'Use the saved schema file' : 'Continue without a schema file'}
        </button>
      </form>
    </Layout>
  );
}

function ColumnSelect({ name, value, columns }: { name: string; value: string; columns: ColumnInfo[] }) {
  return (
    <select name={name}>
      <option value="">(not copied)</option>
      {columns.map((col) => (
        <option value={col.ColumnName} selected={col.ColumnName === value}>
          {col.ColumnName} ({col.DataType})
        </option>
      ))}
    </select>
  );
}

export function ReviewMappingsPage({ csrf, user, session, source, dest, error }: Base & { session: WizardSession; source: SchemaInfo; dest: SchemaInfo; error?: string }) {
  return (
    <Layout title="Review mappings" csrf={csrf} user={user}>
      <Steps current="ReviewMappings" sessionId={session.id} />
      <h1>Review mappings</h1>
      <Flash message={error} kind="error" />
      <p>
        <a href={`/Migration/ValidateSchema?${q(session.id)}`}>Validate the mappings</a> · <a href={`/Migration/FieldMapping?${q(session.id)}`}>Field mapping and natural keys</a>
      </p>
      <form method="post" action="/Migration/ReviewMappings" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        {session.plans.map((plan, i) => {
          const sourceColumns = source.tables.find((t) => t.name === plan.sourceTable)?.columns ?? [];
          const destColumns = dest.tables.find((t) => t.name === plan.destTable)?.columns ?? [];
          return (
            <fieldset data-table={plan.sourceTable}>
              <legend>{plan.sourceTable}</legend>
              <input type="hidden" name={`Mappings[${i}].SourceTable`} value={plan.sourceTable} />
              <label>
                Destination table{' '}
                <select name={`Mappings[${i}].DestTable`}>
                  <option value="">(not copied)</option>
                  {dest.tables.map((t) => (
                    <option value={t.name} selected={t.name === plan.destTable}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>
              <table class="grid">
                <thead>
                  <tr>
                    <th>Source column</th>
                    <th>Destination column</th>
                    <th>Transform</th>
                  </tr>
                </thead>
                <tbody>
                  {sourceColumns.map((col, j) => {
                    const mapped = plan.columns.find((m) => m.source === col.ColumnName);
                    return (
                      <tr>
                        <td>
                          {col.ColumnName} <span class="muted">({col.DataType})</span>
                          <input type="hidden" name={`Mappings[${i}].Columns[${j}].Source`} value={col.ColumnName} />
                        </td>
                        <td>
                          <ColumnSelect name={`Mappings[${i}].Columns[${j}].Dest`} value={mapped?.dest ?? ''} columns={destColumns} />
                        </td>
                        <td class="muted">{mapped?.transform ? mapped.transform.kind : ''}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </fieldset>
          );
        })}
        <button type="submit">Next: relationships</button>
      </form>
    </Layout>
  );
}

export function ValidateSchemaPage({ csrf, user, session, issues }: Base & { session: WizardSession; issues: PlanIssue[] }) {
  return (
    <Layout title="Validate schema" csrf={csrf} user={user}>
      <Steps current="ReviewMappings" sessionId={session.id} />
      <h1>Schema validation</h1>
      {issues.length === 0 ? (
        <p class="flash info" data-valid="true">
          No problems found.
        </p>
      ) : (
        <table class="grid" data-valid="false">
          <thead>
            <tr>
              <th>Level</th>
              <th>Table</th>
              <th>Column</th>
              <th>Problem</th>
            </tr>
          </thead>
          <tbody>
            {issues.map((i) => (
              <tr class={i.level}>
                <td>{i.level}</td>
                <td>{i.table}</td>
                <td>{i.column ?? ''}</td>
                <td>{i.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <a href={`/Migration/ReviewMappings?${q(session.id)}`}>Back to the mappings</a>
      </p>
    </Layout>
  );
}

export function FilterConfigPage({ csrf, user, session, errors }: Base & { session: WizardSession; errors: Record<string, string> }) {
  return (
    <Layout title="Filters" csrf={csrf} user={user}>
      <Steps current="FilterConfig" sessionId={session.id} />
      <h1>Row filters</h1>
      <p>A condition per source table (the WHERE part, e.g. <code>meeting_date &gt;= '2024-01-01'</code>); empty copies every row. Filters run read-only with a time limit.</p>
      <form method="post" action="/Migration/FilterConfig" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <FilterFields session={session} errors={errors} />
        <button type="submit">Save filters</button>
      </form>
    </Layout>
  );
}

function FilterFields({ session, errors }: { session: WizardSession; errors: Record<string, string> }) {
  return (
    <>
      {session.plans.map((plan, i) => (
        <p>
          <label for={`filter-${i}`}>{plan.sourceTable}</label>
          <input type="hidden" name={`filters[${i}].TableName`} value={plan.sourceTable} />
          <input id={`filter-${i}`} name={`filters[${i}].Filter`} value={session.filters[plan.sourceTable] ?? ''} maxlength={2000} class="wide" data-filter-table={plan.sourceTable} />
          {errors[plan.sourceTable] ? <span class="field-error">{errors[plan.sourceTable]}</span> : null}
        </p>
      ))}
    </>
  );
}

export type RelationshipRow = ForeignKey & { id?: number };

export function RelationshipConfigPage({ csrf, user, session, fks, destTables }: Base & { session: WizardSession; fks: RelationshipRow[]; destTables: string[] }) {
  const order = [...session.tableOrder.filter((t) => session.plans.some((p) => p.destTable === t)), ...session.plans.map((p) => p.destTable).filter((t) => t && !session.tableOrder.includes(t))];
  return (
    <Layout title="Relationships" csrf={csrf} user={user}>
      <Steps current="RelationshipConfig" sessionId={session.id} />
      <h1>Relationships and table order</h1>
      <h2>Foreign keys</h2>
      <table class="grid" data-relationships>
        <thead>
          <tr>
            <th>Child</th>
            <th>Parent</th>
            <th>Kind</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {fks.map((fk) => (
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
          ))}
        </tbody>
      </table>
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
        <p class="muted">Destination columns (comma-separated) that identify a row already in the destination; such rows are matched, not inserted again.</p>
        {session.plans
          .filter((p) => p.destTable)
          .map((plan, i) => (
            <p>
              <input type="hidden" name={`columnConfigs[${i}].Table`} value={plan.sourceTable} />
              <label for={`nk-${i}`}>
                {plan.sourceTable} → {plan.destTable}
              </label>
              <input id={`nk-${i}`} name={`columnConfigs[${i}].NaturalKey`} value={(plan.naturalKey ?? []).join(', ')} maxlength={500} />
            </p>
          ))}
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
    </Layout>
  );
}

export function RunConfigPage({ csrf, user, session, order, deferred, issues, errors }: Base & { session: WizardSession; order: string[]; deferred: ForeignKey[]; issues: PlanIssue[]; errors: Record<string, string> }) {
  const blocking = issues.filter((i) => i.level === 'error');
  return (
    <Layout title="Run" csrf={csrf} user={user}>
      <Steps current="RunConfig" sessionId={session.id} />
      <h1>Run the migration</h1>
      <h2>Order (foreign keys first)</h2>
      <ol data-run-order>
        {order.map((t) => (
          <li>{t}</li>
        ))}
      </ol>
      {deferred.length ? (
        <p>
          Copied empty and filled in afterwards (cycle): {deferred.map((fk) => `${fk.childTable}.${fk.childColumn}`).join(', ')}
        </p>
      ) : null}
      {issues.length ? (
        <ul class="issues">
          {issues.map((i) => (
            <li class={i.level}>
              {i.level}: {i.table}
              {i.column ? `.${i.column}` : ''} — {i.message}
            </li>
          ))}
        </ul>
      ) : null}
      <form method="post" action="/Migration/RunConfig" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <FilterFields session={session} errors={errors} />
        <label class="check">
          <input type="checkbox" name="patchMode" value="true" checked={session.patchMode} /> Patch mode: update rows that already exist instead of skipping them
        </label>
        <button type="submit" disabled={blocking.length > 0}>
          Start migration
        </button>
      </form>
    </Layout>
  );
}

export function ProgressPage({ csrf, user, session, progress, logs }: Base & { session: WizardSession; progress: RunProgress | null; logs: LogEntry[] }) {
  return (
    <Layout title="Progress" csrf={csrf} user={user}>
      <Steps current="Progress" sessionId={session.id} />
      <h1>Progress</h1>
      <section data-progress={session.id} data-state={progress?.state ?? 'none'}>
        <p>
          State: <strong data-run-state>{progress?.state ?? 'not started'}</strong> · <span data-rate>{progress ? Math.round(progress.rowsPerSecond) : 0}</span> rows/s · ETA{' '}
          <span data-eta>{progress?.etaSeconds != null ? `${Math.round(progress.etaSeconds)} s` : '—'}</span>
        </p>
        <table class="grid">
          <thead>
            <tr>
              <th>Table</th>
              <th>Progress</th>
              <th>Rows</th>
              <th>Inserted</th>
              <th>Updated</th>
              <th>Skipped</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody data-tables>
            {(progress?.tables ?? []).map((t) => (
              <tr data-table={t.table}>
                <td>{t.table}</td>
                <td>
                  <progress max={Math.max(t.total, 1)} value={t.done}></progress>
                </td>
                <td>
                  {t.done} / {t.total}
                </td>
                <td>{t.inserted}</td>
                <td>{t.updated}</td>
                <td>{t.skipped}</td>
                <td>{t.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ul class="errors" data-errors>
          {(progress?.errors ?? []).map((e) => (
            <li>{e}</li>
          ))}
        </ul>
        <p class="actions">
          <button type="button" class="danger" data-cancel={session.id}>
            Cancel
          </button>
          <a href={`/Migration/Results?${q(session.id)}`} data-results-link>
            Results
          </a>
        </p>
        <h2>Log</h2>
        <ol class="log" data-log>
          {logs.map((l) => (
            <li class={l.level}>
              {l.timestamp} {l.level} {l.tableName ?? ''} {l.message}
            </li>
          ))}
        </ol>
      </section>
    </Layout>
  );
}

const NOTICES: Record<string, (n: string) => string> = {
  fk: (n) => `Foreign keys backfilled: ${n} rows updated.`,
  bool: (n) => `Boolean columns backfilled: ${n} rows updated.`,
  cleared: (n) => `Migration history cleared: ${n} id mappings deleted.`,
  synced: (n) => `${n} id mappings written to config_id_mappings.`,
};

export function ResultsPage({ csrf, user, session, progress, notice, count }: Base & { session: WizardSession; progress: RunProgress | null; notice?: string; count?: string }) {
  const message = notice && NOTICES[notice] ? NOTICES[notice](count ?? '0') : undefined;
  const validation = progress?.validation ?? null;
  const allOk = validation !== null && validation.length > 0 && validation.every((v) => v.ok);
  return (
    <Layout title="Results" csrf={csrf} user={user}>
      <Steps current="Results" sessionId={session.id} />
      <h1>Results</h1>
      <Flash message={message} />
      <p>
        Run state: <strong data-run-state>{progress?.state ?? 'not started'}</strong>
      </p>
      {validation ? (
        <>
          <p data-validated={allOk ? 'all' : 'differences'}>{allOk ? 'Every table validated: counts and checksums match.' : 'Some tables differ between source and destination.'}</p>
          <table class="grid" data-validation>
            <thead>
              <tr>
                <th>Table</th>
                <th>Source rows</th>
                <th>Destination rows</th>
                <th>Source checksum</th>
                <th>Destination checksum</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {validation.map((v) => (
                <tr data-table={v.table} data-ok={String(v.ok)}>
                  <td>{v.table}</td>
                  <td>{v.sourceCount}</td>
                  <td>{v.destCount}</td>
                  <td>
                    <code>{v.sourceChecksum}</code>
                  </td>
                  <td>
                    <code>{v.destChecksum}</code>
                  </td>
                  <td>{v.ok ? 'OK' : 'DIFFERENT'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <p>No validation yet (the run has not finished).</p>
      )}
      {(progress?.errors ?? []).length ? (
        <ul class="errors">
          {progress!.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      ) : null}
      <div class="actions">
        {(
          [
            ['BackfillForeignKeys', 'Backfill foreign keys'],
            ['BackfillBooleanColumns', 'Backfill boolean columns'],
            ['SyncIdMappingsToDestination', 'Sync id mappings to destination'],
            ['ClearMigrationHistory', 'Clear migration history'],
          ] as const
        ).map(([action, label]) => (
          <form method="post" action={`/Migration/${action}`} data-confirm={action === 'ClearMigrationHistory' ? 'Delete the id mappings of these tables?' : undefined}>
            <Csrf token={csrf} />
            <input type="hidden" name="sessionId" value={session.id} />
            <button type="submit" class={action === 'ClearMigrationHistory' ? 'danger' : 'secondary'}>
              {label}
            </button>
          </form>
        ))}
      </div>
    </Layout>
  );
}

export function FieldMappingPage({ csrf, user, session }: Base & { session: WizardSession }) {
  return (
    <Layout title="Field mapping" csrf={csrf} user={user}>
      <Steps current="ReviewMappings" sessionId={session.id} />
      <h1>Field mapping and natural keys</h1>
      <form method="post" action="/Migration/FieldMappingPost" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        {session.plans.map((plan, i) => (
          <fieldset>
            <legend>
              {plan.sourceTable} → {plan.destTable || '(not copied)'}
            </legend>
            <input type="hidden" name={`mappings[${i}].SourceTable`} value={plan.sourceTable} />
            <input type="hidden" name={`mappings[${i}].DestTable`} value={plan.destTable} />
            {plan.columns.map((col, j) => (
              <p>
                <input type="hidden" name={`mappings[${i}].Columns[${j}].Source`} value={col.source} />
                <label>
                  {col.source} → <input name={`mappings[${i}].Columns[${j}].Dest`} value={col.dest} maxlength={128} />
                </label>
              </p>
            ))}
            <input type="hidden" name={`naturalKeys[${i}].Table`} value={plan.sourceTable} />
            <label>
              Natural key <input name={`naturalKeys[${i}].Columns`} value={(plan.naturalKey ?? []).join(', ')} maxlength={500} />
            </label>
          </fieldset>
        ))}
        <button type="submit">Save and review</button>
      </form>
    </Layout>
  );
}

export type PendingRow = { id: number; tableName: string; sourceId: string; destId: string; matchedOn: string; state: string };

export function PendingMappingsPage({ csrf, user, session, rows, summaries }: Base & { session: WizardSession; rows: PendingRow[]; summaries: NaturalKeyMatches[] }) {
  return (
    <Layout title="Pending mappings" csrf={csrf} user={user}>
      <Steps current="ReviewMappings" sessionId={session.id} />
      <h1>Pending mappings</h1>
      {summaries.map((s) => (
        <p>
          {s.sourceTable} → {s.destTable}: {s.matches.length} matched, {s.alreadyMapped} already mapped, {s.unmatched} new.
        </p>
      ))}
      <table class="grid" data-pending>
        <thead>
          <tr>
            <th>Table</th>
            <th>Source id</th>
            <th>Destination id</th>
            <th>Matched on</th>
            <th>State</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr data-mapping={String(r.id)}>
              <td>{r.tableName}</td>
              <td>{r.sourceId}</td>
              <td>{r.destId}</td>
              <td>{r.matchedOn}</td>
              <td>{r.state}</td>
              <td class="actions">
                {r.state === 'Pending' ? (
                  <>
                    <form method="post" action="/Migration/ConfirmMapping">
                      <Csrf token={csrf} />
                      <input type="hidden" name="sessionId" value={session.id} />
                      <input type="hidden" name="mappingId" value={String(r.id)} />
                      <button type="submit">Confirm</button>
                    </form>
                    <form method="post" action="/Migration/RejectMapping">
                      <Csrf token={csrf} />
                      <input type="hidden" name="sessionId" value={session.id} />
                      <input type="hidden" name="mappingId" value={String(r.id)} />
                      <button type="submit" class="secondary">
                        Reject
                      </button>
                    </form>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Add a mapping by hand</h2>
      <form method="post" action="/Migration/AddManualMapping" class="inline">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <select name="tableName" aria-label="Source table">
          {session.plans.map((p) => (
            <option value={p.sourceTable}>{p.sourceTable}</option>
          ))}
        </select>
        <input name="sourceId" placeholder="Source id" maxlength={200} required />
        <input name="destId" placeholder="Destination id" maxlength={200} required />
        <button type="submit">Add</button>
      </form>
      <p>
        <a href={`/Migration/Summary?${q(session.id)}`}>Summary</a>
      </p>
    </Layout>
  );
}

export function SummaryPage({ csrf, user, session, pending }: Base & { session: WizardSession; pending: Record<string, number> }) {
  return (
    <Layout title="Summary" csrf={csrf} user={user}>
      <Steps current="RunConfig" sessionId={session.id} />
      <h1>Summary</h1>
      <table class="grid">
        <thead>
          <tr>
            <th>Source table</th>
            <th>Destination</th>
            <th>Columns</th>
            <th>Natural key</th>
            <th>Filter</th>
          </tr>
        </thead>
        <tbody>
          {session.plans.map((p: TablePlan) => (
            <tr>
              <td>{p.sourceTable}</td>
              <td>{p.destTable || '(not copied)'}</td>
              <td>{p.columns.length}</td>
              <td>{(p.naturalKey ?? []).join(', ')}</td>
              <td>{session.filters[p.sourceTable] ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Mappings: {pending.Pending ?? 0} pending, {pending.Confirmed ?? 0} confirmed, {pending.Rejected ?? 0} rejected, {pending.Manual ?? 0} added by hand.
      </p>
      <form method="post" action="/Migration/StartMigration">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <button type="submit">Start migration</button>
      </form>
    </Layout>
  );
}

export function FkPatchPage({ csrf, user, values, result, error }: Base & { values: Record<string, string>; result?: { childDestTable: string; destColumn: string; parentDestTable: string; updated: number; unresolved: number }; error?: string }) {
  return (
    <Layout title="Foreign-key backfill" csrf={csrf} user={user}>
      <h1>Foreign-key backfill</h1>
      <p>Fills a destination foreign-key column from the stored id mappings of the active configuration.</p>
      <Flash message={error} kind="error" />
      {result ? (
        <p class="flash info" data-fk-result>
          {result.childDestTable}.{result.destColumn} → {result.parentDestTable}: {result.updated} rows updated, {result.unresolved} unresolved.
        </p>
      ) : null}
      <form method="post" action="/Migration/FkPatch" class="stack">
        <Csrf token={csrf} />
        {(
          [
            ['childSourceTable', 'Child source table'],
            ['fkSourceColumn', 'Foreign-key source column'],
            ['parentSourceTable', 'Parent source table'],
          ] as const
        ).map(([name, label]) => (
          <p>
            <label for={name}>{label}</label>
            <input id={name} name={name} value={values[name] ?? ''} required maxlength={128} />
          </p>
        ))}
        <button type="submit">Backfill</button>
      </form>
    </Layout>
  );
}
