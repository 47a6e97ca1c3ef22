import { DEFAULT_PARALLEL_TABLES, MAX_PARALLEL_TABLES } from '../../engine/parallel.ts';
import { DEFAULT_REJECT_LIMIT, MAX_REJECT_LIMIT } from '../../engine/rejects.ts';
import type { ForeignKey, PlanIssue, SchemaInfo, TablePlan } from '../../engine/types.ts';
import type { DuplicateRisk } from '../../wizard-suggestions.ts';
import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf, Flash } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, WholeNumberField, WizardPage } from './common.tsx';
import { DryRunForm } from './dry-run.tsx';
import { FilterFields } from './filters.tsx';

/** The duplicate warning and the confirmation Start needs while it stands. */
export function DuplicateWarning({ risks }: { risks: DuplicateRisk[] }) {
  if (risks.length === 0) return null;
  return (
    <section class="warning" role="alert" data-duplicate-risk>
      <h2>Rows may be inserted twice</h2>
      <ul>
        {risks.map((r) => (
          <li data-risk-table={r.destTable} data-rows-at-risk={String(r.rowsAtRisk)}>
            {r.sourceTable} → {r.destTable}: no natural key, and {r.destTable} already holds {r.destRows} rows. Estimate: up to{' '}
            {r.rowsAtRisk} of the {r.sourceRows} source rows would be inserted again ({r.mapped} are already in the id mappings). Choose a
            natural key on the Relationships step, or confirm below.
          </li>
        ))}
      </ul>
      <label class="check">
        <input type="checkbox" name="confirmDuplicates" value="true" form="start-form" /> I understand: insert these rows as new rows
      </label>
    </section>
  );
}

/** The whole-number settings of the start form, as the run's plan takes them (the session keeps the last ones posted). */
const RUN_SETTINGS = [
  {
    name: 'rejectLimit',
    label: 'Reject threshold: rows that may be set aside (their cast or a constraint failed) before the run fails',
    min: 0,
    max: MAX_REJECT_LIMIT,
    fallback: DEFAULT_REJECT_LIMIT,
  },
  {
    name: 'parallelTables',
    label:
      'Tables copied at the same time (tables with no foreign key between them; a table still waits for the tables its foreign keys point at)',
    min: 1,
    max: MAX_PARALLEL_TABLES,
    fallback: DEFAULT_PARALLEL_TABLES,
  },
] as const;

export type RunTable = { plan: TablePlan; rows: number | null };

