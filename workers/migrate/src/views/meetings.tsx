import type { ConfigurationView } from '../configurations.ts';
import type { SessionUser } from '../context.ts';
import type { FieldComparison, MeetingPair, Value } from '../meetings.ts';
import { Grid } from './grid.tsx';
import { asset, Layout } from './layout.tsx';

/** Labels of the compared fields (the JSON routes name them by these keys). */
export const FIELD_LABELS: Record<string, string> = {
  date: 'Date',
  venue: 'Venue',
  state: 'State',
  trackCondition: 'Track condition',
  trackRating: 'Track rating',
  isTrial: 'Barrier trial',
  races: 'Races',
  runners: 'Runners',
  trialRuns: 'Trial runs',
};

export const shown = (value: Value) => (value === null ? '—' : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value));

const Source = ({ configuration }: { configuration: ConfigurationView }) => (
  <p class="muted">
    Source: <strong>{configuration.name}</strong> ({configuration.host}:{configuration.port}/{configuration.database}); destination: the
    racing database.
  </p>
);

const Lookup = ({ rsId, qdgId }: { rsId?: number; qdgId?: number }) => (
  <form method="get" action="/Meetings" class="inline" data-meeting-lookup>
    <label>
      Source meeting <input name="rsId" inputmode="numeric" pattern="[0-9]*" value={rsId === undefined ? '' : String(rsId)} required />
    </label>
    <label>
      Destination meeting{' '}
      <input name="qdgId" inputmode="numeric" pattern="[0-9]*" value={qdgId === undefined ? '' : String(qdgId)} placeholder="its match" />
    </label>
    <button type="submit">Compare</button>
  </form>
);

export function MeetingListPage({
  csrf,
  user,
  configuration,
  listing,
}: {
  csrf: string;
  user: SessionUser;
  configuration: ConfigurationView;
  listing: { from: string; to: string; limit: number; pairs: MeetingPair[] };
}) {
  return (
    <Layout title="Meetings" csrf={csrf} user={user}>
      <link rel="stylesheet" href={asset('/static/meetings.css')} />
      <h1>Meetings: source and destination</h1>
      <Source configuration={configuration} />
      <Lookup />
      <p>
        Source meetings from {listing.from} to {listing.to}, newest first
        {listing.pairs.length >= listing.limit ? ` (the first ${listing.limit})` : ''}, each beside its destination meeting.
      </p>
      <Grid
        data={{ 'data-meetings': true }}
        columns={['Date', 'Venue', 'Source meeting', 'Races', 'Destination meeting', 'Comparison']}
        rows={listing.pairs}
        row={(pair) => (
          <tr
            data-rs-meeting={String(pair.source.id)}
            data-qdg-meeting={pair.destination ? String(pair.destination.id) : ''}
            data-status={pair.destination ? (pair.differs ? 'differs' : 'same') : 'source only'}
            class={pair.differs ? 'differs' : ''}
          >
            <td>{pair.source.date ?? pair.source.rawDate}</td>
            <td>
              {pair.source.venue ?? '—'} {pair.source.venueCode ? <span class="muted">({pair.source.venueCode})</span> : null}
            </td>
            <td>
              <a href={`/Meetings?rsId=${pair.source.id}`}>{pair.source.id}</a>
            </td>
            <td>{pair.source.races}</td>
            <td>{pair.destination ? `${pair.destination.id} (${pair.matchedBy})` : <em>not in destination</em>}</td>
            <td>
              {!pair.destination ? 'source only' : pair.differs ? `${pair.fields.filter((f) => !f.same).length} field(s) differ` : 'same'}
            </td>
          </tr>
        )}
      />
      {listing.pairs.length === 0 ? <p class="muted">The source has no meetings in these days.</p> : null}
    </Layout>
  );
}

const FieldTable = ({ fields }: { fields: FieldComparison[] }) => (
  <table class="grid compare" data-fields>
    <thead>
      <tr>
        <th>Field</th>
        <th>Source</th>
        <th>Destination</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      {fields.map((f) => (
        <tr data-field={f.name} data-same={String(f.same)} class={f.same ? '' : 'differs'}>
          <th scope="row">{FIELD_LABELS[f.name] ?? f.name}</th>
          <td>{shown(f.source)}</td>
          <td>{shown(f.destination)}</td>
          <td>{f.same ? 'same' : 'differs'}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

export function MeetingPairPage({
  csrf,
  user,
  configuration,
  pair,
  namedDestination,
}: {
  csrf: string;
  user: SessionUser;
  configuration: ConfigurationView;
  pair: MeetingPair;
  namedDestination: boolean;
}) {
  const { source, destination } = pair;
  const title = `Meeting ${source.id}: ${source.venue ?? 'unknown venue'}, ${source.date ?? source.rawDate}`;
  return (
    <Layout title={title} csrf={csrf} user={user}>
      <link rel="stylesheet" href={asset('/static/meetings.css')} />
      <p>
        <a href="/Meetings">All recent meetings</a>
      </p>
      <h1>{title}</h1>
      <Source configuration={configuration} />
      <Lookup rsId={source.id} qdgId={namedDestination ? destination?.id : undefined} />
      <p data-match={destination ? 'matched' : 'source only'}>
        {destination ? (
          <>
            Source meeting <strong>{source.id}</strong> (venue code {source.venueCode ?? '—'}, date text {source.rawDate}) beside
            destination meeting <strong>{destination.id}</strong>{' '}
            {namedDestination ? '(named in the request)' : `(matched by ${pair.matchedBy})`}:{' '}
            {pair.differs ? `${pair.fields.filter((f) => !f.same).length} field(s) differ.` : 'no differences.'}
          </>
        ) : (
          <>
            Source meeting <strong>{source.id}</strong> is <strong>not in the destination</strong>: no id mapping names it and the
            destination has no meeting at {source.venue ?? 'its venue'} on {source.date ?? source.rawDate}.
          </>
        )}
      </p>
      <FieldTable fields={pair.fields} />
      <section
        data-races
        data-rs-meeting={String(source.id)}
        data-qdg-meeting={namedDestination && destination ? String(destination.id) : ''}
      >
        <h2>Races</h2>
        <p data-races-state class="muted">
          Loading the races…
        </p>
        <div data-races-list></div>
      </section>
      <script src={asset('/static/meetings.js')} defer />
    </Layout>
  );
}
