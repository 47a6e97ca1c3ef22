import type { GuideMeeting, RaceCardRunner } from '../queries.ts';
import { Layout } from './layout.tsx';
import { RaceRunners } from './runner.tsx';

export interface GuideProps {
  selected_date: string;
  selected_country: string | undefined;
  dates: string[];
  countries: string[];
  meetings: GuideMeeting[];
  selected_race_id: number | undefined;
  selected_race_number: number | undefined;
  selected_race_name: string | undefined;
  runners: RaceCardRunner[];
}

function guideHref(date: string, country?: string, race?: number): string {
  const q = new URLSearchParams({ date });
  if (country) q.set('country', country);
  if (race) q.set('race', String(race));
  return `/form/guide/?${q}`;
}

const weekday = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-AU', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

export function GuidePage(p: GuideProps) {
  return (
    <Layout title={`Form guide ${p.selected_date}`} signedIn>
      <div data-guide data-swap-root>
        <h1>Form guide</h1>
        <nav aria-label="Race dates" class="date-strip">
          <ul>
            {p.dates.map((d) => (
              <li>
                <a href={guideHref(d, p.selected_country)} aria-current={d === p.selected_date ? 'date' : undefined} data-swap>
                  {weekday(d)}
                </a>
              </li>
            ))}
          </ul>
          <form method="get" action="/form/guide/" class="date-pick">
            <label>
              Date <input type="date" name="date" value={p.selected_date} />
            </label>
            {p.selected_country ? <input type="hidden" name="country" value={p.selected_country} /> : null}
            <button type="submit">Go</button>
          </form>
        </nav>
        <nav aria-label="Country" class="countries">
          <a href={guideHref(p.selected_date)} aria-current={p.selected_country ? undefined : 'page'} data-swap>
            All
          </a>
          {p.countries.map((c) => (
            <a href={guideHref(p.selected_date, c)} aria-current={c === p.selected_country ? 'page' : undefined} data-swap>
              {c}
            </a>
          ))}
        </nav>
        <div class="guide-body">
          <section aria-labelledby="meetings-head" class="meetings">
            <h2 id="meetings-head">{`Meetings on ${p.selected_date}`}</h2>
            {p.meetings.length === 0 ? <p>No meetings on this date.</p> : null}
            {p.meetings.map((m) => (
              <article class="meeting" data-meeting={m.meeting_id}>
                <h3>{`${m.meeting_name} (${m.state ?? m.country}) · ${m.track_condition}`}</h3>
                <ol>
                  {m.races.map((r) => (
                    <li>
                      <a
                        href={guideHref(p.selected_date, p.selected_country, r.race_id)}
                        aria-current={r.race_id === p.selected_race_id ? 'true' : undefined}
                        data-swap
                        data-race-link={r.race_id}
                      >
                        {`R${r.race_number} ${r.race_name}`}
                      </a>
                      <span class="meta">{` ${r.distance}m · ${r.class_level}`}</span>
                    </li>
                  ))}
                </ol>
              </article>
            ))}
          </section>
          <section aria-labelledby="runners-head" class="runners" data-guide-runners>
            {p.selected_race_id !== undefined && p.selected_race_name !== undefined ? (
              <>
                <h2 id="runners-head">{`R${p.selected_race_number} ${p.selected_race_name}`}</h2>
                <RaceRunners runners={p.runners} />
              </>
            ) : (
              <>
                <h2 id="runners-head">Runners</h2>
                <p>{p.selected_race_id !== undefined ? `Race ${p.selected_race_id} was not found.` : 'Pick a race to see its runners.'}</p>
              </>
            )}
          </section>
        </div>
      </div>
    </Layout>
  );
}

/** The form guide: a day's meetings, and a race's runners when one is chosen. */
export const guidePage = (props: GuideProps) => <GuidePage {...props} />;
