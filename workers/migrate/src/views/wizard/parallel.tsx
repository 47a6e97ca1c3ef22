import { DEFAULT_PARALLEL_TABLES, MAX_PARALLEL_TABLES } from '../../engine/parallel.ts';
import { WholeNumberField } from './common.tsx';

/** RunConfig's tables-at-once setting (the run plan's parallelTables). */
export function ParallelTablesField({ value }: { value?: number }) {
  return (
    <WholeNumberField
      label="Tables copied at the same time (tables with no foreign key between them; a table still waits for the tables its foreign keys point at)"
      name="parallelTables"
      min={1}
      max={MAX_PARALLEL_TABLES}
      value={value ?? DEFAULT_PARALLEL_TABLES}
    />
  );
}
