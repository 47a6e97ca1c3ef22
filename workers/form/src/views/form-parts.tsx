import type { Child } from 'hono/jsx';
import type { Tab } from '../params.ts';
import type { Run } from '../runs.ts';
import { type FormStats, type GroupRecord, PREFERRED_RANGE_MIN_STARTS, type RunRecord, STAT_DEFINITIONS } from '../stats.ts';

const GROUPS: { key: keyof FormStats; title: string }[] = [
  { key: 'by_country', title: 'By country' },
  { key: 'by_jockey', title: 'By jockey' },
  { key: 'by_trainer', title: 'By trainer' },
  { key: 'by_distance', title: 'By distance' },
  { key: 'by_track', title: 'By track' },
  { key: 'by_class', title: 'By class' },
  { key: 'by_sot', title: 'By state of track' },
];

function recordText(r: RunRecord): string {
  return `${r.starts}: ${r.wins}-${r.seconds}-${r.thirds}`;
}

function RecordCells({ r }: { r: RunRecord }) {
  return (
    <>
      <td>{r.starts}</td>
      <td>{r.wins}</td>
      <td>{r.seconds}</td>
      <td>{r.thirds}</td>
      <td>{r.win_pct.toFixed(1)}</td>
      <td>{r.place_pct.toFixed(1)}</td>
    </>
  );
}

const RECORD_HEADS = ['Starts', 'Wins', '2nds', '3rds', 'Win %', 'Place %'];

