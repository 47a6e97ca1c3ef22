import { HttpError } from '#shared/http-error.ts';
import { asDatabaseUnavailable } from '#shared/pg-errors.ts';
import type { ConfigurationView } from './configurations.ts';
import type { Reader, Row } from './engine/db.ts';
import { mappedId } from './engine/mappings.ts';

// The meetings comparison: a meeting of the source (the legacy racing system behind the active
// configuration: race_meeting, race_event, race_entry, venue, horse, jockey, trainer, trial_result)
// beside its counterpart in the destination (the racing database), field by field. Source values
// go through the legacy system's transforms first (DD/MM/YYYY dates, Y/N flags, one-letter codes,
// the same ones as its mapping document, scripts/racing/legacy-mapping.ts), so equal data compares
// equal. Every request value reaches SQL as a parameter.

/** The legacy system's codes → the racing database's values (scripts/racing/legacy.ts, LEGACY_CODES). */
export const LEGACY_VALUES = {
  country: { AU: 'AUS', NZ: 'NZ' },
  category: { M: 'Metropolitan', P: 'Provincial', C: 'Country' },
  sex: { C: 'colt', F: 'filly', G: 'gelding', M: 'mare', H: 'horse' },
  discipline: { F: 'Flat', H: 'Hurdle', S: 'Steeplechase' },
} as const satisfies Record<string, Record<string, string>>;

/** Source meetings listed without ids: this many days back from today, and ahead. */
export const LIST_DAYS_BACK = 14;
export const LIST_DAYS_AHEAD = 7;
export const LIST_LIMIT = 200;

export type Value = string | number | boolean | null;
export type FieldComparison = { name: string; source: Value; destination: Value; same: boolean };
export type Status = 'matched' | 'source only' | 'destination only';
export type MatchedBy = 'id mapping' | 'date and venue';

export type SourceMeeting = {
  id: number;
  /** YYYY-MM-DD, or null when the text date is not a DD/MM/YYYY date. */
  date: string | null;
  rawDate: string;
  venueId: number;
  venueCode: string | null;
  venue: string | null;
  state: string | null;
  trackCondition: string;
  trackRating: number;
  isTrial: boolean | string;
  races: number;
  runners: number;
  trialRuns: number;
};

export type DestinationMeeting = {
  id: number;
  date: string;
  courseId: number;
  venue: string;
  state: string | null;
  trackCondition: string;
  trackRating: number;
  isTrial: boolean;
  races: number;
  runners: number;
  trialRuns: number;
};

export type MeetingPair = {
  source: SourceMeeting;
  destination: DestinationMeeting | null;
  /** How the destination meeting was found; null when it was named in the request or there is none. */
  matchedBy: MatchedBy | null;
  fields: FieldComparison[];
  differs: boolean;
};

export type RaceRow = {
  rsRaceId: number | null;
  qdgRaceId: number | null;
  raceNumber: number;
  status: Status;
  pairedBy: 'id mapping' | 'race number' | null;
  differs: boolean;
  fields: FieldComparison[];
};

export type RunnerRow = {
  rsRunnerId: number | null;
  qdgRunnerId: number | null;
  tabNumber: number;
  horse: string | null;
  status: Status;
  pairedBy: 'id mapping' | 'tab number' | 'horse' | null;
  differs: boolean;
  fields: FieldComparison[];
};

/** One parameterised statement on a database. */
export type Query = (text: string, values?: unknown[]) => Promise<Row[]>;

/** The two databases of one request, and the configuration whose id mappings apply. */
export type MeetingsDb = { source: Query; dest: Query; configId: number };

/**
 * The source's queries, with its failures said as the source's: unreachable → 503, a refused
 * login or unknown database → 502, a database without the legacy tables → 502.
 */
