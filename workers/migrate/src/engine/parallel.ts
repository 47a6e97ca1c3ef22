import type { RunPlan } from './types.ts';

/**
 * Tables copied at the same time when the run's settings do not say (see CopyPipeline); chosen by
 * measurement (engine README, Bench). At most MAX_PARALLEL_TABLES: each table keeps up to two
 * chunks in flight, each on a destination connection of the pool's ten.
 */
export const DEFAULT_PARALLEL_TABLES = 4;
export const MAX_PARALLEL_TABLES = 4;

export function parallelTablesOf(plan: Pick<RunPlan, 'parallelTables'>): number {
  const n = Math.floor(plan.parallelTables ?? DEFAULT_PARALLEL_TABLES);
  return Number.isFinite(n) ? Math.min(MAX_PARALLEL_TABLES, Math.max(1, n)) : DEFAULT_PARALLEL_TABLES;
}
