// What both readers share: the result's shape, the limits, the error whose message the user sees,
// and the builder that turns rows of cells into a header and data rows.

export type SheetCell = string | number | boolean | null;
/** line: the row number as the user sees it (the Excel row, or the CSV line the row starts on). */
export type SheetRow = { line: number; cells: SheetCell[] };
export type Sheet = { format: 'xlsx' | 'csv'; sheetName: string | null; header: string[]; rows: SheetRow[] };

/** Its message is shown to the user as is: say what is wrong and where (cell address or line). */
export class SheetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SheetError';
  }
}

export const MiB = 1024 * 1024;

export const SHEET_LIMITS: {
  maxBytes: number;
  maxRows: number;
  maxColumns: number;
  maxUncompressedBytes: number;
  maxCellLength: number;
} = {
  maxBytes: 20 * MiB,
  maxRows: 200_000,
  maxColumns: 64,
  maxUncompressedBytes: 150 * MiB,
  maxCellLength: 1000,
};

export type Limits = typeof SHEET_LIMITS;

export function formatBytes(n: number): string {
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${n} bytes`;
}

export function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Where a cell is, for messages: "cell C7" or "line 7, column 3". */
export type Where = (line: number, column: number) => string;

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function checkText(value: string, lim: Limits, where: () => string): void {
  if (value.length > lim.maxCellLength) {
    throw new SheetError(`${capital(where())} holds ${value.length} characters, more than the ${lim.maxCellLength} allowed`);
  }
  if (value.indexOf('\u0000') >= 0) throw new SheetError(`${capital(where())} holds a NUL character (U+0000)`);
}

export class SheetBuilder {
  private header: string[] | null = null;
  private readonly rows: SheetRow[] = [];

  constructor(
    private readonly format: 'xlsx' | 'csv',
    private readonly sheetName: string | null,
    private readonly lim: Limits,
    private readonly where: Where,
  ) {}

  /** The number of columns, once the header row has been read. */
  get width(): number | null {
    return this.header ? this.header.length : null;
  }

  /** cells: converted and text-checked; may be longer or shorter than the header. Takes ownership. */
  add(line: number, cells: SheetCell[]): void {
    let last = cells.length - 1;
    while (last >= 0 && cells[last] === null) last--;
    if (last < 0) return; // an entirely empty row
    const header = this.header;
    if (header === null) {
      this.setHeader(line, cells, last + 1);
      return;
    }
    const width = header.length;
    if (last >= width) {
      for (let c = width; c <= last; c++) {
        if (cells[c] !== null) {
          throw new SheetError(
            `${capital(this.where(line, c))} holds a value, but its column has no heading (the header row has ${width} columns)`,
          );
        }
      }
    }
    if (this.rows.length >= this.lim.maxRows) {
      throw new SheetError(`The sheet has more than ${this.lim.maxRows} data rows: split it into smaller files`);
    }
    if (cells.length > width) cells.length = width;
    while (cells.length < width) cells.push(null);
    this.rows.push({ line, cells });
  }

  private setHeader(line: number, cells: SheetCell[], width: number): void {
    if (width > this.lim.maxColumns) {
      throw new SheetError(
        `The header row (${this.format === 'xlsx' ? 'row' : 'line'} ${line}) has ${width} columns, more than the ${this.lim.maxColumns} allowed`,
      );
    }
    const header: string[] = [];
    const seen = new Map<string, number>();
    for (let c = 0; c < width; c++) {
      const value = cells[c];
      const heading = value === null || value === undefined ? '' : String(value).trim();
      if (heading === '') throw new SheetError(`Column ${c + 1} has no heading (${this.where(line, c)})`);
      const key = heading.toLowerCase();
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw new SheetError(
          `Columns ${earlier + 1} and ${c + 1} have the same heading "${heading}" (${this.where(line, c)}): every column needs its own heading`,
        );
      }
      seen.set(key, c);
      header.push(heading);
    }
    this.header = header;
  }

  finish(): Sheet {
    if (this.header === null) throw new SheetError('The sheet is empty');
    if (this.rows.length === 0) throw new SheetError('The sheet has a header row but no data rows');
    return { format: this.format, sheetName: this.sheetName, header: this.header, rows: this.rows };
  }
}