export function sourceQuery(sql: Reader, config: ConfigurationView): Query {
  const where = `${config.host}:${config.port}/${config.database} (configuration "${config.name}")`;
  return async (text, values) => {
    try {
      return await sql.query(text, values);
    } catch (err) {
      if (asDatabaseUnavailable(err))
        throw new HttpError(503, 'source_unavailable', `The source database ${where} is unreachable right now; try again shortly.`);
      const code = typeof err === 'object' && err !== null ? Reflect.get(err, 'code') : undefined;
      const message = err instanceof Error ? err.message : String(err);
      if (typeof code === 'string' && (code.startsWith('28') || code === '3D000')) {
        throw new HttpError(502, 'source_refused', `The source database ${where} refused the connection: ${message}`);
      }
      if (code === '42P01' || code === '42703') {
        throw new HttpError(
          502,
          'source_not_legacy',
          `The source database ${where} does not have the legacy racing tables the comparison reads (${message}).`,
        );
      }
      throw err;
    }
  };
}

// ---- value transforms ----------------------------------------------------------------------

/** DD/MM/YYYY → YYYY-MM-DD, or null when it is not a real date in that form. */
export function legacyDateToIso(text: string | null): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text?.trim() ?? '');
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const day = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === iso ? iso : null;
}

/** A Y/N flag as a boolean; anything else stays as it is (and so differs from any boolean). */
export function legacyFlag(text: string | null): boolean | string | null {
  if (text === null) return null;
  const flag = text.trim().toUpperCase();
  return flag === 'Y' ? true : flag === 'N' ? false : text;
}

/** A one-letter code as the racing database's value; an unknown code stays as it is. */
export function legacyCode(codes: Record<string, string>, text: string | null): string | null {
  if (text === null) return null;
  return Object.hasOwn(codes, text.trim()) ? codes[text.trim()]! : text;
}

/** The legacy jump time (`YYYY-MM-DD HH:MM`, UTC) as the comparison shows both sides' times. */
export function legacyTime(text: string | null): string | null {
  if (text === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})/.exec(text.trim());
  return m ? `${m[1]} ${m[2]}` : text;
}

/** A numeric column (sent as text) as a number; null stays null. */
export function numberOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const trimmed = (value: unknown): string | null => text(value)?.trim() ?? null;

function same(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.trim() === b.trim();
  return a === b;
}

export function compareFields(pairs: [name: string, source: Value, destination: Value][]): FieldComparison[] {
  return pairs.map(([name, source, destination]) => ({ name, source, destination, same: same(source, destination) }));
}

/** One side's fields of a row that has no counterpart: nothing is the same. */
function oneSided(pairs: [name: string, value: Value][], side: 'source' | 'destination'): FieldComparison[] {
  return pairs.map(([name, value]) => ({
    name,
    source: side === 'source' ? value : null,
    destination: side === 'destination' ? value : null,
    same: false,
  }));
}

// ---- meetings ------------------------------------------------------------------------------

export const SOURCE_MEETING_COLUMNS = `m.meeting_id AS id, m.meeting_date AS raw_date, m.venue_id, v.venue_code, v.venue_name, v.state_code,
  m.going, m.going_rating, m.trial_flag,
  (SELECT count(*) FROM race_event e WHERE e.meeting_id = m.meeting_id)::int AS races,
  (SELECT count(*) FROM race_entry x JOIN race_event e ON e.race_id = x.race_id WHERE e.meeting_id = m.meeting_id)::int AS runners,
  (SELECT count(*) FROM trial_result t WHERE t.meeting_id = m.meeting_id)::int AS trial_runs
  FROM race_meeting m LEFT JOIN venue v ON v.venue_id = m.venue_id`;

/** The text date as YYYY-MM-DD text in SQL, for ordering and the listing's window (no cast that could fail). */
export const SOURCE_ISO_DATE = `(substr(m.meeting_date, 7, 4) || '-' || substr(m.meeting_date, 4, 2) || '-' || substr(m.meeting_date, 1, 2))`;

