import type { FilterValue } from './filter.ts';
import { type Sheet, type SheetCell, SheetError } from './sheet/index.ts';

// A spreadsheet's rows as an import reads them: headings matched to the area's columns, each cell
// checked and converted (dates to YYYY-MM-DD, times to seconds), and the problems of each row listed
// in the words the preview shows. Nothing here reads a database; the areas resolve references.

export type ColumnKind = 'date' | 'text' | 'int' | 'number' | 'seconds' | 'segment';

export type ColumnDef = {
  /** The value's key (lower case): what filters name. */
  key: string;
  /** The heading the example sheets and the page use. */
  heading: string;
  /** Other headings taken for it (compared without case, spaces, dots and underscores). */
  aliases: readonly string[];
  kind: ColumnKind;
  required: boolean;
  min?: number;
  max?: number;
  /** Shown on the area's page. */
  help: string;
};

export const PROBLEM_KINDS = [
  'missing value',
  'bad date',
  'bad number',
  'bad time',
  'bad segment',
  'unknown meeting',
  'unknown race',
  'unknown horse',
  'unknown trainer',
  'unknown jockey',
  'ambiguous name',
  'scratched runner',
  'duplicate',
] as const;
export type ProblemKind = (typeof PROBLEM_KINDS)[number];

export type Problem = { column: string | null; kind: ProblemKind; message: string };

/** One data row of the sheet: its line as the user sees it, its values (null where missing or bad), its problems. */
export type SheetRecord = { line: number; values: Record<string, FilterValue>; problems: Problem[] };

const normalise = (heading: string) => heading.toLowerCase().replace(/[\s._-]+/g, '');

/** Where each column is in the sheet; throws SheetError when a required column has no heading. */
export function mapColumns(
  sheet: Sheet,
  columns: readonly ColumnDef[],
  required: ReadonlySet<string>,
): { positions: Map<string, number>; ignored: string[] } {
  const byHeading = new Map(sheet.header.map((h, i) => [normalise(h), i] as const));
  const positions = new Map<string, number>();
  for (const column of columns) {
    const found = [column.heading, ...column.aliases].map((h) => byHeading.get(normalise(h))).find((i) => i !== undefined);
    if (found !== undefined) positions.set(column.key, found);
  }
  const missing = columns.filter((c) => required.has(c.key) && !positions.has(c.key)).map((c) => `"${c.heading}"`);
  if (missing.length) {
    throw new SheetError(
      `The sheet has no ${missing.join(', ')} column${missing.length > 1 ? 's' : ''}. Its headings are: ${sheet.header.map((h) => `"${h}"`).join(', ')}. Expected: ${columns.map((c) => c.heading).join(', ')}.`,
    );
  }
  const used = new Set(positions.values());
  return { positions, ignored: sheet.header.filter((_, i) => !used.has(i)) };
}

const pad = (n: number) => String(n).padStart(2, '0');

function isoDate(year: number, month: number, day: number): string | null {
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  if (year < 1990 || year > 2100) return null;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** Excel's serial day numbers (1900 system) of 1990 to 2100. */
const SERIAL_MIN = 32_874;
const SERIAL_MAX = 73_051;

/**
 * A date cell: the reader's YYYY-MM-DD (Excel date cells), text in YYYY-MM-DD, D/M/YYYY or
 * D-M-YYYY (day first, as Australian sheets write it; two-digit years are 20xx), or an Excel
 * serial day number typed as a plain number.
 */
export function parseDate(cell: SheetCell): string | null {
  if (typeof cell === 'number') {
    if (!Number.isInteger(cell) || cell < SERIAL_MIN || cell > SERIAL_MAX) return null;
    const d = new Date(Date.UTC(1899, 11, 30) + cell * 86_400_000);
    return isoDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
  }
  if (typeof cell !== 'string') return null;
  const text = cell.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.exec(text);
  if (m) return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$/.exec(text);
  if (m) return isoDate(m[3]!.length === 2 ? 2000 + Number(m[3]) : Number(m[3]), Number(m[2]), Number(m[1]));
  if (/^\d{5}$/.test(text)) return parseDate(Number(text));
  return null;
}

/** A number cell, or text holding one (thousands separators not allowed). */
export function parseNumber(cell: SheetCell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell !== 'string') return null;
  const text = cell.trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return Number(text);
}

/**
 * A time in seconds: a number (the reader turns time-formatted cells into seconds), or text as
 * `58.21`, `58.21s`, `0:58.21` or `1:02.35` (minutes and seconds).
 */
