import type { Reader } from '../engine/db.ts';
import type { ImportAreaDef, WriteRow } from './areas.ts';
import { compileSheetFilter } from './filter.ts';
import { PROBLEM_KINDS, type ProblemKind, readRecords, type SheetRecord } from './records.ts';
import { readSheet } from './sheet/index.ts';

/** What a sheet holds for an import: the same analysis serves the preview and the job. */
export type Analysis = {
  format: 'xlsx' | 'csv';
  sheetName: string | null;
  /** Data rows of the sheet. */
  rows: number;
  /** Headings that match no column (left alone). */
  ignored: string[];
  /** Every row that the filter kept, with its problems (none for a valid row). */
  records: SheetRecord[];
  /** Rows the filter left out (not checked further). */
  filteredOut: number;
  /** The valid rows in sheet order, one per natural key: what an import writes. */
  valid: WriteRow[];
  /** Rows with at least one problem (what an import skips). */
  invalid: number;
  problemCounts: Partial<Record<ProblemKind, number>>;
  fkCounts: Record<string, number>;
};

/**
 * Reads the sheet (SheetError when it cannot be used at all), checks every row, applies the filter
 * (SheetFilterError when it does not compile), finds each row's destination references and marks
 * the second and later rows of one natural key as duplicates.
 */
export async function analyseSheet(
  dest: Reader,
  def: ImportAreaDef,
  bytes: Uint8Array,
  fileName: string,
  fk: Record<string, string>,
  filter = '',
): Promise<Analysis> {
  const sheet = await readSheet(bytes, fileName);
  const { records: all, ignored } = readRecords(sheet, def.columns, def.required(fk));
  const keep = filter.trim()
    ? compileSheetFilter(
        filter,
        def.columns.map((c) => c.key),
      )
    : null;
  const records = keep ? all.filter((r) => keep(r.values)) : all;
  const { rows, fkCounts } = await def.resolve(dest, records, fk);
  const firstLine = new Map<string, number>();
  const byLine = new Map(records.map((r) => [r.line, r]));
  const valid: WriteRow[] = [];
  for (const row of rows) {
    const first = firstLine.get(row.key);
    if (first === undefined) {
      firstLine.set(row.key, row.line);
      valid.push(row);
    } else {
      byLine.get(row.line)?.problems.push({
        column: null,
        kind: 'duplicate',
        message: `The same ${def.area === 'Sectional' ? 'runner and segment' : 'heat and horse'} as row ${first}`,
      });
    }
  }
  const problemCounts: Partial<Record<ProblemKind, number>> = {};
  let invalid = 0;
  for (const record of records) {
    if (record.problems.length) invalid++;
    for (const kind of new Set(record.problems.map((p) => p.kind))) problemCounts[kind] = (problemCounts[kind] ?? 0) + 1;
  }
  const ordered = Object.fromEntries(PROBLEM_KINDS.filter((k) => problemCounts[k]).map((k) => [k, problemCounts[k]!]));
  return {
    format: sheet.format,
    sheetName: sheet.sheetName,
    rows: sheet.rows.length,
    ignored,
    records,
    filteredOut: all.length - records.length,
    valid,
    invalid,
    problemCounts: ordered,
    fkCounts,
  };
}
