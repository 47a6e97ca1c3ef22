// Races: a meeting's races on both sides, paired and compared field by field.

import type { Row } from '../engine/db.ts';
import {
  compareFields,
  type FieldComparison,
  LEGACY_VALUES,
  legacyCode,
  legacyTime,
  type MeetingsDb,
  numberOf,
  oneSided,
  type RaceRow,
  text,
  type Value,
} from '../meetings.ts';
import { meetingPair } from './meeting-pairs.ts';
import { mappedIdsSql, mappingsOf, pairRows } from './pairing.ts';

/** The fields a race is compared on, in the order of both sides' `values`. */
const RACE_FIELDS = ['raceNumber', 'name', 'distance', 'class', 'raceType', 'trackCondition', 'startTime', 'runners'];
/** The fields a runner is compared on, in the order of both sides' `values`. */
export const RUNNER_FIELDS = [
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

export type SourceRace = { id: number; meetingId: number; raceNumber: number; values: Value[] };
type DestinationRace = { id: number; raceNumber: number; values: Value[] };

/** The field comparisons of a pairing, or of a row one side has alone. */
export function rowFields(names: string[], source: Value[] | undefined, destination: Value[] | undefined): FieldComparison[] {
  if (source && destination) return compareFields(names.map((name, i) => [name, source[i]!, destination[i]!]));
  return oneSided(
    names.map((name, i) => [name, (source ?? destination)![i]!]),
    source ? 'source' : 'destination',
  );
}

export const SOURCE_RACE_COLUMNS = `e.race_id, e.meeting_id, e.race_no, e.race_title, e.distance_m, e.class_desc, e.discipline_code, e.going, e.jump_time,
  (SELECT count(*) FROM race_entry x WHERE x.race_id = e.race_id)::int AS runners
  FROM race_event e`;

export function sourceRace(row: Row): SourceRace {
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
