import { DEFAULT_PARALLEL_TABLES, MAX_PARALLEL_TABLES } from '../../engine/parallel.ts';

/** RunConfig's tables-at-once setting (the run plan's parallelTables). */
export function ParallelTablesField({ value }: { value?: number }) {
  return (
    <label>
      Tables copied at the same time (tables with no foreign key between them; a table still waits for the tables its foreign keys point at)
      <input
        type="number"
        name="parallelTables"
        min="1"
        max={String(MAX_PARALLEL_TABLES)}
        step="1"
        inputmode="numeric"
        value={String(value ?? DEFAULT_PARALLEL_TABLES)}
      />
    </label>
  );
}
