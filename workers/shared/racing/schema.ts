import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, numeric, pgTable, primaryKey, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { counter, day, identity, instant, nameSearchIndex, reference, writtenAt } from './columns.ts';

// The racing database (PostgreSQL). The one definition of its schema: Workers query it with
// drizzle, drizzle-kit derives the SQL migration from it, and the data generator fills it.

export type CourseCountry = 'AUS' | 'NZ';
export type AustralianState = 'NSW' | 'VIC' | 'QLD' | 'SA' | 'WA' | 'TAS' | 'NT' | 'ACT';
export type CourseCategory = 'Metropolitan' | 'Provincial' | 'Country';
export type HorseCountry = 'AUS' | 'NZ' | 'IRE' | 'GB' | 'USA' | 'JPN' | 'FR';
export type HorseSex = 'colt' | 'filly' | 'gelding' | 'mare' | 'horse';
export type RaceType = 'Flat' | 'Hurdle' | 'Steeplechase';
export type SectionalSegment = 'L600' | 'L400' | 'L200';

/** A trainer or a jockey: the person's columns. */
const person = () => ({
  id: identity(),
  name: text('name').notNull(),
  /** Home state, or "NZ". */
  state: text('state').notNull(),
});

export const courses = pgTable('courses', {
  id: identity(),
  name: text('name').notNull(),
  /** Australian state or territory; null for New Zealand courses. */
  state: text('state').$type<AustralianState>(),
  country: text('country').$type<CourseCountry>().notNull(),
  category: text('category').$type<CourseCategory>().notNull(),
});

export const meetings = pgTable(
  'meetings',
  {
    id: identity(),
    date: day('date').notNull(),
    courseId: reference('course_id', () => courses.id),
    /** e.g. "Good 4", "Soft 6", "Heavy 8". */
    trackCondition: text('track_condition').notNull(),
    /** 1 (firm) to 10 (heaviest). */
    trackRating: smallint('track_rating').notNull(),
    /** A barrier-trial meeting: its runs are in trial_runs, never in races or runners. */
    isTrial: boolean('is_trial').notNull().default(false),
  },
  (t) => [index('meetings_date_idx').on(t.date), index('meetings_course_id_date_idx').on(t.courseId, t.date)],
);

export const races = pgTable(
  'races',
  {
    id: identity(),
    meetingId: reference('meeting_id', () => meetings.id),
    raceNumber: smallint('race_number').notNull(),
    name: text('name').notNull(),
    /** Metres. */
    distance: integer('distance').notNull(),
    /** e.g. "Maiden", "Class 1", "BM64", "Listed", "Group 1". */
    class: text('class').notNull(),
    raceType: text('race_type').$type<RaceType>().notNull(),
    trackCondition: text('track_condition').notNull(),
    startTime: instant('start_time'),
  },
  (t) => [uniqueIndex('races_meeting_id_race_number_key').on(t.meetingId, t.raceNumber)],
);

export const trainers = pgTable(
  'trainers',
  {
    ...person(),
  },
  (t) => [nameSearchIndex('trainers', t.name)],
);

export const jockeys = pgTable(
  'jockeys',
  {
    ...person(),
    apprentice: boolean('apprentice').notNull().default(false),
  },
  (t) => [nameSearchIndex('jockeys', t.name)],
);

export const horses = pgTable(
  'horses',
  {
    id: identity(),
    name: text('name').notNull(),
    /** Country of birth. */
    country: text('country').$type<HorseCountry>().notNull(),
    foalingYear: smallint('foaling_year').notNull(),
    sex: text('sex').$type<HorseSex>().notNull(),
    sire: text('sire').notNull(),
    dam: text('dam').notNull(),
  },
  (t) => [nameSearchIndex('horses', t.name)],
);

/** Who ran: the horse, its rider and its trainer (of a race's runner or a barrier trial's run). */
const starter = () => ({
  horseId: reference('horse_id', () => horses.id),
  /** Null while the rider is still to be declared. */
  jockeyId: integer('jockey_id').references(() => jockeys.id),
  trainerId: reference('trainer_id', () => trainers.id),
});

export const runners = pgTable(
  'runners',
  {
    id: identity(),
    raceId: reference('race_id', () => races.id),
    ...starter(),
    tabNumber: smallint('tab_number').notNull(),
    barrier: smallint('barrier').notNull(),
    /** Kilograms. */
    weight: numeric('weight', { precision: 4, scale: 1, mode: 'number' }).notNull(),
    /** Decimal odds; null when scratched or before the race is run. */
    startingPrice: numeric('starting_price', { precision: 7, scale: 2, mode: 'number' }),
    scratched: boolean('scratched').notNull().default(false),
    /** Null when scratched or before the race is run; two winners share 1 in a dead heat. */
    finishingPosition: smallint('finishing_position'),
    /** Lengths behind the winner (0 for the winner); null when there is no position. */
    margin: numeric('margin', { precision: 6, scale: 2, mode: 'number' }),
  },
  (t) => [
    uniqueIndex('runners_race_id_tab_number_key').on(t.raceId, t.tabNumber),
    index('runners_horse_id_idx').on(t.horseId),
    index('runners_jockey_id_idx').on(t.jockeyId),
    index('runners_trainer_id_idx').on(t.trainerId),
    // A person's latest win before a date (meeting statistics' last_win_date): wins only.
    index('runners_trainer_id_wins_idx').on(t.trainerId).where(sql`${t.finishingPosition} = 1`),
    index('runners_jockey_id_wins_idx').on(t.jockeyId).where(sql`${t.finishingPosition} = 1`),
  ],
);