export function sourceMeeting(row: Row): SourceMeeting {
  return {
    id: Number(row.id),
    date: legacyDateToIso(text(row.raw_date)),
    rawDate: String(row.raw_date),
    venueId: Number(row.venue_id),
    venueCode: text(row.venue_code),
    venue: trimmed(row.venue_name),
    state: text(row.state_code),
    trackCondition: String(row.going),
    trackRating: Number(row.going_rating),
    isTrial: legacyFlag(text(row.trial_flag)) ?? false,
    races: Number(row.races),
    runners: Number(row.runners),
    trialRuns: Number(row.trial_runs),
  };
}

const DEST_MEETING_COLUMNS = `m.id, m.date::text AS date, m.course_id, c.name AS venue, c.state, m.track_condition, m.track_rating, m.is_trial,
  (SELECT count(*) FROM races r WHERE r.meeting_id = m.id)::int AS races,
  (SELECT count(*) FROM runners x JOIN races r ON r.id = x.race_id WHERE r.meeting_id = m.id)::int AS runners,
  (SELECT count(*) FROM trial_runs t WHERE t.meeting_id = m.id)::int AS trial_runs`;

function destinationMeeting(row: Row): DestinationMeeting {
  return {
    id: Number(row.id),
    date: String(row.date),
    courseId: Number(row.course_id),
    venue: String(row.venue).trim(),
    state: text(row.state),
    trackCondition: String(row.track_condition),
    trackRating: Number(row.track_rating),
    isTrial: row.is_trial === true,
    races: Number(row.races),
    runners: Number(row.runners),
    trialRuns: Number(row.trial_runs),
  };
}

/** The fields a meeting is compared on (README, "Meetings"). */
function meetingFields(s: SourceMeeting, d: DestinationMeeting | null): FieldComparison[] {
  const source: [string, Value][] = [
    ['date', s.date ?? s.rawDate],
    ['venue', s.venue],
    ['state', s.state],
    ['trackCondition', s.trackCondition],
    ['trackRating', s.trackRating],
    ['isTrial', s.isTrial],
    ['races', s.races],
    ['runners', s.runners],
    ['trialRuns', s.trialRuns],
  ];
  if (!d) return oneSided(source, 'source');
  const dest: Value[] = [d.date, d.venue, d.state, d.trackCondition, d.trackRating, d.isTrial, d.races, d.runners, d.trialRuns];
  return compareFields(source.map(([name, value], i) => [name, value, dest[i]!]));
}

function pairOf(source: SourceMeeting, destination: DestinationMeeting | null, matchedBy: MatchedBy | null): MeetingPair {
  const fields = meetingFields(source, destination);
  return { source, destination, matchedBy, fields, differs: fields.some((f) => !f.same) };
}

/**
 * The destination meeting of each source meeting: the id mapping a migration run recorded for it
 * (table `meetings`) when that row still exists, else the meeting on the same date at the same
 * course (the course the venue's id mapping names, else the course of the same name), a meeting
 * with the same trial flag first. One statement for all of them.
 */