export function RunConfigPage({
  csrf,
  user,
  session,
  order,
  deferred,
  issues,
  errors,
  risks,
  tables,
  source,
  fks,
  error,
}: Base & {
  session: WizardSession;
  order: string[];
  deferred: ForeignKey[];
  issues: PlanIssue[];
  errors: Record<string, string>;
  risks: DuplicateRisk[];
  tables: RunTable[];
  source: SchemaInfo;
  fks: ForeignKey[];
  error?: string;
}) {
  const blocking = issues.filter((i) => i.level === 'error');
  const byDest = new Map(tables.map((t) => [t.plan.destTable, t]));
  const ordered = order.map((d) => byDest.get(d)).filter((t): t is RunTable => t !== undefined);
  const unmappedTables = session.plans.filter((p) => !p.destTable);
  return (
    <WizardPage title="Run" csrf={csrf} user={user} step="RunConfig" session={session}>
      <h1>Run summary</h1>
      <Flash message={error} kind="error" />
      <h2>Tables in run order (parents first)</h2>
      <ol data-run-order>
        {order.map((t) => (
          <li>{t}</li>
        ))}
      </ol>
      <Grid
        scroll="What the run copies"
        data={{ 'data-run-summary': true }}
        columns={['Source → destination', 'Rows after the row filter', 'Mapped columns', 'Not copied', 'Natural key', 'Foreign keys']}
        rows={ordered}
        row={({ plan, rows }) => {
          const columns = source.tables.find((t) => t.name === plan.sourceTable)?.columns ?? [];
          const unmapped = columns.filter(
            (c) => !plan.columns.some((m) => m.source === c.ColumnName) && !plan.sourceKey.includes(c.ColumnName),
          );
          const tableFks = fks.filter((fk) => fk.childTable === plan.destTable);
          return (
            <tr data-table={plan.destTable}>
              <td>
                {plan.sourceTable} → {plan.destTable}
              </td>
              <td data-estimated-rows={rows === null ? '' : String(rows)}>
                {rows === null ? 'unknown' : rows}
                {session.filters[plan.sourceTable] ? <span class="muted"> (filtered)</span> : null}
              </td>
              <td>{plan.columns.map((c) => `${c.source} → ${c.dest}`).join(', ') || 'none'}</td>
              <td>{unmapped.map((c) => c.ColumnName).join(', ') || 'none'}</td>
              <td data-natural-key={(plan.naturalKey ?? []).join(',')}>{plan.naturalKey?.length ? plan.naturalKey.join(' + ') : 'none'}</td>
              <td>{tableFks.map((fk) => `${fk.childColumn} → ${fk.parentTable}`).join(', ') || 'none'}</td>
            </tr>
          );
        }}
      />
      {unmappedTables.length ? (
        <p class="muted">Not copied (no destination table): {unmappedTables.map((p) => p.sourceTable).join(', ')}.</p>
      ) : null}
      {deferred.length ? (
        <p>Copied empty and filled in afterwards (cycle): {deferred.map((fk) => `${fk.childTable}.${fk.childColumn}`).join(', ')}</p>
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
      <DuplicateWarning risks={risks} />
      <form method="post" action="/Migration/RunConfig" class="stack" id="start-form">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <h2>Row filters</h2>
        <FilterFields session={session} errors={errors} />
        <label class="check">
          <input type="checkbox" name="patchMode" value="true" checked={session.patchMode} /> Patch mode: update rows that already exist
          (matched by id mapping or natural key) instead of skipping them
        </label>
        {RUN_SETTINGS.map((setting) => (
          <WholeNumberField
            label={setting.label}
            name={setting.name}
            min={setting.min}
            max={setting.max}
            value={session[setting.name] ?? setting.fallback}
          />
        ))}
        <button type="submit" disabled={blocking.length > 0}>
          Start migration
        </button>
      </form>
      <DryRunForm csrf={csrf} session={session} disabled={blocking.length > 0} />
    </WizardPage>
  );
}

export function SummaryPage({
  csrf,
  user,
  session,
  pending,
  risks,
  error,
}: Base & { session: WizardSession; pending: Record<string, number>; risks: DuplicateRisk[]; error?: string }) {
  return (
    <WizardPage title="Summary" csrf={csrf} user={user} step="RunConfig" session={session}>
      <h1>Summary</h1>
      <Flash message={error} kind="error" />
      <Grid
        scroll="Plans"
        columns={['Source table', 'Destination', 'Columns', 'Natural key', 'Row filter']}
        rows={session.plans}
        row={(p: TablePlan) => (
          <tr>
            <td>{p.sourceTable}</td>
            <td>{p.destTable || '(not copied)'}</td>
            <td>{p.columns.length}</td>
            <td>{(p.naturalKey ?? []).join(', ')}</td>
            <td>{session.filters[p.sourceTable] ?? ''}</td>
          </tr>
        )}
      />
      <p>
        Mappings: {pending.Pending ?? 0} pending, {pending.Confirmed ?? 0} confirmed, {pending.Rejected ?? 0} rejected,{' '}
        {pending.Manual ?? 0} added by hand.
      </p>
      <DuplicateWarning risks={risks} />
      <form method="post" action="/Migration/StartMigration" id="start-form">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <button type="submit">Start migration</button>
      </form>
    </WizardPage>
  );
}