function GroupTable({ title, id, groups }: { title: string; id: string; groups: GroupRecord[] }) {
  return (
    <div class="table-wrap" data-stat-group={id} role="region" aria-label={title} tabindex={0}>
      <table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{title.replace(/^By /, '')}</th>
            {RECORD_HEADS.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.length === 0 ? (
            <tr>
              <td colspan={7}>No runs with a result.</td>
            </tr>
          ) : (
            groups.map((g) => (
              <tr>
                <th scope="row">{g.key}</th>
                <RecordCells r={g} />
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

function StatsSummary({ stats }: { stats: FormStats }) {
  const pref = stats.preferred_range;
  return (
    <dl class="summary" data-stats-summary>
      <div>
        <dt>Career</dt>
        <dd data-stat="career">
          {recordText(stats.career)} · win {stats.career.win_pct.toFixed(1)}% · place {stats.career.place_pct.toFixed(1)}%
        </dd>
      </div>
      <div>
        <dt>Last 5</dt>
        <dd data-stat="last5">{stats.last5.figures || '–'}</dd>
      </div>
      <div>
        <dt>Preferred range</dt>
        <dd data-stat="preferred_range">
          {pref
            ? `${pref.key} (${recordText(pref)}, win ${pref.win_pct.toFixed(1)}%)`
            : `none yet (needs ${PREFERRED_RANGE_MIN_STARTS} starts in a range)`}
        </dd>
      </div>
      <div>
        <dt>Consecutive wins</dt>
        <dd data-stat="consecutive_wins">
          current {stats.consecutive_wins.current}, longest {stats.consecutive_wins.longest}
        </dd>
      </div>
    </dl>
  );
}

function StatsDetail({ stats }: { stats: FormStats }) {
  return (
    <section aria-labelledby="stats-head">
      <h2 id="stats-head">Statistics</h2>
      <StatsSummary stats={stats} />
      {GROUPS.map(({ key, title }) => (
        <GroupTable title={title} id={key} groups={stats[key] as GroupRecord[]} />
      ))}
      <StatDefinitions />
    </section>
  );
}

function StatDefinitions() {
  return (
    <details class="defs">
      <summary>How these statistics are worked out</summary>
      <dl>
        {Object.entries(STAT_DEFINITIONS).map(([name, text]) => (
          <>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>{text}</dd>
          </>
        ))}
      </dl>
    </details>
  );
}

function position(run: Run): string {
  return run.finishing_position === null ? 'Accepted' : `${run.finishing_position}/${run.field_size}`;
}

const money = (n: number | null) => (n === null ? '–' : `$${n.toFixed(2)}`);

interface Column<T> {
  head: string;
  cell: (row: T) => Child;
}

/** A table in its own scrolling box: one header cell and one cell per row for each column. */
export function DataTable<T>({
  attrs,
  caption,
  columns,
  rows,
  rowClass,
  empty,
}: {
  /** The table element's attributes (class, the data-* hooks of the script and tests). */
  attrs: Record<string, string | boolean>;
  caption?: string;
  columns: Column<T>[];
  rows: T[];
  rowClass?: (row: T) => string | undefined;
  /** The body when there are no rows. */
  empty?: Child;
}) {
  return (
    <div class="table-wrap" role="region" aria-label={caption ?? 'Table'} tabindex={0}>
      <table {...attrs}>
        {caption === undefined ? null : <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((col) => (
              <th scope="col">{col.head}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && empty !== undefined
            ? empty
            : rows.map((row) => (
                <tr class={rowClass?.(row)}>
                  {columns.map((col) => (
                    <td>{col.cell(row)}</td>
                  ))}
                </tr>
              ))}
        </tbody>
      </table>
    </div>
  );
}

export const jockeyLink = (id: number | null, name: string | null) => (id ? <a href={`/form/jockey/${id}/`}>{name}</a> : 'TBA');
export const trainerLink = (id: number, name: string) => <a href={`/form/trainer/${id}/`}>{name}</a>;

/** Runs as a table: brief shows the essentials, detailed every field. */
function RunsTable({ runs, detailed, show }: { runs: Run[]; detailed: boolean; show: 'horse' | 'jockey' | 'trainer' }) {
  const columns: (Column<Run> & { when?: boolean })[] = [
    { head: 'Date', cell: (run) => <a href={`/form/guide/?date=${run.date}&race=${run.race_id}`}>{run.date}</a> },
    { head: 'Track', cell: (run) => run.course },
    { head: 'Race', cell: (run) => `R${run.race_number}` },
    { head: 'Dist', cell: (run) => `${run.distance}m` },
    { head: 'Class', cell: (run) => run.class_level },
    { head: 'Horse', when: show !== 'horse', cell: (run) => <a href={`/form/runner/${run.horse_id}/`}>{run.horse}</a> },
    { head: 'Pos', cell: position },
    { head: 'Jockey', when: show !== 'jockey', cell: (run) => jockeyLink(run.jockey_id, run.jockey) },
    { head: 'Trainer', when: detailed && show !== 'trainer', cell: (run) => trainerLink(run.trainer_id, run.trainer) },
    { head: 'SP', cell: (run) => money(run.starting_price) },
    { head: 'Barrier', when: detailed, cell: (run) => run.barrier },
    { head: 'Weight', when: detailed, cell: (run) => `${run.weight.toFixed(1)} kg` },
    { head: 'Margin', when: detailed, cell: (run) => (run.margin === null ? '–' : `${run.margin.toFixed(2)} L`) },
    { head: 'Track cond.', when: detailed, cell: (run) => run.track_condition },
    { head: 'L600', when: detailed, cell: (run) => (run.last_600 === null ? '–' : `${run.last_600.toFixed(2)} s`) },
  ];
  return (
    <DataTable
      attrs={{ class: 'runs', 'data-runs': true }}
      caption={`Runs (${runs.length}, latest first)`}
      columns={columns.filter((col) => col.when !== false)}
      rows={runs}
      empty={
        <tr>
          <td colspan={14}>No runs recorded.</td>
        </tr>
      }
    />
  );
}

/** Brief/detailed tabs: links that work without script; the script switches panels in place. */
function Tabs({ active, hrefFor, brief, detailed }: { active: Tab; hrefFor: (tab: Tab) => string; brief: Child; detailed: Child }) {
  const tabs: { id: Tab; label: string; body: Child }[] = [
    { id: 'brief', label: 'Brief', body: brief },
    { id: 'detailed', label: 'Detailed', body: detailed },
  ];
  return (
    <div class="tabs" data-tabs>
      <div role="tablist" aria-label="Form view">
        {tabs.map((t) => (
          <a
            role="tab"
            id={`tab-${t.id}`}
            href={hrefFor(t.id)}
            aria-selected={t.id === active ? 'true' : 'false'}
            aria-controls={`panel-${t.id}`}
            tabindex={t.id === active ? 0 : -1}
            data-tab={t.id}
          >
            {t.label}
          </a>
        ))}
      </div>
      {/* Only the active panel is rendered; the script fetches the other on first use. */}
      {tabs.map((t) =>
        t.id === active ? (
          <section role="tabpanel" id={`panel-${t.id}`} aria-labelledby={`tab-${t.id}`} data-panel={t.id}>
            {t.body}
          </section>
        ) : (
          <section
            role="tabpanel"
            id={`panel-${t.id}`}
            aria-labelledby={`tab-${t.id}`}
            hidden
            data-panel={t.id}
            data-src={hrefFor(t.id)}
          ></section>
        ),
      )}
    </div>
  );
}

/** A form page's tabs: brief (summary, runs, definitions) and detailed (runs, every statistic, then `detailedExtra`). */
export function FormTabs({
  active,
  hrefFor,
  runs,
  stats,
  show,
  detailedExtra,
}: {
  active: Tab;
  hrefFor: (tab: Tab) => string;
  runs: Run[];
  stats: FormStats;
  show: 'horse' | 'jockey' | 'trainer';
  detailedExtra?: Child;
}) {
  return (
    <Tabs
      active={active}
      hrefFor={hrefFor}
      brief={
        <>
          <StatsSummary stats={stats} />
          <RunsTable runs={runs} detailed={false} show={show} />
          <StatDefinitions />
        </>
      }
      detailed={
        <>
          <RunsTable runs={runs} detailed show={show} />
          <StatsDetail stats={stats} />
          {detailedExtra}
        </>
      }
    />
  );
}
