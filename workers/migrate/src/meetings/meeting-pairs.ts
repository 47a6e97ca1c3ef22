// Meetings: a source meeting and its destination counterpart (by id mapping, else date and venue).

import { HttpError } from '#shared/http-error.ts';
import type { Row } from '../engine/db.ts';
import { mappedId } from '../engine/mappings.ts';
import {
  compareFields,
  type DestinationMeeting,
  type FieldComparison,
  legacyDateToIso,
  legacyFlag,
  LIST_DAYS_AHEAD,
  LIST_DAYS_BACK,
  LIST_LIMIT,
  type MatchedBy,
  type MeetingPair,
  type MeetingsDb,
  oneSided,
  type SourceMeeting,
  text,
  trimmed,
  type Value,
} from '../meetings.ts';

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