export const trialRuns = pgTable(
  'trial_runs',
  {
    id: identity(),
    meetingId: reference('meeting_id', () => meetings.id),
    heatNumber: smallint('heat_number').notNull(),
    distance: integer('distance').notNull(),
    ...starter(),
    barrier: smallint('barrier').notNull(),
    finishingPosition: smallint('finishing_position').notNull(),
    margin: numeric('margin', { precision: 6, scale: 2, mode: 'number' }).notNull(),
    timeSeconds: numeric('time_seconds', { precision: 6, scale: 2, mode: 'number' }).notNull(),
  },
  (t) => [index('trial_runs_horse_id_idx').on(t.horseId), index('trial_runs_meeting_id_idx').on(t.meetingId)],
);

export const sales = pgTable(
  'sales',
  {
    id: identity(),
    horseId: reference('horse_id', () => horses.id),
    saleName: text('sale_name').notNull(),
    lot: integer('lot').notNull(),
    saleDate: day('sale_date').notNull(),
    /** Hammer price in AUD. */
    price: integer('price').notNull(),
    vendor: text('vendor').notNull(),
    purchaser: text('purchaser').notNull(),
  },
  (t) => [index('sales_horse_id_idx').on(t.horseId)],
);

export const sectionalTimes = pgTable(
  'sectional_times',
  {
    id: identity(),
    runnerId: reference('runner_id', () => runners.id),
    /** Time over the last 600, 400 or 200 metres of the race. */
    segment: text('segment').$type<SectionalSegment>().notNull(),
    timeSeconds: numeric('time_seconds', { precision: 5, scale: 2, mode: 'number' }).notNull(),
  },
  (t) => [index('sectional_times_runner_id_idx').on(t.runnerId)],
);

/**
 * Statistics payloads saved by the meeting statistics service (POST /save-stats), one per
 * meeting; the latest save wins. Not generated data: the loader only recreates it empty.
 */
export const meetingStatsPayloads = pgTable(
  'meeting_stats_payloads',
  {
    date: day('date').notNull(),
    courseId: integer('course_id').notNull(),
    trainerStats: jsonb('trainer_stats').notNull(),
    jockeyStats: jsonb('jockey_stats').notNull(),
    savedAt: writtenAt('saved_at'),
  },
  (t) => [primaryKey({ columns: [t.date, t.courseId] })],
);

/** starts_1…6, wins_1…6, places_1…6: the counts of each price band (1 = up to 2.00 … 6 = above 21.00). */
const bandCounts = () =>
  Object.fromEntries(
    (['starts', 'wins', 'places'] as const).flatMap((kind) =>
      [1, 2, 3, 4, 5, 6].map((band) => [`${kind}${band}`, counter(`${kind}_${band}`)]),
    ),
  ) as Record<`${'starts' | 'wins' | 'places'}${1 | 2 | 3 | 4 | 5 | 6}`, ReturnType<typeof integer>>;

// The meeting statistics' daily aggregates: every start (a non-scratched runner with a finishing
// position at a race meeting) counted once per date, per person and per person and horse. A
// meeting's records sum a year of these rather than a year of runners. Triggers on runners, races
// and meetings (migration 0004) recompute the dates a change touches, in the same transaction.

/** All starts of a date, by price band: the statistics' baselines are a year of these rows summed. */
export const meetingStatsDays = pgTable('meeting_stats_days', {
  date: day('date').primaryKey(),
  ...bandCounts(),
});

/** The key every person's daily aggregate starts with: the role, the trainer's or jockey's id, the date. */
const personDay = () => ({
  role: text('role').$type<'trainer' | 'jockey'>().notNull(),
  personId: integer('person_id').notNull(),
  date: day('date').notNull(),
});

/** One trainer's or jockey's starts of a date: totals, distinct meetings, finishing positions, bands. */
export const meetingStatsPersonDays = pgTable(
  'meeting_stats_person_days',
  {
    ...personDay(),
    starts: integer('starts').notNull(),
    wins: integer('wins').notNull(),
    meetings: integer('meetings').notNull(),
    positionSum: integer('position_sum').notNull(),
    ...bandCounts(),
  },
  (t) => [primaryKey({ columns: [t.role, t.personId, t.date] }), index('meeting_stats_person_days_date_idx').on(t.date)],
);

