import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { pgDate, pgInt, pgNumeric } from '#shared/pg.ts';

/** One start as every form page shows it, whoever it is listed for (horse, jockey or trainer). */
export interface Run {
  race_id: number;
  date: string;
  meeting_id: number;
  course: string;
  country: string;
  race_number: number;
  race_name: string;
  /** Metres. */
  distance: number;
  class_level: string;
  race_type: string;
  /** e.g. "Good 4". */
  track_condition: string;
  horse_id: number;
  horse: string;
  jockey_id: number | null;
  jockey: string | null;
  trainer_id: number;
  trainer: string;
  tab_number: number;
  barrier: number;
  weight: number;
  starting_price: number | null;
  /** Null until the race is run. */
  finishing_position: number | null;
  margin: number | null;
  /** Starters (scratchings excluded). */
  field_size: number;
  /** Time over the last 600 m, when recorded. */
  last_600: number | null;
}

/** The page-level cap the spec sets on runs. */
export const MAX_RUNS = 200;

/**
 * A run as the form statements build it (a JSON object per run): checked as it is read. Numeric
 * columns (weight, price, margin, sectional) arrive as JSON numbers.
 */
export const runSchema = z.object({
  race_id: pgInt,
  date: pgDate,
  meeting_id: pgInt,
  course: z.string(),
  country: z.string(),
  race_number: pgInt,
  race_name: z.string(),
  distance: pgInt,
  class_level: z.string(),
  race_type: z.string(),
  track_condition: z.string(),
  horse_id: pgInt,
  horse: z.string(),
  jockey_id: pgInt.nullable(),
  jockey: z.string().nullable(),
  trainer_id: pgInt,
  trainer: z.string(),
  tab_number: pgInt,
  barrier: pgInt,
  weight: pgNumeric,
  starting_price: pgNumeric.nullable(),
  finishing_position: pgInt.nullable(),
  margin: pgNumeric.nullable(),
  field_size: pgInt,
  last_600: pgNumeric.nullable(),
}) satisfies z.ZodType<Run>;

/** The columns of a run, over `ru` (runners) joined as below. */
const RUN_COLUMNS = sql`
  ru.race_id, m.date::text as date, m.id as meeting_id, co.name as course, co.country,
  ra.race_number, ra.name as race_name, ra.distance, ra.class as class_level, ra.race_type, ra.track_condition,
  ru.horse_id, (select h.name from horses h where h.id = ru.horse_id) as horse,
  ru.jockey_id, (select j.name from jockeys j where j.id = ru.jockey_id) as jockey,
  ru.trainer_id, (select t.name from trainers t where t.id = ru.trainer_id) as trainer,
  ru.tab_number, ru.barrier, ru.weight, ru.starting_price, ru.finishing_position, ru.margin,
  (select count(*) from runners f where f.race_id = ru.race_id and not f.scratched)::int as field_size,
  (select st.time_seconds from sectional_times st where st.runner_id = ru.id and st.segment = 'L600' limit 1) as last_600`;

// The horse's, jockey's and trainer's names are looked up by key (scalar subqueries) rather than
// joined: the planner's join search grows steeply with each joined table, and for the few hundred
// rows of a page its planning, not its execution, was most of the statement's time.
const RUN_JOINS = sql`
  from runners ru
  join races ra on ra.id = ru.race_id
  join meetings m on m.id = ra.meeting_id
  join courses co on co.id = m.course_id`;

/** Runs (scratchings left out), latest first, at most MAX_RUNS. */
export function runsOf(filter: SQL): SQL {
  return sql`select ${RUN_COLUMNS} ${RUN_JOINS}
    where ${filter} and not ru.scratched
    order by m.date desc, ra.race_number desc, ru.race_id desc
    limit ${MAX_RUNS}`;
}