export async function matchDestinations(
  db: MeetingsDb,
  sources: SourceMeeting[],
): Promise<Map<number, { meeting: DestinationMeeting; matchedBy: MatchedBy }>> {
  const found = new Map<number, { meeting: DestinationMeeting; matchedBy: MatchedBy }>();
  if (sources.length === 0) return found;
  const rows = await db.dest(
    `WITH s AS (
       SELECT * FROM unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::boolean[]) AS u(src_id, d, venue_id, venue, trial)
     ), maps AS (
       SELECT s.*, ${mappedId('$1::int', `'meetings'`, 's.src_id::text')} AS meeting_text, ${mappedId('$1::int', `'courses'`, 's.venue_id::text')} AS course_text FROM s
     ), keyed AS (
       SELECT maps.*, CASE WHEN meeting_text ~ '^[0-9]{1,9}$' THEN meeting_text::int END AS mapped_meeting,
              CASE WHEN course_text ~ '^[0-9]{1,9}$' THEN course_text::int END AS mapped_course
       FROM maps
     ), matched AS (
       SELECT k.src_id, coalesce(mm.id, dm.id) AS dest_id, CASE WHEN mm.id IS NOT NULL THEN 'id mapping' ELSE 'date and venue' END AS matched_by
       FROM keyed k
       LEFT JOIN meetings mm ON mm.id = k.mapped_meeting
       LEFT JOIN LATERAL (
         SELECT m.id FROM meetings m JOIN courses c ON c.id = m.course_id
         WHERE mm.id IS NULL AND k.d IS NOT NULL AND m.date = k.d::date
           AND (c.id = k.mapped_course OR (k.mapped_course IS NULL AND lower(c.name) = lower(k.venue)))
         ORDER BY (m.is_trial IS NOT DISTINCT FROM k.trial) DESC, m.id LIMIT 1
       ) dm ON true
     )
     SELECT matched.src_id, matched.matched_by, ${DEST_MEETING_COLUMNS}
     FROM matched JOIN meetings m ON m.id = matched.dest_id JOIN courses c ON c.id = m.course_id`,
    [
      db.configId,
      sources.map((s) => s.id),
      sources.map((s) => s.date),
      sources.map((s) => s.venueId),
      sources.map((s) => s.venue),
      sources.map((s) => (typeof s.isTrial === 'boolean' ? s.isTrial : null)),
    ],
  );
  for (const row of rows) found.set(Number(row.src_id), { meeting: destinationMeeting(row), matchedBy: row.matched_by as MatchedBy });
  return found;
}

/** Today's date moved by `days` (YYYY-MM-DD). */
export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Source meetings from LIST_DAYS_BACK before `today` to LIST_DAYS_AHEAD after, newest first, each with its destination meeting. */
export async function recentMeetings(
  db: MeetingsDb,
  today: string,
): Promise<{ from: string; to: string; limit: number; pairs: MeetingPair[] }> {
  const from = addDays(today, -LIST_DAYS_BACK);
  const to = addDays(today, LIST_DAYS_AHEAD);
  const rows = await db.source(
    `SELECT ${SOURCE_MEETING_COLUMNS}
     WHERE m.meeting_date ~ '^[0-9]{2}/[0-9]{2}/[0-9]{4}$' AND ${SOURCE_ISO_DATE} BETWEEN $1 AND $2
     ORDER BY ${SOURCE_ISO_DATE} DESC, v.venue_name, m.meeting_id LIMIT $3`,
    [from, to, LIST_LIMIT],
  );
  const sources = rows.map(sourceMeeting);
  const matches = await matchDestinations(db, sources);
  return {
    from,
    to,
    limit: LIST_LIMIT,
    pairs: sources.map((s) => pairOf(s, matches.get(s.id)?.meeting ?? null, matches.get(s.id)?.matchedBy ?? null)),
  };
}

async function findSourceMeeting(db: MeetingsDb, id: number): Promise<SourceMeeting | null> {
  const rows = await db.source(`SELECT ${SOURCE_MEETING_COLUMNS} WHERE m.meeting_id = $1`, [id]);
  return rows[0] ? sourceMeeting(rows[0]) : null;
}

async function findDestinationMeeting(db: MeetingsDb, id: number): Promise<DestinationMeeting | null> {
  const rows = await db.dest(`SELECT ${DEST_MEETING_COLUMNS} FROM meetings m JOIN courses c ON c.id = m.course_id WHERE m.id = $1`, [id]);
  return rows[0] ? destinationMeeting(rows[0]) : null;
}

/**
 * A source meeting beside a destination meeting: `qdgId` when given, else its match. 404 when
 * either named meeting does not exist.
 */
export async function meetingPair(db: MeetingsDb, rsId: number, qdgId?: number): Promise<MeetingPair> {
  const source = await findSourceMeeting(db, rsId);
  if (!source) throw new HttpError(404, 'not_found', `The source has no meeting ${rsId}.`);
  if (qdgId !== undefined) {
    const destination = await findDestinationMeeting(db, qdgId);
    if (!destination) throw new HttpError(404, 'not_found', `The destination has no meeting ${qdgId}.`);
    return pairOf(source, destination, null);
  }
  const match = (await matchDestinations(db, [source])).get(source.id);
  return pairOf(source, match?.meeting ?? null, match?.matchedBy ?? null);
}