/** One trainer's or jockey's starts and wins with one horse on a date (for the top horses). */
export const meetingStatsPersonHorses = pgTable(
  'meeting_stats_person_horses',
  {
    ...personDay(),
    horseId: integer('horse_id').notNull(),
    starts: integer('starts').notNull(),
    wins: integer('wins').notNull(),
  },
  (t) => [primaryKey({ columns: [t.role, t.personId, t.date, t.horseId] }), index('meeting_stats_person_horses_date_idx').on(t.date)],
);

/** Which generated data set is loaded; absent (no table) when the database holds none. */
export const racingDataset = pgTable('racing_dataset', {
  size: text('size').notNull(),
  seed: integer('seed').notNull(),
  today: day('today').notNull(),
  loadedAt: writtenAt('loaded_at'),
});

// The migration app's bookkeeping in the destination (the racing database). Kept here, beside the
// rows they describe, so a chunk's rows, its id mappings and its cursor commit in one transaction.

/** A configuration's rows about one destination table. */
const configTable = () => ({
  configId: integer('config_id').notNull(),
  destTable: text('dest_table').notNull(),
});

/** A run's rows about one destination table. */
const runTable = () => ({
  runId: text('run_id').notNull(),
  destTable: text('dest_table').notNull(),
});

/** The source row a row speaks of: its key as text (composite keys joined by U+001F) and its table. */
const sourceRow = () => ({
  sourceId: text('source_id').notNull(),
  sourceTable: text('source_table').notNull(),
});

/**
 * Which destination row each copied or matched source row became, per configuration. Ids are text
 * so any key type maps; `source_id` is the source key (composite keys joined by U+001F).
 */
export const migrationIdMappings = pgTable(
  'migration_id_mappings',
  {
    ...configTable(),
    ...sourceRow(),
    destId: text('dest_id').notNull(),
    /** The run that recorded it; null for mappings an operator confirmed or added by hand. */
    runId: text('run_id'),
    createdAt: writtenAt('created_at'),
  },
  // No index on dest_id: reverse look-ups (validation) hash the table's mappings; each index costs
  // every copied row a write.
  (t) => [primaryKey({ columns: [t.configId, t.destTable, t.sourceId] })],
);

/**
 * Id mappings stored as ranges: source ids `source_lo`…`source_hi` (integers) became destination
 * ids `dest_lo`… in the same order. A copy chunk writes one row per run of consecutive ids on both
 * sides (usually one per chunk) instead of one row per source row; `migration_id_mappings` holds
 * the rest (non-integer keys, operator pairs). A source id is in one of the two tables, never both.
 */
export const migrationIdRanges = pgTable(
  'migration_id_ranges',
  {
    ...configTable(),
    sourceLo: bigint('source_lo', { mode: 'number' }).notNull(),
    sourceHi: bigint('source_hi', { mode: 'number' }).notNull(),
    destLo: bigint('dest_lo', { mode: 'number' }).notNull(),
    sourceTable: text('source_table').notNull(),
    runId: text('run_id'),
    createdAt: writtenAt('created_at'),
  },
  (t) => [primaryKey({ columns: [t.configId, t.destTable, t.sourceLo] })],
);

/**
 * A run's committed position per table and phase (`copy`, or `backfill:<column>`): the source key
 * after the last committed chunk and the counters up to it. Advanced in the chunk's own transaction.
 */
export const migrationRunCursors = pgTable(
  'migration_run_cursors',
  {
    ...runTable(),
    phase: text('phase').notNull(),
    /** JSON array of the last copied row's source key values; null before the first chunk. */
    cursor: text('cursor'),
    done: counter('done'),
    inserted: counter('inserted'),
    updated: counter('updated'),
    skipped: counter('skipped'),
    finished: boolean('finished').notNull().default(false),
    updatedAt: writtenAt('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.destTable, t.phase] })],
);

/**
 * Source rows a run set aside: their cast or a constraint failed (SQLSTATE class 22 or 23), so the
 * chunk committed without them. Written in the chunk's own transaction, with its cursor, so a
 * retried chunk never records a row twice; `source_id` is the source key as the id mappings hold it.
 */
export const migrationRejects = pgTable(
  'migration_rejects',
  {
    ...runTable(),
    ...sourceRow(),
    /** The destination column the error names, or whose conversion failed; null when neither says. */
    columnName: text('column_name'),
    /** That column's source value as text (null: the value was NULL, or no column is known). */
    value: text('value'),
    sqlstate: text('sqlstate').notNull(),
    message: text('message').notNull(),
    createdAt: writtenAt('created_at'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.destTable, t.sourceId] })],
);

/** The id mappings as published to the destination (Results → SyncIdMappingsToDestination). */
export const configIdMappings = pgTable(
  'config_id_mappings',
  {
    configId: integer('config_id').notNull(),
    tableName: text('table_name').notNull(),
    sourceId: text('source_id').notNull(),
    destId: text('dest_id').notNull(),
    syncedAt: writtenAt('synced_at'),
  },
  (t) => [primaryKey({ columns: [t.configId, t.tableName, t.sourceId] })],
);
