// Runners: a race's runners on both sides, paired and compared field by field.

import { HttpError } from '#shared/http-error.ts';
import type { Row } from '../engine/db.ts';
import { mappedId } from '../engine/mappings.ts';
import { legacyFlag, type MeetingsDb, numberOf, type RunnerRow, text, trimmed, type Value } from '../meetings.ts';
import { meetingPair } from './meeting-pairs.ts';
import { mappedIdsSql, mappingsOf, pairRows } from './pairing.ts';
import { rowFields, RUNNER_FIELDS, SOURCE_RACE_COLUMNS, type SourceRace, sourceRace } from './races.ts';

type Runner = { id: number; tabNumber: number; horse: string | null; values: Value[] };

/**
 * A runner of either side. The source query names its columns as the racing database does, so one
 * reading serves both; only the scratched flag differs (the source's Y/N text, the destination's boolean).
 */
function runnerOf(row: Row, scratched: Value): Runner {
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
      scratched,
      numberOf(row.finishing_position),
      numberOf(row.margin),
    ],
  };
}

const sourceRunner = (row: Row) => runnerOf(row, legacyFlag(text(row.scratched_flag)));
const destinationRunner = (row: Row) => runnerOf(row, row.scratched === null ? null : row.scratched === true);

function runnerRow(pair: { source: Runner | null; destination: Runner | null; pairedBy: RunnerRow['pairedBy'] }): RunnerRow {
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
      `SELECT x.entry_id AS id, x.tab_no AS tab_number, x.barrier_no AS barrier, x.weight_kg::text AS weight, x.sp_odds::text AS starting_price,
         x.scratched_flag, x.placing AS finishing_position, x.margin_lengths::text AS margin, h.horse_name AS horse, j.full_name AS jockey,
         t.full_name AS trainer
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
  const inRace = (d: Runner) => ownRace.has(d.id);
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
