// The two spreadsheet imports (README, "Barrier trials and sectional times"): the columns each
// sheet has, how its references find destination rows (the foreign-key choices), and the one
// statement that writes a chunk of valid rows. Rows are matched to what the racing database
// already holds by a natural key, so importing the same sheet again changes nothing:
//   trial_runs       (meeting_id, heat_number, horse_id)   the trial meeting by date and course
//   sectional_times  (runner_id, segment)                  the runner by date, course, race and horse or tab
// Each area is its own module under areas/.

import { z } from 'zod';
import type { IMPORT_AREAS } from '#d1/migrate/schema.ts';
import { parseOne, pgCount } from '#shared/pg.ts';
import type { Reader, Sql } from '../engine/db.ts';
import { barrierTrials } from './areas/barrier-trials.ts';
import { sectional } from './areas/sectional.ts';
import type { ColumnDef, SheetRecord } from './records.ts';

export { SEGMENT_SECONDS } from './areas/sectional.ts';

export type ImportArea = (typeof IMPORT_AREAS)[number];

/** A row ready to write: its sheet line, its natural key (duplicates), the write statement's values. */
export type WriteRow = { line: number; key: string; values: (number | string | null)[] };

export type WriteCounts = { inserted: number; updated: number; unchanged: number };

export type FkChoice = { key: string; label: string; options: readonly { value: string; label: string }[] };

export type Resolution = {
  rows: WriteRow[];
  /** Per reference: how many rows it resolved for. */
  fkCounts: Record<string, number>;
};

export type ImportAreaDef = {
  area: ImportArea;
  title: string;
  /** JSON routes' prefix. */
  prefix: string;
  /** The destination table it writes (livecounts, ClearData). */
  table: string;
  columns: readonly ColumnDef[];
  fk: readonly FkChoice[];
  fkSchema: z.ZodType<Record<string, string>>;
  defaultFk: Record<string, string>;
  /** The columns a sheet must have under these foreign-key choices. */
  required(fk: Record<string, string>): Set<string>;
  /** Finds each record's destination rows, adding a problem where one is missing; the rows to write. */
  resolve(dest: Reader, records: SheetRecord[], fk: Record<string, string>): Promise<Resolution>;
  /** Writes one chunk (inside the caller's transaction). */
  write(tx: Sql, rows: WriteRow[], fk: Record<string, string>): Promise<WriteCounts>;
  /** A one-line account of a row for the log and the preview. */
  label(values: SheetRecord['values']): string;
};

export const IMPORT_AREA_DEFS: Record<ImportArea, ImportAreaDef> = { BarrierTrials: barrierTrials, Sectional: sectional };

/** `/BarrierTrials` or `/Sectional` pages; `barriertrials` or `sectional` in the JSON prefix. */
export const areaDef = (area: ImportArea): ImportAreaDef => IMPORT_AREA_DEFS[area];

/** The foreign-key choices of a form or of stored JSON, defaults filled in; unknown values refused by the schema. */
export function fkConfig(def: ImportAreaDef, raw: unknown): Record<string, string> {
  const parsed = def.fkSchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : { ...def.defaultFk };
}

const countRow = z.object({ n: pgCount });

/** How many rows an import area's destination table holds. */
export async function destinationCount(sql: Reader, table: string): Promise<number> {
  return parseOne(`the count of ${table}`, countRow, await sql.query(`SELECT count(*) AS n FROM ${table}`)).n;
}