// ---- pairing -------------------------------------------------------------------------------

type Keyed<T> = { row: T; id: number };

/**
 * Pairs source and destination rows: first the pairs the id mappings name (`mappedTo`: source id →
 * destination id), then, in order, by each key function among the rows still unpaired (a key
 * shared by several rows on one side pairs none of them).
 */
function pairRows<S, D, K extends string>(
  sources: Keyed<S>[],
  destinations: Keyed<D>[],
  mappedTo: Map<number, number>,
  keys: { by: K; source: (s: S) => string | null; destination: (d: D) => string | null }[],
): { source: S | null; destination: D | null; pairedBy: 'id mapping' | K | null }[] {
  const pairs: { source: S | null; destination: D | null; pairedBy: 'id mapping' | K | null }[] = [];
  const freeSources = new Set(sources);
  const freeDestinations = new Set(destinations);
  const destById = new Map(destinations.map((d) => [d.id, d]));
  for (const s of sources) {
    const d = destById.get(mappedTo.get(s.id) ?? -1);
    if (d && freeDestinations.has(d)) {
      pairs.push({ source: s.row, destination: d.row, pairedBy: 'id mapping' });
      freeSources.delete(s);
      freeDestinations.delete(d);
    }
  }
  for (const key of keys) {
    const unique = <T>(rows: Set<Keyed<T>>, keyOf: (row: T) => string | null) => {
      const byKey = new Map<string, Keyed<T> | null>();
      for (const r of rows) {
        const k = keyOf(r.row);
        if (k !== null) byKey.set(k, byKey.has(k) ? null : r);
      }
      return byKey;
    };
    const destByKey = unique(freeDestinations, key.destination);
    for (const [k, s] of unique(freeSources, key.source)) {
      const d = destByKey.get(k);
      if (!s || !d) continue;
      pairs.push({ source: s.row, destination: d.row, pairedBy: key.by });
      freeSources.delete(s);
      freeDestinations.delete(d);
    }
  }
  for (const s of freeSources) pairs.push({ source: s.row, destination: null, pairedBy: null });
  for (const d of freeDestinations) pairs.push({ source: null, destination: d.row, pairedBy: null });
  return pairs;
}

/** Destination ids the id mappings of `table` give the source ids, and which of them exist there. */
export function mappedIdsSql(table: 'races' | 'runners'): string {
  return `maps AS (
      SELECT u.s AS src_id, ${mappedId('$1::int', `'${table}'`, 'u.s::text')} AS dest_text FROM unnest($2::int[]) AS u(s)
    ), mapped AS (
      SELECT src_id, CASE WHEN dest_text ~ '^[0-9]{1,9}$' THEN dest_text::int END AS dest_id FROM maps
    )`;
}

function mappingsOf(rows: Row[]): Map<number, number> {
  const mapped = new Map<number, number>();
  for (const row of rows) for (const src of (row.mapped_from as number[] | null) ?? []) mapped.set(Number(src), Number(row.id));
  return mapped;
}

// ---- races ---------------------------------------------------------------------------------

/** The fields a race is compared on, in the order of both sides' `values`. */
const RACE_FIELDS = ['raceNumber', 'name', 'distance', 'class', 'raceType', 'trackCondition', 'startTime', 'runners'];
/** The fields a runner is compared on, in the order of both sides' `values`. */
const RUNNER_FIELDS = [
  'tabNumber',
  'horse',
  'jockey',
  'trainer',
  'barrier',
  'weight',
  'startingPrice',
  'scratched',
  'finishingPosition',
  'margin',
];

type SourceRace = { id: number; meetingId: number; raceNumber: number; values: Value[] };
type DestinationRace = { id: number; raceNumber: number; values: Value[] };

/** The field comparisons of a pairing, or of a row one side has alone. */
function rowFields(names: string[], source: Value[] | undefined, destination: Value[] | undefined): FieldComparison[] {
  if (source && destination) return compareFields(names.map((name, i) => [name, source[i]!, destination[i]!]));
  return oneSided(
    names.map((name, i) => [name, (source ?? destination)![i]!]),
    source ? 'source' : 'destination',
  );
}

