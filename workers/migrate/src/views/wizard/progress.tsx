import type { LogEntry, RunProgress } from '../../engine/types.ts';
import type { MatchSummary, WizardSession } from '../../wizard-sessions.ts';
import { Csrf, Flash } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, q, WizardPage } from './common.tsx';
import { RejectSummary } from './rejects.tsx';

const ACTIVE = new Set(['queued', 'running', 'cancelling']);

/** Before a run: what to do instead (Progress and Results have nothing to show). */
function NoRun({ session }: { session: WizardSession }) {
  return (
    <p class="flash info" data-no-run>
      This session has not run yet. Start it on the <a href={`/Migration/RunConfig?${q(session.id)}`}>Run</a> step.
    </p>
  );
}

export function ProgressPage({
  csrf,
  user,
  session,
  progress,
  logs,
}: Base & { session: WizardSession; progress: RunProgress | null; logs: LogEntry[] }) {
  if (!session.runId || !progress) {
    return (
      <WizardPage title="Progress" csrf={csrf} user={user} step="Progress" session={session}>
        <h1>Progress</h1>
        <NoRun session={session} />
      </WizardPage>
    );
  }
  const active = ACTIVE.has(progress.state);
  return (
    <WizardPage title="Progress" csrf={csrf} user={user} step="Progress" session={session}>
      <h1>Progress</h1>
      <section data-progress={session.id} data-state={progress.state}>
        <p>
          State: <strong data-run-state>{progress.state}</strong> · <span data-rate>{Math.round(progress.rowsPerSecond)}</span> rows/s · ETA{' '}
          <span data-eta>{progress.etaSeconds != null ? `${Math.round(progress.etaSeconds)} s` : '—'}</span>
        </p>
        <Grid
          scroll="Tables"
          body={{ 'data-tables': true }}
          columns={['Table', 'Progress', 'Rows', 'Inserted', 'Updated', 'Skipped', 'State']}
          rows={progress.tables}
          row={(t) => (
            <tr data-table={t.table}>
              <td>{t.table}</td>
              <td>
                <progress max={Math.max(t.total, 1)} value={t.done} aria-label={`${t.table} progress`}></progress>
              </td>
              <td>
                {t.done} / {t.total}
              </td>
              <td>{t.inserted}</td>
              <td>{t.updated}</td>
              <td>{t.skipped}</td>
              <td>{t.state}</td>
            </tr>
          )}
        />
        <ul class="errors" data-errors>
          {progress.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
        <p class="actions">
          {active ? (
            <button type="button" class="danger" data-cancel={session.id}>
              Cancel
            </button>
          ) : null}
          <a href={`/Migration/Results?${q(session.id)}`} data-results-link>
            Results
          </a>
        </p>
        <h2>Log</h2>
        <ol class="log" data-log tabindex={0} aria-label="Log entries">
          {logs.map((l) => (
            <li class={l.level}>
              {l.timestamp} {l.level} {l.tableName ?? ''} {l.message}
            </li>
          ))}
        </ol>
      </section>
    </WizardPage>
  );
}

const NOTICES: Record<string, (n: string) => string> = {
  fk: (n) => `Foreign keys backfilled: ${n} rows updated.`,
  bool: (n) => `Boolean columns backfilled: ${n} rows updated.`,
  cleared: (n) => `Migration history cleared: ${n} id mappings deleted.`,
  synced: (n) => `${n} id mappings written to config_id_mappings.`,
};

/** What natural-key matching found per table, and which cap stopped it. */
export function MatchSummaries({ summaries }: { summaries: MatchSummary[] }) {
  if (summaries.length === 0) return null;
  return (
    <section data-match-summaries>
      <h2>Natural-key matching</h2>
      <Grid
        scroll="Natural-key matching"
        columns={['Table', 'Already mapped', 'Matched', 'Unmatched (new)', 'Scanned', 'Limit reached']}
        rows={summaries}
        row={(s) => (
          <tr data-match-table={s.sourceTable} data-scan-capped={String(s.scanCapped)} data-match-capped={String(s.matchCapped)}>
            <td>
              {s.sourceTable} → {s.destTable}
            </td>
            <td>{s.alreadyMapped}</td>
            <td>{s.matched}</td>
            <td>{s.unmatched}</td>
            <td>{s.scanned}</td>
            <td>
              {[
                s.scanCapped ? `scan stopped at ${s.scanLimit} source rows` : '',
                s.matchCapped ? `only the first ${s.matchLimit} matches kept for review` : '',
              ]
                .filter(Boolean)
                .join('; ') || 'none'}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export type Mismatches = Record<string, string[]>;

export function ResultsPage({
  csrf,
  user,
  session,
  progress,
  notice,
  count,
  summaries,
  mismatches,
  revalidated,
  rejects,
}: Base & {
  session: WizardSession;
  progress: RunProgress | null;
  notice?: string;
  count?: string;
  summaries: MatchSummary[];
  mismatches?: Mismatches;
  revalidated?: boolean;
  /** Rows the run set aside, per table (absent: not read, e.g. after Validate again). */
  rejects?: { table: string; rejected: number }[] | null;
}) {
  if (!session.runId || !progress) {
    return (
      <WizardPage title="Results" csrf={csrf} user={user} step="Results" session={session}>
        <h1>Results</h1>
        <NoRun session={session} />
        <MatchSummaries summaries={summaries} />
      </WizardPage>
    );
  }
  const message = notice && NOTICES[notice] ? NOTICES[notice](count ?? '0') : undefined;
  const validation = progress.validation;
  const allOk = validation !== null && validation.length > 0 && validation.every((v) => v.ok);
  return (
    <WizardPage title="Results" csrf={csrf} user={user} step="Results" session={session}>
      <h1>Results</h1>
      <Flash message={message} />
      <Flash message={revalidated ? 'Validated again just now.' : undefined} />
      <p>
        Run state: <strong data-run-state>{progress.state}</strong>
      </p>
      {validation ? (
        <>
          <p data-validated={allOk ? 'all' : 'differences'}>
            {allOk ? 'Every table validated: counts and checksums match.' : 'Some tables differ between source and destination.'}
          </p>
          <Grid
            scroll="Validation"
            data={{ 'data-validation': true }}
            columns={[
              'Table',
              'Source rows',
              'Destination rows',
              'Source checksum',
              'Destination checksum',
              'Result',
              'First mismatched keys',
            ]}
            rows={validation}
            row={(v) => (
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
                <td data-mismatched-keys={mismatches?.[v.table]?.join(',') ?? ''}>
                  {v.ok ? '' : mismatches?.[v.table] ? mismatches[v.table]!.join(', ') || 'none found' : 'validate again to list them'}
                </td>
              </tr>
            )}
          />
          {/* Offered after a clean validation too: the destination can change after the run. */}
          <form method="post" action="/Migration/ValidateAgain">
            <Csrf token={csrf} />
            <input type="hidden" name="sessionId" value={session.id} />
            <button type="submit" class={allOk ? 'secondary' : undefined} data-validate-again>
              Validate again
            </button>
          </form>
        </>
      ) : (
        <p>No validation yet (the run has not finished).</p>
      )}
      {progress.errors.length ? (
        <ul class="errors">
          {progress.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      ) : null}
      {rejects !== undefined ? <RejectSummary sessionId={session.id} rejects={rejects} /> : null}
      <MatchSummaries summaries={summaries} />
      <div class="actions">
        {(
          [
            ['BackfillForeignKeys', 'Backfill foreign keys'],
            ['BackfillBooleanColumns', 'Backfill boolean columns'],
            ['SyncIdMappingsToDestination', 'Sync id mappings to destination'],
            ['ClearMigrationHistory', 'Clear migration history'],
          ] as const
        ).map(([action, label]) => (
          <form
            method="post"
            action={`/Migration/${action}`}
            data-confirm={action === 'ClearMigrationHistory' ? 'Delete the id mappings of these tables?' : undefined}
          >
            <Csrf token={csrf} />
            <input type="hidden" name="sessionId" value={session.id} />
            <button type="submit" class={action === 'ClearMigrationHistory' ? 'danger' : 'secondary'}>
              {label}
            </button>
          </form>
        ))}
      </div>
    </WizardPage>
  );
}
