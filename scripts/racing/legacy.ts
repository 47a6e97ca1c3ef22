import { isoDate, parseIsoDate } from './calendar.ts';
import { type GenerateOptions, generateRacing } from './generate.ts';
import { SIZE_PROFILES } from './sizes.ts';
import type { RacingBatch } from './tables.ts';

// The old system the migration app copies from: the SAME racing world as the generator's (same
// seed, same horses, meetings, races and runners), in that system's own shape — other table and
// column names, its own ids, course codes, one-letter codes, Y/N flags and DD/MM/YYYY text dates —
// and running a few days ahead of the racing database, so it holds days the racing database lacks
// (and results for days the racing database has only acceptances for).

/** Days the old system is ahead of the racing database. */
export const LEGACY_EXTRA_DAYS = 3;

export type LegacyTableName =
  | 'venue'
  | 'trainer'
  | 'jockey'
  | 'horse'
  | 'sale_lot'
  | 'race_meeting'
  | 'race_event'
  | 'race_entry'
  | 'sectional_split'
  | 'trial_result';

type Value = string | number | boolean | null;
export type LegacyRow = Record<string, Value>;
export type LegacyBatch = { table: LegacyTableName; rows: LegacyRow[] };

/** Where each table's own ids start: other numbers than the racing database's for the same rows. */
export const LEGACY_ID_OFFSETS: Record<LegacyTableName, number> = {
  venue: 500,
  trainer: 7_000,
  jockey: 9_000,
  horse: 100_000,
  sale_lot: 60_000,
  race_meeting: 20_000,
  race_event: 300_000,
  race_entry: 5_000_000,
  sectional_split: 30_000_000,
  trial_result: 8_000_000,
};

export type LegacyColumn = { name: string; type: string; notNull?: boolean; references?: LegacyTableName };

/** The old system's tables in load order (parents first); the first column is the primary key. */
export const LEGACY_TABLES: { table: LegacyTableName; columns: LegacyColumn[] }[] = [
  {
    table: 'venue',
    columns: [
      { name: 'venue_id', type: 'integer' },
      { name: 'venue_code', type: 'text', notNull: true },
      { name: 'venue_name', type: 'text', notNull: true },
      { name: 'state_code', type: 'text' },
      { name: 'country_code', type: 'text', notNull: true },
      { name: 'category_code', type: 'text', notNull: true },
    ],
  },
  {
    table: 'trainer',
    columns: [
      { name: 'trainer_id', type: 'integer' },
      { name: 'full_name', type: 'text', notNull: true },
      { name: 'home_state', type: 'text', notNull: true },
    ],
  },
  {
    table: 'jockey',
    columns: [
      { name: 'jockey_id', type: 'integer' },
      { name: 'full_name', type: 'text', notNull: true },
      { name: 'home_state', type: 'text', notNull: true },
      { name: 'apprentice_flag', type: 'text', notNull: true },
    ],
  },
  {
    table: 'horse',
    columns: [
      { name: 'horse_id', type: 'integer' },
      { name: 'horse_name', type: 'text', notNull: true },
      { name: 'country_code', type: 'text', notNull: true },
      { name: 'foaled', type: 'text', notNull: true },
      { name: 'sex_code', type: 'text', notNull: true },
      { name: 'sire_name', type: 'text', notNull: true },
      { name: 'dam_name', type: 'text', notNull: true },
    ],
  },
  {
    table: 'sale_lot',
    columns: [
      { name: 'sale_lot_id', type: 'integer' },
      { name: 'horse_id', type: 'integer', notNull: true, references: 'horse' },
      { name: 'sale_name', type: 'text', notNull: true },
      { name: 'lot_no', type: 'integer', notNull: true },
      { name: 'sale_date', type: 'text', notNull: true },
      { name: 'price_aud', type: 'integer', notNull: true },
      { name: 'vendor', type: 'text', notNull: true },
      { name: 'purchaser', type: 'text', notNull: true },
    ],
  },
  {
    table: 'race_meeting',
    columns: [
      { name: 'meeting_id', type: 'integer' },
      { name: 'meeting_date', type: 'text', notNull: true },
      { name: 'venue_id', type: 'integer', notNull: true, references: 'venue' },
      { name: 'going', type: 'text', notNull: true },
      { name: 'going_rating', type: 'integer', notNull: true },
      { name: 'trial_flag', type: 'text', notNull: true },
    ],
  },
  {
    table: 'race_event',
    columns: [
      { name: 'race_id', type: 'integer' },
      { name: 'meeting_id', type: 'integer', notNull: true, references: 'race_meeting' },
      { name: 'race_no', type: 'integer', notNull: true },
      { name: 'race_title', type: 'text', notNull: true },
      { name: 'distance_m', type: 'integer', notNull: true },
      { name: 'class_desc', type: 'text', notNull: true },
      { name: 'discipline_code', type: 'text', notNull: true },
      { name: 'going', type: 'text', notNull: true },
      { name: 'jump_time', type: 'text' },
    ],
  },
  {
    table: 'race_entry',
    columns: [
      { name: 'entry_id', type: 'integer' },
      { name: 'race_id', type: 'integer', notNull: true, references: 'race_event' },
      { name: 'horse_id', type: 'integer', notNull: true, references: 'horse' },
      { name: 'jockey_id', type: 'integer', references: 'jockey' },
      { name: 'trainer_id', type: 'integer', notNull: true, references: 'trainer' },
      { name: 'tab_no', type: 'integer', notNull: true },
      { name: 'barrier_no', type: 'integer', notNull: true },
      { name: 'weight_kg', type: 'numeric(4,1)', notNull: true },
      { name: 'sp_odds', type: 'numeric(7,2)' },
      { name: 'scratched_flag', type: 'text', notNull: true },
      { name: 'placing', type: 'integer' },
      { name: 'margin_lengths', type: 'numeric(6,2)' },
    ],
  },
  {
    table: 'sectional_split',
    columns: [
      { name: 'split_id', type: 'integer' },
      { name: 'entry_id', type: 'integer', notNull: true, references: 'race_entry' },
      { name: 'segment_code', type: 'text', notNull: true },
      { name: 'split_secs', type: 'numeric(5,2)', notNull: true },
    ],
  },
  {
    table: 'trial_result',
    columns: [
      { name: 'trial_result_id', type: 'integer' },
      { name: 'meeting_id', type: 'integer', notNull: true, references: 'race_meeting' },
      { name: 'heat_no', type: 'integer', notNull: true },
      { name: 'distance_m', type: 'integer', notNull: true },
      { name: 'horse_id', type: 'integer', notNull: true, references: 'horse' },
      { name: 'jockey_id', type: 'integer', references: 'jockey' },
      { name: 'trainer_id', type: 'integer', notNull: true, references: 'trainer' },
      { name: 'barrier_no', type: 'integer', notNull: true },
      { name: 'placing', type: 'integer', notNull: true },
      { name: 'margin_lengths', type: 'numeric(6,2)', notNull: true },
      { name: 'time_secs', type: 'numeric(6,2)', notNull: true },
    ],
  },
];

