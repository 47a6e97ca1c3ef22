import type { Tab } from '../params.ts';
import type { RaceCardRunner } from '../queries.ts';
import type { RunnerPageData, Sale, TrialRun } from '../runner-page.ts';
import type { FormStats } from '../stats.ts';
import { Layout } from './layout.tsx';
import { DataTable, FormTabs, jockeyLink, trainerLink } from './form-parts.tsx';

export interface RunnerPageProps {
  data: RunnerPageData & { horse: NonNullable<RunnerPageData['horse']> };
  stats: FormStats;
  sales: Sale[];
  activeTab: Tab;
}

export function RaceRunners({ runners, linkTab }: { runners: RaceCardRunner[]; linkTab?: Tab }) {
  const suffix = linkTab && linkTab !== 'brief' ? `?tab=${linkTab}` : '';
  if (runners.length === 0) return <p>No runners.</p>;
  return (
    <DataTable
      attrs={{ 'data-race-runners': true }}
      rows={runners}
      rowClass={(r) => (r.scratched ? 'scratched' : undefined)}
      columns={[
        { head: 'No.', cell: (r) => r.tab_number },
        {
          head: 'Horse',
          cell: (r) => (
            <>
              <a href={`/form/runner/${r.horse_id}/${suffix}`}>{r.horse_name}</a>
              {r.scratched ? ' (scratched)' : ''}
            </>
          ),
        },
        { head: 'Barrier', cell: (r) => r.barrier },
        { head: 'Jockey', cell: (r) => jockeyLink(r.jockey_id, r.jockey) },
        { head: 'Trainer', cell: (r) => trainerLink(r.trainer_id, r.trainer) },
        { head: 'Weight', cell: (r) => Number(r.weight).toFixed(1) },
        { head: 'SP', cell: (r) => (r.starting_price === null ? '–' : `$${Number(r.starting_price).toFixed(2)}`) },
        { head: 'Result', cell: (r) => r.finishing_position ?? (r.scratched ? 'Scr' : '–') },
      ]}
    />
  );
}

function Toolbar({ data, activeTab }: { data: RunnerPageProps['data']; activeTab: Tab }) {
  return (
    <form class="toolbar" method="get" action={`/form/runner/${data.horse.id}/`} data-toolbar>
      <input type="hidden" name="tab" value={activeTab} />
      <label>
        Date
        <input type="date" name="date" value={data.selected_date ?? ''} data-toolbar-date />
      </label>
      <label>
        Meeting
        <select name="meeting" data-toolbar-meeting>
          <option value="">–</option>
          {data.date_meetings.map((m) => (
            <option value={String(m.meeting_id)} selected={m.meeting_id === data.selected_meeting_id}>
              {m.meeting_name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Race
        <select name="race" data-toolbar-race>
          <option value="">–</option>
          {data.meeting_races.map((r) => (
            <option value={String(r.race_id)} selected={r.race_id === data.selected_race_id}>
              {`R${r.race_number} ${r.race_name} (${r.distance}m, ${r.class_level})`}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

function TrialsTable({ trials }: { trials: TrialRun[] }) {
  if (trials.length === 0) return <p>No barrier trials.</p>;
  return (
    <DataTable
      attrs={{ 'data-trials': true }}
      rows={trials}
      columns={[
        { head: 'Date', cell: (t) => t.date },
        { head: 'Track', cell: (t) => t.course },
        { head: 'Heat', cell: (t) => t.heat_number },
        { head: 'Dist', cell: (t) => `${t.distance}m` },
        { head: 'Jockey', cell: (t) => t.jockey ?? 'TBA' },
        { head: 'Barrier', cell: (t) => t.barrier },
        { head: 'Pos', cell: (t) => t.finishing_position },
        { head: 'Margin', cell: (t) => Number(t.margin).toFixed(2) },
        { head: 'Time', cell: (t) => `${Number(t.time_seconds).toFixed(2)} s` },
      ]}
    />
  );
}

function SalesTable({ sales }: { sales: Sale[] }) {
  if (sales.length === 0) return <p data-sales-empty>No sales records.</p>;
  return (
    <DataTable
      attrs={{ 'data-sales': true }}
      rows={sales}
      columns={[
        { head: 'Date', cell: (s) => s.sale_date },
        { head: 'Sale', cell: (s) => s.sale_name },
        { head: 'Lot', cell: (s) => s.lot },
        { head: 'Price', cell: (s) => `$${s.price.toLocaleString('en-AU')}` },
        { head: 'Vendor', cell: (s) => s.vendor },
        { head: 'Purchaser', cell: (s) => s.purchaser },
      ]}
    />
  );
}

export function RunnerPage({ data, stats, sales, activeTab }: RunnerPageProps) {
  const { horse } = data;
  const params = (tab: Tab) => {
    const q = new URLSearchParams({ tab });
    if (data.selected_date) q.set('date', data.selected_date);
    if (data.selected_race_id) q.set('race', String(data.selected_race_id));
    return `/form/runner/${horse.id}/?${q}`;
  };
  const selectedRace = data.meeting_races.find((r) => r.race_id === data.selected_race_id);
  return (
    <Layout title={horse.name} signedIn>
      <header class="entity">
        <h1 data-horse-name>{horse.name}</h1>
        <p>{`${horse.country} · foaled ${horse.foaling_year} · ${horse.sex} · by ${horse.sire} out of ${horse.dam}`}</p>
      </header>
      <Toolbar data={data} activeTab={activeTab} />
      <FormTabs
        active={activeTab}
        hrefFor={params}
        runs={data.runs}
        stats={stats}
        show="horse"
        detailedExtra={
          <>
            <section aria-labelledby="trials-head">
              <h2 id="trials-head">Barrier trials</h2>
              <TrialsTable trials={data.trial_runs} />
            </section>
            <section aria-labelledby="sales-head">
              <h2 id="sales-head">Sales</h2>
              <SalesTable sales={sales} />
            </section>
          </>
        }
      />
      <section aria-labelledby="race-head" class="race-card" data-selected-race>
        <h2 id="race-head">
          {selectedRace ? `${data.selected_date ?? ''} R${selectedRace.race_number} ${selectedRace.race_name}` : 'Race'}
        </h2>
        {data.meeting_races.length > 0 ? (
          <ol class="race-list">
            {data.meeting_races.map((r) => (
              <li>
                <a
                  href={`/form/runner/${horse.id}/?tab=${activeTab}&date=${data.selected_date ?? ''}&race=${r.race_id}`}
                  aria-current={r.race_id === data.selected_race_id ? 'true' : undefined}
                >
                  {`R${r.race_number} ${r.race_name}`}
                </a>
              </li>
            ))}
          </ol>
        ) : (
          <p>No meeting selected.</p>
        )}
        {selectedRace ? <RaceRunners runners={data.selected_race_runners} linkTab={activeTab} /> : null}
      </section>
    </Layout>
  );
}

/** A horse's page: its runs, stats, sales and race card. */
export const runnerPage = (props: RunnerPageProps) => <RunnerPage {...props} />;
