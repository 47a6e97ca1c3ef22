import {
  courses,
  horses,
  jockeys,
  meetings,
  races,
  runners,
  sales,
  sectionalTimes,
  trainers,
  trialRuns,
} from '../../workers/shared/racing/schema';

/** The generated tables, by SQL name, in an order that satisfies their foreign keys. */
export const RACING_TABLES = {
  courses,
  trainers,
  jockeys,
  horses,
  sales,
  meetings,
  races,
  runners,
  sectional_times: sectionalTimes,
  trial_runs: trialRuns,
} as const;

export type RacingTableName = keyof typeof RACING_TABLES;

/** One value per table, in RACING_TABLES order. */
export function perTable<V>(make: (table: RacingTableName) => V): { [T in RacingTableName]: V } {
  return {
    courses: make('courses'),
    trainers: make('trainers'),
    jockeys: make('jockeys'),
    horses: make('horses'),
    sales: make('sales'),
    meetings: make('meetings'),
    races: make('races'),
    runners: make('runners'),
    sectional_times: make('sectional_times'),
    trial_runs: make('trial_runs'),
  };
}

export const RACING_TABLE_NAMES: readonly RacingTableName[] = Object.values(perTable((table) => table));

export type RacingRow<T extends RacingTableName> = (typeof RACING_TABLES)[T]['$inferSelect'];
export type RacingRows = { [T in RacingTableName]: RacingRow<T>[] };

/** Rows of one table, as the generator hands them out. */
export type RacingBatch = { [T in RacingTableName]: { table: T; rows: RacingRow<T>[] } }[RacingTableName];

export type CourseRow = RacingRow<'courses'>;
export type TrainerRow = RacingRow<'trainers'>;
export type JockeyRow = RacingRow<'jockeys'>;
export type HorseRow = RacingRow<'horses'>;
export type SaleRow = RacingRow<'sales'>;
export type MeetingRow = RacingRow<'meetings'>;
export type RaceRow = RacingRow<'races'>;
export type RunnerRow = RacingRow<'runners'>;
export type SectionalTimeRow = RacingRow<'sectional_times'>;
export type TrialRunRow = RacingRow<'trial_runs'>;