const SOURCE_RACE_COLUMNS = `e.race_id, e.meeting_id, e.race_no, e.race_title, e.distance_m, e.class_desc, e.discipline_code, e.going, e.jump_time,
  (SELECT count(*) FROM race_entry x WHERE x.race_id = e.race_id)::int AS runners
  FROM race_event e`;

function sourceRace(row: Row): SourceRace {
  return {
    id: Number(row.race_id),
    meetingId: Number(row.meeting_id),
    raceNumber: Number(row.race_no),
    values: [
      Number(row.race_no),
      text(row.race_title),
      numberOf(row.distance_m),
      text(row.class_desc),
      legacyCode(LEGACY_VALUES.discipline, text(row.discipline_code)),
      text(row.going),
      legacyTime(text(row.jump_time)),
      Number(row.runners),
    ],
  };
}

function destinationRace(row: Row): DestinationRace {
  return {
    id: Number(row.id),
    raceNumber: Number(row.race_number),
    values: [
      Number(row.race_number),
      text(row.name),
      numberOf(row.distance),
      text(row.class),
      text(row.race_type),
      text(row.track_condition),
      text(row.start_time),
      Number(row.runners),
    ],
  };
}

const DEST_RACE_COLUMNS = `r.id, r.meeting_id, r.race_number, r.name, r.distance, r.class, r.race_type, r.track_condition,
  to_char(r.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS start_time,
  (SELECT count(*) FROM runners x WHERE x.race_id = r.id)::int AS runners`;

function raceRow(pair: { source: SourceRace | null; destination: DestinationRace | null; pairedBy: RaceRow['pairedBy'] }): RaceRow {
  const { source: s, destination: d } = pair;
  const fields = rowFields(RACE_FIELDS, s?.values, d?.values);
  return {
    rsRaceId: s?.id ?? null,
    qdgRaceId: d?.id ?? null,
    raceNumber: s?.raceNumber ?? d!.raceNumber,
    status: s && d ? 'matched' : s ? 'source only' : 'destination only',
    pairedBy: pair.pairedBy,
    differs: fields.some((f) => !f.same),
    fields,
  };
}

/**
 * The races of one source meeting paired with destination races: `destRows` are the destination
 * meeting's races and those the source races' id mappings name (each row with `id`, `meeting_id`
 * and `mapped_from`, the source race ids mapped to it), read as `destinationOf` says. Paired by
 * the races' id mappings first, then by race number within `destMeetingId`; a race reached only
 * through an id mapping (in another destination meeting) pairs by that mapping only.
 */
export function pairRaces<S extends { id: number; raceNumber: number }, D extends { id: number; raceNumber: number }>(
  sources: S[],
  destRows: Row[],
  destinationOf: (row: Row) => D,
  destMeetingId: number | null,
): { source: S | null; destination: D | null; pairedBy: 'id mapping' | 'race number' | null }[] {
  const destinations = destRows.map(destinationOf);
  const ownMeeting = new Set(
    destRows.filter((r) => destMeetingId !== null && Number(r.meeting_id) === destMeetingId).map((r) => Number(r.id)),
  );
  return pairRows(
    sources.map((row) => ({ row, id: row.id })),
    destinations.map((row) => ({ row, id: row.id })),
    mappingsOf(destRows),
    [
      {
        by: 'race number' as const,
        source: (s) => String(s.raceNumber),
        destination: (d) => (ownMeeting.has(d.id) ? String(d.raceNumber) : null),
      },
    ],
  ).filter((p) => p.source || ownMeeting.has(p.destination!.id));
}

/**
 * The races of a source meeting beside those of its destination meeting (`qdgMeetingId`, else its
 * match): paired by the races' id mappings, then by race number.
 */
