import type { Tab } from '../params';
import type { RaceCardRunner, RunnerPageData, Sale, TrialRun } from '../queries';
import type { FormStats } from '../stats';
import { Layout } from './layout';
import { RunsTable, StatDefinitions, StatsDetail, StatsSummary, Tabs } from './form-parts';

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
    <div class="table-wrap">
      <table data-race-runners>
        <thead>
          <tr>
            <th scope="col">No.</th>
            <th scope="col">Horse</th>
            <th scope="col">Barrier</th>
            <th scope="col">Jockey</th>
            <th scope="col">Trainer</th>
            <th scope="col">Weight</th>
            <th scope="col">SP</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {runners.map((r) => (
            <tr class={r.scratched ? 'scratched' : undefined}>
              <td>{r.tab_number}</td>
              <td>
                <a href={`/form/runner/${r.horse_id}/${suffix}`}>{r.horse_name}</a>
                {r.scratched ? ' (scratched)' : ''}
              </td>
              <td>{r.barrier}</td>
              <td>{r.jockey_id ? <a href={`/form/jockey/${r.jockey_id}/`}>{r.jockey}</a> : 'TBA'}</td>
              <td>
                <a href={`/form/trainer/${r.trainer_id}/`}>{r.trainer}</a>
              </td>
              <td>{Number(r.weight).toFixed(1)}</td>
              <td>{r.starting_price === null ? '–' : `$${Number(r.starting_price).toFixed(2)}`}</td>
              <td>{r.finishing_position ?? (r.scratched ? 'Scr' : '–')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
    <div class="table-wrap">
      <table data-trials>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Track</th>
            <th scope="col">Heat</th>
            <th scope="col">Dist</th>
            <th scope="col">Jockey</th>
            <th scope="col">Barrier</th>
            <th scope="col">Pos</th>
            <th scope="col">Margin</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {trials.map((t) => (
            <tr>
              <td>{t.date}</td>
              <td>{t.course}</td>
              <td>{t.heat_number}</td>
              <td>{`${t.distance}m`}</td>
              <td>{t.jockey ?? 'TBA'}</td>
              <td>{t.barrier}</td>
              <td>{t.finishing_position}</td>
              <td>{Number(t.margin).toFixed(2)}</td>
              <td>{`${Number(t.time_seconds).toFixed(2)} s`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SalesTable({ sales }: { sales: Sale[] }) {
  if (sales.length === 0) return <p data-sales-empty>No sales records.</p>;
  return (
    <div class="table-wrap">
      <table data-sales>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Sale</th>
            <th scope="col">Lot</th>
            <th scope="col">Price</th>
            <th scope="col">Vendor</th>
            <th scope="col">Purchaser</th>
          </tr>
        </thead>
        <tbody>
          {sales.map((s) => (
            <tr>
              <td>{s.sale_date}</td>
              <td>{s.sale_name}</td>
              <td>{s.lot}</td>
              <td>{`$${s.price.toLocaleString('en-AU')}`}</td>
              <td>{s.vendor}</td>
              <td>{s.purchaser}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
        <p>
          {`${horse.country} · foaled ${horse.foaling_year} · ${horse.sex} · by ${horse.sire} out of ${horse.dam}`}
        </p>
      </header>
      <Toolbar data={data} activeTab={activeTab} />
      <Tabs
        active={activeTab}
        hrefFor={params}
        brief={
          <>
            <StatsSummary stats={stats} />
            <RunsTable runs={data.runs} detailed={false} show="horse" />
            <StatDefinitions />
          </>
        }
        detailed={
          <>
            <RunsTable runs={data.runs} detailed show="horse" />
            <StatsDetail stats={stats} />
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
          {selectedRace
            ? `${data.selected_date ?? ''} R${selectedRace.race_number} ${selectedRace.race_name}`
            : 'Race'}
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