export function parseSeconds(cell: SheetCell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) && cell > 0 ? cell : null;
  if (typeof cell !== 'string') return null;
  const text = cell.trim().toLowerCase();
  let m = /^(\d+(?:\.\d+)?)\s*s?$/.exec(text);
  if (m) return Number(m[1]) > 0 ? Number(m[1]) : null;
  m = /^(\d{1,2}):([0-5]\d(?:\.\d+)?)$/.exec(text);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  return null;
}

const SEGMENTS = ['L600', 'L400', 'L200'] as const;

/** `L600`, `600`, `600m`, `last 600` → L600. */
export function parseSegment(cell: SheetCell): string | null {
  const text =
    typeof cell === 'number'
      ? String(cell)
      : typeof cell === 'string'
        ? cell
            .trim()
            .toUpperCase()
            .replace(/^LAST\s*/, 'L')
            .replace(/M$/, '')
        : '';
  const segment = /^L?(600|400|200)$/.exec(text);
  return segment ? `L${segment[1]}` : null;
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

function describe(cell: SheetCell): string {
  const text = String(cell);
  return text.length > 40 ? `"${text.slice(0, 40)}…"` : `"${text}"`;
}

/** One cell checked against its column: the value, or null and a problem. */
function cellValue(column: ColumnDef, cell: SheetCell, required: boolean): { value: FilterValue; problem?: Problem } {
  const empty = cell === null || (typeof cell === 'string' && cell.trim() === '');
  if (empty)
    return {
      value: null,
      problem: required ? { column: column.key, kind: 'missing value', message: `${column.heading} is empty` } : undefined,
    };
  const range = (n: number) => (column.min !== undefined && n < column.min) || (column.max !== undefined && n > column.max);
  const limits = `${column.min ?? '…'} to ${column.max ?? '…'}`;
  switch (column.kind) {
    case 'date': {
      const date = parseDate(cell);
      return date
        ? { value: date }
        : {
            value: null,
            problem: {
              column: column.key,
              kind: 'bad date',
              message: `${column.heading} ${describe(cell)} is not a date (write YYYY-MM-DD or DD/MM/YYYY)`,
            },
          };
    }
    case 'int':
    case 'number': {
      const n = parseNumber(cell);
      if (n === null || (column.kind === 'int' && !Number.isInteger(n)) || range(n)) {
        return {
          value: null,
          problem: {
            column: column.key,
            kind: 'bad number',
            message: `${column.heading} ${describe(cell)} is not ${column.kind === 'int' ? 'a whole number' : 'a number'} from ${limits}`,
          },
        };
      }
      return { value: column.kind === 'number' ? round(n, 2) : n };
    }
    case 'seconds': {
      const s = parseSeconds(cell);
      if (s === null || range(s)) {
        return {
          value: null,
          problem: {
            column: column.key,
            kind: 'bad time',
            message: `${column.heading} ${describe(cell)} is not a time from ${limits} seconds (write 58.21 or 0:58.21)`,
          },
        };
      }
      return { value: round(s, 2) };
    }
    case 'segment': {
      const segment = parseSegment(cell);
      return segment
        ? { value: segment }
        : {
            value: null,
            problem: { column: column.key, kind: 'bad segment', message: `${column.heading} ${describe(cell)} is not L600, L400 or L200` },
          };
    }
    case 'text': {
      const text = String(cell).trim();
      if (column.max !== undefined && text.length > column.max) {
        return {
          value: null,
          problem: { column: column.key, kind: 'bad number', message: `${column.heading} is longer than ${column.max} characters` },
        };
      }
      return { value: text };
    }
  }
}

/** Every data row of the sheet as a record: its values and its format problems. */
export function readRecords(
  sheet: Sheet,
  columns: readonly ColumnDef[],
  required: ReadonlySet<string>,
): { records: SheetRecord[]; ignored: string[] } {
  const { positions, ignored } = mapColumns(sheet, columns, required);
  const records = sheet.rows.map((row) => {
    const values: Record<string, FilterValue> = {};
    const problems: Problem[] = [];
    for (const column of columns) {
      const at = positions.get(column.key);
      const { value, problem } = cellValue(column, at === undefined ? null : (row.cells[at] ?? null), required.has(column.key));
      values[column.key] = value;
      if (problem) problems.push(problem);
    }
    return { line: row.line, values, problems };
  });
  return { records, ignored };
}