export async function raceComparison(db: MeetingsDb, rsMeetingId: number, qdgMeetingId?: number): Promise<RaceRow[]> {
  const pair = await meetingPair(db, rsMeetingId, qdgMeetingId);
  const sources = (
    await db.source(`SELECT ${SOURCE_RACE_COLUMNS} WHERE e.meeting_id = $1 ORDER BY e.race_no, e.race_id`, [rsMeetingId])
  ).map(sourceRace);
  const destRows = await db.dest(
    `WITH ${mappedIdsSql('races')}
     SELECT ${DEST_RACE_COLUMNS}, (SELECT array_agg(mp.src_id) FROM mapped mp WHERE mp.dest_id = r.id) AS mapped_from
     FROM races r WHERE r.meeting_id = $3 OR r.id IN (SELECT dest_id FROM mapped) ORDER BY r.race_number, r.id`,
    [db.configId, sources.map((s) => s.id), pair.destination?.id ?? null],
  );
  return pairRaces(sources, destRows, destinationRace, pair.destination?.id ?? null)
    .map(raceRow)
    .sort((a, b) => a.raceNumber - b.raceNumber || (a.rsRaceId ?? 0) - (b.rsRaceId ?? 0));
}

// ---- runners -------------------------------------------------------------------------------

type SourceRunner = { id: number; tabNumber: number; horse: string | null; values: Value[] };
type DestinationRunner = { id: number; tabNumber: number; horse: string | null; values: Value[] };

function sourceRunner(row: Row): SourceRunner {
  const horse = trimmed(row.horse);
  return {
    id: Number(row.entry_id),
    tabNumber: Number(row.tab_no),
    horse,
    values: [
      Number(row.tab_no),
      horse,
      trimmed(row.jockey),
      trimmed(row.trainer),
      numberOf(row.barrier_no),
      numberOf(row.weight_kg),
      numberOf(row.sp_odds),
      legacyFlag(text(row.scratched_flag)),
      numberOf(row.placing),
      numberOf(row.margin_lengths),
    ],
  };
}

function destinationRunner(row: Row): DestinationRunner {
  const horse = trimmed(row.horse);
  return {
    id: Number(row.id),
    tabNumber: Number(row.tab_number),
    horse,
    values: [
      Number(row.tab_number),
      horse,
      trimmed(row.jockey),
      trimmed(row.trainer),
      numberOf(row.barrier),
      numberOf(row.weight),
      numberOf(row.starting_price),
      row.scratched === null ? null : row.scratched === true,
      numberOf(row.finishing_position),
      numberOf(row.margin),
    ],
  };
}

function runnerRow(pair: {
  source: SourceRunner | null;
  destination: DestinationRunner | null;
  pairedBy: RunnerRow['pairedBy'];
}): RunnerRow {
  const { source: s, destination: d } = pair;
  const fields = rowFields(RUNNER_FIELDS, s?.values, d?.values);
  return {
    rsRunnerId: s?.id ?? null,
    qdgRunnerId: d?.id ?? null,
    tabNumber: s?.tabNumber ?? d!.tabNumber,
    horse: s?.horse ?? d!.horse,
    status: s && d ? 'matched' : s ? 'source only' : 'destination only',
    pairedBy: pair.pairedBy,
    differs: fields.some((f) => !f.same),
    fields,
  };
}

/**
 * The runners of a source race beside those of a destination race: `qdgRaceId` when given, else
 * the race its id mapping names, else the race with the same number at the source meeting's
 * destination meeting. Paired by the runners' id mappings, then tab number, then horse name.
 */
