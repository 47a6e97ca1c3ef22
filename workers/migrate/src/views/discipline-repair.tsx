import type { ConfigurationView } from '../configurations.ts';
import type { SessionUser } from '../context.ts';
import {
  type DisciplineDifference,
  PREVIEW_LIMIT,
  type RepairJobRow,
  type RepairPreview,
  type RepairProgress,
  TERMINAL_REPAIR_STATES,
} from '../discipline-repair.ts';
import { Grid } from './grid.tsx';
import { asset, CancelJobForm, Csrf, JobLogList, Layout } from './layout.tsx';

const when = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
const canWrite = (user: SessionUser) => user.role !== 'Viewer';
const RepairScript = () => <script src={asset('/static/discipline-repair.js')} defer />;

type Base = { csrf: string; user: SessionUser };

/** The columns both lists of races start with: the preview's and the job's changes. */
const RACE_COLUMNS = ['Race', 'Meeting', 'Race no.'] as const;

/** A race of either list: which race, then its discipline before and after. */
const RaceChangeCells = ({ race }: { race: DisciplineDifference }) => (
  <>
    <td>{race.raceId}</td>
    <td>{race.meeting}</td>
    <td>{race.raceNumber}</td>
    <td>{race.from}</td>
    <td>{race.to}</td>
  </>
);

export function DisciplineRepairIndexPage({
  csrf,
  user,
  configuration,
  preview,
  previewError,
  jobs,
}: Base & { configuration: ConfigurationView | null; preview: RepairPreview | null; previewError?: string; jobs: RepairJobRow[] }) {
  return (
    <Layout title="Discipline repair" csrf={csrf} user={user}>
      <h1>Discipline repair</h1>
      <p>
        Sets the discipline (<code>race_type</code>: Flat, Hurdle or Steeplechase) of destination races to their source counterpart's (
        <code>discipline_code</code> F, H or S of the active configuration's database). Races are paired as the meetings comparison pairs
        them: meetings by id mapping, else date and course; races by id mapping, else race number. Races without a counterpart are left
        alone and counted. The job reads the source a few racing days at a time, in date order, and changes each wrong race with one guarded
        update, so running it again changes nothing twice.
      </p>
      {!configuration ? (
        <p class="field-error" data-no-configuration>
          There is no active configuration: create one and set it active first.
        </p>
      ) : (
        <>
          <p class="muted">
            Source: <strong>{configuration.name}</strong> ({configuration.host}:{configuration.port}/{configuration.database})
          </p>
          <h2>What it would change now</h2>
          {previewError ? <p class="field-error">{previewError}</p> : null}
          {preview ? (
            <section data-preview data-preview-count={String(preview.count)}>
              <p>
                <strong data-preview-total>{preview.count}</strong> destination race{preview.count === 1 ? '' : 's'} with another discipline
                than the source
                {preview.complete
                  ? ''
                  : ` in the first ${preview.daysScanned} of ${preview.totalDays} racing days (the preview stopped there; the job reads them all)`}
                .{preview.count > preview.races.length ? ` The first ${PREVIEW_LIMIT} are listed.` : ''}
              </p>
              {preview.races.length ? (
                <Grid
                  columns={[...RACE_COLUMNS, 'Now', 'Source', 'Paired by']}
                  rows={preview.races}
                  row={(r) => (
                    <tr data-preview-race={String(r.raceId)}>
                      <RaceChangeCells race={r} />
                      <td>{r.pairedBy}</td>
                    </tr>
                  )}
                />
              ) : null}
            </section>
          ) : null}
          {canWrite(user) ? (
            <form method="post" action="/DisciplineRepair/Start">
              <Csrf token={csrf} />
              <button type="submit" data-start>
                Start repair
              </button>
            </form>
          ) : null}
        </>
      )}
      <h2>Recent repair jobs</h2>
      <Grid
        empty="No repair jobs yet."
        data={{ 'data-repair-jobs': true }}
        columns={['Job', 'Started by', 'Created', 'State', 'Changed']}
        rows={jobs}
        row={(job) => (
          <tr data-repair-job={job.jobId}>
            <td>
              <a href={`/DisciplineRepair/Progress?jobId=${job.jobId}`}>{job.jobId}</a>
            </td>
            <td>{job.startedBy}</td>
            <td>{when(job.createdAt)}</td>
            <td>{job.state}</td>
            <td>{job.changed}</td>
          </tr>
        )}
      />
    </Layout>
  );
}

export function DisciplineRepairProgressPage({ csrf, user, progress, startedBy }: Base & { progress: RepairProgress; startedBy: string }) {
  const finished = TERMINAL_REPAIR_STATES.includes(progress.state);
  return (
    <Layout title="Discipline repair progress" csrf={csrf} user={user}>
      <RepairScript />
      <h1>Discipline repair</h1>
      <section data-repair-progress={progress.jobId} data-state={progress.state}>
        <p>
          Job <code>{progress.jobId}</code>
          {startedBy ? ` started by ${startedBy}` : ''} · source {progress.summary.configuration}
        </p>
        <p>
          State: <strong data-repair-state>{progress.state}</strong> · <span data-checked>{progress.checked}</span> /{' '}
          <span data-total>{progress.total}</span> source races checked · <span data-changed>{progress.changed}</span> destination races
          changed
        </p>
        <progress data-bar max={Math.max(progress.total, 1)} value={progress.checked}></progress>
        <dl class="stats" data-summary>
          {(
            [
              ['pairedRaces', 'paired races'],
              ['sourceRacesWithoutCounterpart', 'source races without a counterpart'],
              ['destinationRacesWithoutCounterpart', 'destination races without a counterpart'],
              ['unknownCodes', 'unknown source codes'],
              ['alreadyRepaired', 'already right when updated'],
            ] as const
          ).map(([key, label]) => (
            <>
              <dt>{label}</dt>
              <dd data-count={key}>{progress.summary[key]}</dd>
            </>
          ))}
        </dl>
        {canWrite(user) && !finished ? <CancelJobForm action="/DisciplineRepair/Cancel" jobId={progress.jobId} csrf={csrf} /> : null}
        <h2>Changes</h2>
        <Grid
          body={{ 'data-changes': true }}
          columns={[...RACE_COLUMNS, 'From', 'To']}
          rows={progress.summary.changes}
          row={(change) => (
            <tr>
              <RaceChangeCells race={change} />
            </tr>
          )}
        />
        <JobLogList entries={progress.log} />
        <p>
          <a href="/DisciplineRepair">Back to the discipline repair</a>
        </p>
      </section>
    </Layout>
  );
}