export const LEGACY_TABLE_NAMES: readonly LegacyTableName[] = LEGACY_TABLES.map((t) => t.table);

/** The old system's codes for the racing database's values. */
export const LEGACY_CODES = {
  country: { AUS: 'AU', NZ: 'NZ' },
  category: { Metropolitan: 'M', Provincial: 'P', Country: 'C' },
  sex: { colt: 'C', filly: 'F', gelding: 'G', mare: 'M', horse: 'H' },
  discipline: { Flat: 'F', Hurdle: 'H', Steeplechase: 'S' },
  segment: { L600: '600', L400: '400', L200: '200' },
} as const;

export const LEGACY_DATE_FORMAT = 'DD/MM/YYYY';
export const LEGACY_TIME_FORMAT = 'YYYY-MM-DD HH24:MI';

const yesNo = (flag: boolean) => (flag ? 'Y' : 'N');
const code = <K extends string>(table: Record<K, string>, value: K) => table[value];

/** YYYY-MM-DD → DD/MM/YYYY. */
export function legacyDate(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

/** An ISO timestamp (UTC) → `YYYY-MM-DD HH:MM` in UTC, the old system's text time. */
export function legacyTime(timestamp: string | null): string | null {
  if (timestamp === null) return null;
  const iso = new Date(timestamp).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** A course's code: the first four letters of its name, a digit instead of the last on a clash. */
class VenueCodes {
  private readonly used = new Set<string>();
  codeFor(name: string): string {
    const base = name
      .toUpperCase()
      .replace(/[^A-Z]/g, '')
      .slice(0, 4)
      .padEnd(4, 'X');
    let candidate = base;
    for (let n = 2; this.used.has(candidate); n++) candidate = `${base.slice(0, 3)}${n}`;
    this.used.add(candidate);
    return candidate;
  }
}

export type LegacyOptions = GenerateOptions & { extraDays?: number };

/** The generator's options for the old system's world: same start day, `extraDays` later today. */
export function legacyWorldOptions(options: LegacyOptions): GenerateOptions {
  const extra = options.extraDays ?? LEGACY_EXTRA_DAYS;
  const historyDays = options.historyDays ?? SIZE_PROFILES[options.size].historyDays;
  return {
    size: options.size,
    seed: options.seed,
    today: isoDate(parseIsoDate(options.today) + extra),
    historyDays: historyDays + extra,
  };
}

/** The old system's rows, converted batch by batch from the racing generator's. */
export function* generateLegacy(options: LegacyOptions): Generator<LegacyBatch> {
  const codes = new VenueCodes();
  const id = (table: LegacyTableName, racingId: number) => LEGACY_ID_OFFSETS[table] + racingId;
  const optionalId = (table: LegacyTableName, racingId: number | null) => (racingId === null ? null : id(table, racingId));
  for (const batch of generateRacing(legacyWorldOptions(options))) yield convert(batch);

  function convert(batch: RacingBatch): LegacyBatch {
    switch (batch.table) {
      case 'courses':
        return {
          table: 'venue',
          rows: batch.rows.map((r) => ({
            venue_id: id('venue', r.id),
            venue_code: codes.codeFor(r.name),
            venue_name: r.name,
            state_code: r.state,
            country_code: code(LEGACY_CODES.country, r.country),
            category_code: code(LEGACY_CODES.category, r.category),
          })),
        };
      case 'trainers':
        return {
          table: 'trainer',
          rows: batch.rows.map((r) => ({ trainer_id: id('trainer', r.id), full_name: r.name, home_state: r.state })),
        };
      case 'jockeys':
        return {
          table: 'jockey',
          rows: batch.rows.map((r) => ({
            jockey_id: id('jockey', r.id),
            full_name: r.name,
            home_state: r.state,
            apprentice_flag: yesNo(r.apprentice),
          })),
        };
      case 'horses':
        return {
          table: 'horse',
          rows: batch.rows.map((r) => ({
            horse_id: id('horse', r.id),
            horse_name: r.name,
            country_code: r.country,
            foaled: String(r.foalingYear),
            sex_code: code(LEGACY_CODES.sex, r.sex),
            sire_name: r.sire,
            dam_name: r.dam,
          })),
        };
      case 'sales':
        return {
          table: 'sale_lot',
          rows: batch.rows.map((r) => ({
            sale_lot_id: id('sale_lot', r.id),
            horse_id: id('horse', r.horseId),
            sale_name: r.saleName,
            lot_no: r.lot,
            sale_date: legacyDate(r.saleDate),
            price_aud: r.price,
            vendor: r.vendor,
            purchaser: r.purchaser,
          })),
        };
      case 'meetings':
        return {
          table: 'race_meeting',
          rows: batch.rows.map((r) => ({
            meeting_id: id('race_meeting', r.id),
            meeting_date: legacyDate(r.date),
            venue_id: id('venue', r.courseId),
            going: r.trackCondition,
            going_rating: r.trackRating,
            trial_flag: yesNo(r.isTrial),
          })),
        };
      case 'races':
        return {
          table: 'race_event',
          rows: batch.rows.map((r) => ({
            race_id: id('race_event', r.id),
            meeting_id: id('race_meeting', r.meetingId),
            race_no: r.raceNumber,
            race_title: r.name,
            distance_m: r.distance,
            class_desc: r.class,
            discipline_code: code(LEGACY_CODES.discipline, r.raceType),
            going: r.trackCondition,
            jump_time: legacyTime(r.startTime),
          })),
        };
      case 'runners':
        return {
          table: 'race_entry',
          rows: batch.rows.map((r) => ({
            entry_id: id('race_entry', r.id),
            race_id: id('race_event', r.raceId),
            horse_id: id('horse', r.horseId),
            jockey_id: optionalId('jockey', r.jockeyId),
            trainer_id: id('trainer', r.trainerId),
            tab_no: r.tabNumber,
            barrier_no: r.barrier,
            weight_kg: r.weight,
            sp_odds: r.startingPrice,
            scratched_flag: yesNo(r.scratched),
            placing: r.finishingPosition,
            margin_lengths: r.margin,
          })),
        };
      case 'sectional_times':
        return {
          table: 'sectional_split',
          rows: batch.rows.map((r) => ({
            split_id: id('sectional_split', r.id),
            entry_id: id('race_entry', r.runnerId),
            segment_code: code(LEGACY_CODES.segment, r.segment),
            split_secs: r.timeSeconds,
          })),
        };
      case 'trial_runs':
        return {
          table: 'trial_result',
          rows: batch.rows.map((r) => ({
            trial_result_id: id('trial_result', r.id),
            meeting_id: id('race_meeting', r.meetingId),
            heat_no: r.heatNumber,
            distance_m: r.distance,
            horse_id: id('horse', r.horseId),
            jockey_id: optionalId('jockey', r.jockeyId),
            trainer_id: id('trainer', r.trainerId),
            barrier_no: r.barrier,
            placing: r.finishingPosition,
            margin_lengths: r.margin,
            time_secs: r.timeSeconds,
          })),
        };
    }
  }
}
