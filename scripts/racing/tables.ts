import { courses, horses, jockeys, meetings, races, runners, sales, sectionalTimes, trainers, trialRuns } from '#shared/racing/schema.ts';

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
export type RunnerRow = RacingRow<'runners'>;

/** One table's rows as a batch (a switch, so each batch keeps its table's row type). */
export function batchOf(rows: RacingRows, table: RacingTableName): RacingBatch {
  switch (table) {
    case 'courses':
      return { table, rows: rows[table] };
    case 'trainers':
      return { table, rows: rows[table] };
    case 'jockeys':
      return { table, rows: rows[table] };
    case 'horses':
      return { table, rows: rows[table] };
    case 'sales':
      return { table, rows: rows[table] };
    case 'meetings':
      return { table, rows: rows[table] };
    case 'races':
      return { table, rows: rows[table] };
    case 'runners':
      return { table, rows: rows[table] };
    case 'sectional_times':
      return { table, rows: rows[table] };
    case 'trial_runs':
      return { table, rows: rows[table] };
  }
}

export function appendBatch(all: RacingRows, batch: RacingBatch): void {
  switch (batch.table) {
    case 'courses':
      all.courses.push(...batch.rows);
      break;
    case 'trainers':
      all.trainers.push(...batch.rows);
      break;
    case 'jockeys':
      all.jockeys.push(...batch.rows);
      break;
    case 'horses':
      all.horses.push(...batch.rows);
      break;
    case 'sales':
      all.sales.push(...batch.rows);
      break;
    case 'meetings':
      all.meetings.push(...batch.rows);
      break;
    case 'races':
      all.races.push(...batch.rows);
      break;
    case 'runners':
      all.runners.push(...batch.rows);
      break;
    case 'sectional_times':
      all.sectional_times.push(...batch.rows);
      break;
    case 'trial_runs':
      all.trial_runs.push(...batch.rows);
      break;
  }
}
