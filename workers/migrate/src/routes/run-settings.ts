import { MAX_PARALLEL_TABLES, parallelTablesOf } from '../engine/parallel.ts';
import { text } from '../input.ts';

/** RunConfig's tables-at-once setting: empty means the engine's default; a whole number 1…MAX_PARALLEL_TABLES. */
export const parallelTablesField = text(3)
  .trim()
  .regex(/^\d*$/, 'must be a whole number')
  .optional()
  .transform((v) => (v ? Number(v) : parallelTablesOf({})))
  .refine((n) => n >= 1 && n <= MAX_PARALLEL_TABLES, `must be from 1 to ${MAX_PARALLEL_TABLES}`);
