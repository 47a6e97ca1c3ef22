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