export async function runnerComparison(db: MeetingsDb, rsRaceId: number, qdgRaceId?: number): Promise<RunnerRow[]> {
  const race = (await db.source(`SELECT ${SOURCE_RACE_COLUMNS} WHERE e.race_id = $1`, [rsRaceId])).map(sourceRace)[0];
  if (!race) throw new HttpError(404, 'not_found', `The source has no race ${rsRaceId}.`);
  const [sourceRows, destRaceId] = await Promise.all([
    db.source(
      `SELECT x.entry_id, x.tab_no, x.barrier_no, x.weight_kg::text AS weight_kg, x.sp_odds::text AS sp_odds, x.scratched_flag, x.placing,
         x.margin_lengths::text AS margin_lengths, h.horse_name AS horse, j.full_name AS jockey, t.full_name AS trainer
       FROM race_entry x LEFT JOIN horse h ON h.horse_id = x.horse_id LEFT JOIN jockey j ON j.jockey_id = x.jockey_id LEFT JOIN trainer t ON t.trainer_id = x.trainer_id
       WHERE x.race_id = $1 ORDER BY x.tab_no, x.entry_id`,
      [rsRaceId],
    ),
    qdgRaceId === undefined ? destinationRaceOf(db, race) : namedDestinationRace(db, qdgRaceId),
  ]);
  const sources = sourceRows.map(sourceRunner);
  const destRows = await db.dest(
    `WITH ${mappedIdsSql('runners')}
     SELECT x.id, x.race_id, x.tab_number, x.barrier, x.weight::text AS weight, x.starting_price::text AS starting_price, x.scratched,
       x.finishing_position, x.margin::text AS margin, h.name AS horse, j.name AS jockey, t.name AS trainer,
       (SELECT array_agg(mp.src_id) FROM mapped mp WHERE mp.dest_id = x.id) AS mapped_from
     FROM runners x LEFT JOIN horses h ON h.id = x.horse_id LEFT JOIN jockeys j ON j.id = x.jockey_id LEFT JOIN trainers t ON t.id = x.trainer_id
     WHERE x.race_id = $3 OR x.id IN (SELECT dest_id FROM mapped) ORDER BY x.tab_number, x.id`,
    [db.configId, sources.map((s) => s.id), destRaceId],
  );
  const ownRace = new Set(destRows.filter((r) => destRaceId !== null && Number(r.race_id) === destRaceId).map((r) => Number(r.id)));
  const destinations = destRows.map(destinationRunner);
  const inRace = (d: DestinationRunner) => ownRace.has(d.id);
  const pairs = pairRows(
    sources.map((row) => ({ row, id: row.id })),
    destinations.map((row) => ({ row, id: row.id })),
    mappingsOf(destRows),
    [
      { by: 'tab number' as const, source: (s) => String(s.tabNumber), destination: (d) => (inRace(d) ? String(d.tabNumber) : null) },
      {
        by: 'horse' as const,
        source: (s) => s.horse?.toLowerCase() ?? null,
        destination: (d) => (inRace(d) ? (d.horse?.toLowerCase() ?? null) : null),
      },
    ],
  ).filter((p) => p.source || ownRace.has(p.destination!.id));
  return pairs.map(runnerRow).sort((a, b) => a.tabNumber - b.tabNumber || (a.rsRunnerId ?? 0) - (b.rsRunnerId ?? 0));
}

/** A destination race named in the request; 404 when there is none. */
async function namedDestinationRace(db: MeetingsDb, id: number): Promise<number> {
  const rows = await db.dest('SELECT id FROM races WHERE id = $1', [id]);
  if (rows.length === 0) throw new HttpError(404, 'not_found', `The destination has no race ${id}.`);
  return id;
}

/** The destination race of a source race: its id mapping, else the same number at the meeting's match. */
async function destinationRaceOf(db: MeetingsDb, race: SourceRace): Promise<number | null> {
  const mapped = await db.dest(
    `SELECT r.id FROM races r WHERE r.id = (SELECT CASE WHEN t ~ '^[0-9]{1,9}$' THEN t::int END FROM (SELECT ${mappedId('$1::int', `'races'`, '$2::text')} AS t) x)`,
    [db.configId, String(race.id)],
  );
  if (mapped[0]) return Number(mapped[0].id);
  const meeting = await meetingPair(db, race.meetingId);
  if (!meeting.destination) return null;
  const rows = await db.dest('SELECT id FROM races WHERE meeting_id = $1 AND race_number = $2', [meeting.destination.id, race.raceNumber]);
  return rows[0] ? Number(rows[0].id) : null;
}
