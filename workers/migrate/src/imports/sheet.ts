// Reading an uploaded spreadsheet (.xlsx or .csv) into a header and rows of plain values, and
// writing such files (tests, the example sheets, the benchmark).
//
// Runs in a Worker and a Durable Object: Web-standard APIs only. .xlsx goes through SheetJS, but
// only after the zip itself has been checked here (sizes declared in its central directory), so a
// zip bomb is refused before anything is inflated. CSV has its own small RFC 4180 reader.

import * as XLSX from '@e965/xlsx';

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

const MiB = 1024 * 1024;

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

type Limits = typeof SHEET_LIMITS;

/** An entry compressed more than this (and bigger than BOMB_MIN_ENTRY once inflated) is refused. */
const BOMB_RATIO = 200;
const BOMB_MIN_ENTRY = MiB;

// ---------------------------------------------------------------------------------------------
// Entry point

export function readSheet(bytes: Uint8Array, fileName: string, limits?: Partial<Limits>): Sheet {
  const lim: Limits = { ...SHEET_LIMITS, ...limits };
  const name = fileName || 'The file';
  if (bytes.length === 0) throw new SheetError(`"${name}" is empty`);
  if (bytes.length > lim.maxBytes) {
    throw new SheetError(`"${name}" is larger than ${formatBytes(lim.maxBytes)}: split it into smaller files`);
  }
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return readXlsx(bytes, name, lim);

  const binary = binaryKind(bytes);
  if (binary) throw new SheetError(`"${name}" is not an .xlsx or .csv file (${binary})`);

  const text = decodeUtf8(bytes);
  if (/\.csv$/i.test(fileName)) {
    if (text === null) {
      throw new SheetError(`"${name}" is not UTF-8 text: save it again as "CSV UTF-8 (comma delimited)"`);
    }
    return readCsv(text, lim);
  }
  if (text === null || !looksLikeText(text)) throw new SheetError(`"${name}" is not an .xlsx or .csv file`);
  return readCsv(text, lim);
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Names the well-known binary formats people upload by mistake. */
function binaryKind(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return 'it is an old .xls workbook or a password-protected one: save it from Excel as .xlsx without a password';
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'it is a PDF';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return 'it is a PNG image';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'it is a JPEG image';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'it is a GIF image';
  if (startsWith(bytes, [0x50, 0x4b])) return 'it is a damaged or unusual zip file';
  return null;
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    // Strips a leading BOM (ignoreBOM defaults to false).
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** For files not named .csv: text without the control characters binary files are full of. */
function looksLikeText(text: string): boolean {
  const end = Math.min(text.length, 65536);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) return false;
  }
  return true;
}

function formatBytes(n: number): string {
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${n} bytes`;
}

// ---------------------------------------------------------------------------------------------
// Header and rows, shared by both formats

/** Where a cell is, for messages: "cell C7" or "line 7, column 3". */
type Where = (line: number, column: number) => string;

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function checkText(value: string, lim: Limits, where: () => string): void {
  if (value.length > lim.maxCellLength) {
    throw new SheetError(
      `${capital(where())} holds ${value.length} characters, more than the ${lim.maxCellLength} allowed`,
    );
  }
  if (value.indexOf('\u0000') >= 0) throw new SheetError(`${capital(where())} holds a NUL character (U+0000)`);
}

class SheetBuilder {
  private header: string[] | null = null;
  private readonly rows: SheetRow[] = [];

  constructor(
    private readonly format: 'xlsx' | 'csv',
    private readonly sheetName: string | null,
    private readonly lim: Limits,
    private readonly where: Where,
  ) {}

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

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180, plus: ; or tab delimiters, CR / LF / CRLF line ends, lenient text after quotes)

function detectDelimiter(text: string): string {
  // The first non-empty line (outside quotes) is the header.
  let comma = 0;
  let semicolon = 0;
  let tab = 0;
  let quoted = false;
  let seen = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (quoted) continue;
    else if (c === 10 || c === 13) {
      if (seen) break;
    } else if (c === 44) comma++;
    else if (c === 59) semicolon++;
    else if (c === 9) tab++;
    if (c !== 10 && c !== 13 && c !== 32) seen = true;
  }
  if (semicolon > comma && semicolon >= tab) return ';';
  if (tab > comma && tab > semicolon) return '\t';
  return ',';
}

function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) n++;
  }
  return n;
}

function readCsv(input: string, lim: Limits): Sheet {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const D = detectDelimiter(text).charCodeAt(0);
  const where: Where = (line, column) => `line ${line}, column ${column + 1}`;
  const builder = new SheetBuilder('csv', null, lim, where);
  const n = text.length;
  let i = 0;
  let line = 1;

  const cell = (raw: string, rowLine: number, column: number): SheetCell => {
    const value = raw.trim();
    if (value === '') return null;
    checkText(value, lim, () => where(rowLine, column));
    if (value.charCodeAt(0) === 61 /* = */) {
      throw new SheetError(
        `${capital(where(rowLine, column))} holds a formula (${clip(value)}): save the sheet with values only`,
      );
    }
    return value;
  };

  while (i < n) {
    const rowLine = line;
    const cells: SheetCell[] = [];
    for (;;) {
      let c = text.charCodeAt(i);
      if (c === 32 && D !== 32) {
        // Spaces before an opening quote: `a, "b"`.
        let j = i;
        while (text.charCodeAt(j) === 32) j++;
        if (text.charCodeAt(j) === 34) {
          i = j;
          c = 34;
        }
      }
      let raw: string;
      if (c === 34) {
        const quoteLine = line;
        let from = i + 1;
        raw = '';
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            throw new SheetError(
              `Line ${quoteLine}, column ${cells.length + 1}: a quoted value is never closed (a " is missing)`,
            );
          }
          raw += text.slice(from, q);
          line += countLineBreaks(text, from, q);
          if (text.charCodeAt(q + 1) === 34) {
            raw += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        // Anything between the closing quote and the delimiter is kept as text.
        let j = i;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === D || d === 10 || d === 13) break;
          j++;
        }
        if (j > i) raw += text.slice(i, j);
        i = j;
      } else {
        let j = i;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === D || d === 10 || d === 13) break;
          j++;
        }
        raw = text.slice(i, j);
        i = j;
      }
      cells.push(cell(raw, rowLine, cells.length));
      if (i >= n) break;
      c = text.charCodeAt(i);
      if (c === D) {
        i++;
        if (i >= n) cells.push(null);
        continue;
      }
      i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
      line++;
      break;
    }
    builder.add(rowLine, cells);
  }
  return builder.finish();
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// The zip under an .xlsx: checked before SheetJS inflates anything

function readZipDirectory(bytes: Uint8Array, name: string, lim: Limits): Uint8Array {
  const corrupt = (why: string) => new SheetError(`"${name}" is damaged and cannot be read as an .xlsx file (${why})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.length;
  if (len < 22) throw corrupt('it is too short');

  // End of central directory: the last signature within the final 64 KiB + 22 bytes.
  let eocd = -1;
  for (let p = len - 22; p >= Math.max(0, len - 22 - 0xffff); p--) {
    if (bytes[p] === 0x50 && bytes[p + 1] === 0x4b && bytes[p + 2] === 0x05 && bytes[p + 3] === 0x06) {
      eocd = p;
      break;
    }
  }
  if (eocd < 0) throw corrupt('no zip directory was found');
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) {
    throw new SheetError(`"${name}" uses the ZIP64 format, which cannot be read here: save it again from Excel`);
  }
  if (count === 0) throw corrupt('the zip holds no files');
  if (cdOffset + cdSize > eocd) throw corrupt('the zip directory is out of place');

  let total = 0;
  let hasContentTypes = false;
  let patches: { at: number; csz: number; usz: number }[] | null = null;
  let p = cdOffset;
  for (let k = 0; k < count; k++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== 0x02014b50) throw corrupt('a zip directory entry is broken');
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    let csz = view.getUint32(p + 20, true);
    let usz = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    let local = view.getUint32(p + 42, true);
    const entryEnd = p + 46 + nameLen + extraLen + commentLen;
    if (entryEnd > eocd) throw corrupt('a zip directory entry is broken');
    const entryName = latin1(bytes, p + 46, nameLen);
    if (usz === 0xffffffff || csz === 0xffffffff || local === 0xffffffff) {
      const z64 = zip64Extra(view, p + 46 + nameLen, extraLen, usz === 0xffffffff, csz === 0xffffffff, local === 0xffffffff);
      if (!z64) throw corrupt('a ZIP64 entry is broken');
      usz = z64.usz ?? usz;
      csz = z64.csz ?? csz;
      local = z64.local ?? local;
    }
    p = entryEnd;

    if (flags & 0x41) throw new SheetError(`"${name}" is encrypted: save it from Excel without a password`);
    if (method !== 0 && method !== 8) throw corrupt(`compression method ${method} is not supported`);
    if (entryName === '[Content_Types].xml') hasContentTypes = true;

    total += usz;
    if (total > lim.maxUncompressedBytes) {
      throw new SheetError(
        `"${name}" expands to more than ${formatBytes(lim.maxUncompressedBytes)} when unpacked: refused`,
      );
    }
    if (usz > BOMB_MIN_ENTRY && usz > BOMB_RATIO * csz) {
      throw new SheetError(
        `"${name}" expands to more than ${BOMB_RATIO} times its size when unpacked (${entryName}: ${formatBytes(usz)} from ${formatBytes(csz)}): refused`,
      );
    }
    // Deflate cannot make data much bigger; a "compressed" size far above the unpacked one is a lie.
    if (method === 8 && csz > usz + Math.ceil(usz / 100) + 1024) throw corrupt(`the sizes of ${entryName} do not agree`);
    if (method === 0 && csz !== usz) throw corrupt(`the sizes of ${entryName} do not agree`);

    // SheetJS inflates by the sizes of the local header: they must be the ones just checked.
    if (local + 30 > cdOffset || view.getUint32(local, true) !== 0x04034b50) throw corrupt('a zip entry is missing');
    const lflags = view.getUint16(local + 6, true);
    const lcsz = view.getUint32(local + 18, true);
    const lusz = view.getUint32(local + 22, true);
    if (lcsz === csz && lusz === usz) continue;
    if (lusz === 0xffffffff || lcsz === 0xffffffff) {
      const lnameLen = view.getUint16(local + 26, true);
      const lextraLen = view.getUint16(local + 28, true);
      const z64 = zip64Extra(view, local + 30 + lnameLen, lextraLen, lusz === 0xffffffff, lcsz === 0xffffffff, false);
      if (z64 && (z64.usz ?? lusz) === usz && (z64.csz ?? lcsz) === csz) continue;
      throw corrupt(`the sizes of ${entryName} do not agree`);
    }
    if (lflags & 8 && lcsz === 0 && lusz === 0) {
      // Written as a stream (sizes after the data). Give SheetJS the sizes up front, so that it
      // inflates into a buffer of the checked size instead of one that grows without end.
      (patches ??= []).push({ at: local, csz, usz });
      continue;
    }
    throw corrupt(`the sizes of ${entryName} do not agree`);
  }
  if (!hasContentTypes) throw new SheetError(`"${name}" is not an .xlsx or .csv file (it is a zip of something else)`);
  if (!patches) return bytes;
  const copy = bytes.slice();
  const out = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
  for (const { at, csz, usz } of patches) {
    out.setUint32(at + 18, csz, true);
    out.setUint32(at + 22, usz, true);
  }
  return copy;
}

function latin1(bytes: Uint8Array, from: number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(bytes[from + i] ?? 0);
  return s;
}

function zip64Extra(
  view: DataView,
  from: number,
  length: number,
  wantUsz: boolean,
  wantCsz: boolean,
  wantLocal: boolean,
): { usz?: number; csz?: number; local?: number } | null {
  const end = Math.min(from + length, view.byteLength);
  let p = from;
  while (p + 4 <= end) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const limit = Math.min(q + size, end);
      const next = (): number | null => {
        if (q + 8 > limit) return null;
        const value = view.getUint32(q, true) + view.getUint32(q + 4, true) * 0x100000000;
        q += 8;
        return value;
      };
      const out: { usz?: number; csz?: number; local?: number } = {};
      if (wantUsz) {
        const v = next();
        if (v === null) return null;
        out.usz = v;
      }
      if (wantCsz) {
        const v = next();
        if (v === null) return null;
        out.csz = v;
      }
      if (wantLocal) {
        const v = next();
        if (v === null) return null;
        out.local = v;
      }
      return out;
    }
    p += 4 + size;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// .xlsx

const ERROR_CODES: Record<number, string> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
  0x2b: '#GETTING_DATA',
};

type NumberKind = 'number' | 'date' | 'time';

/** Largest date Excel shows: 9999-12-31. */
const MAX_EXCEL_SERIAL = 2958466;

function numberKind(format: string, cache: Map<string, NumberKind>): NumberKind {
  let kind = cache.get(format);
  if (kind !== undefined) return kind;
  kind = 'number';
  let isDate = false;
  try {
    isDate = Boolean(XLSX.SSF.is_date(format));
  } catch {
    isDate = false;
  }
  if (isDate) {
    // Without literals ("…", \x), fill and spacing characters (*x, _x) and [brackets] (colours,
    // locales, elapsed [h]/[mm]/[ss]): any year or day code makes it a date, else a time.
    const bare = format.replace(/"[^"]*"|\\.|[_*].|\[[^\]]*\]/g, '');
    kind = /[ydebg]/i.test(bare) ? 'date' : 'time';
  }
  cache.set(format, kind);
  return kind;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function excelDate(serial: number, date1904: boolean, where: () => string): string {
  const seconds = Math.round(serial * 86400);
  const days = Math.floor(seconds / 86400);
  const time = seconds - days * 86400;
  let ms: number;
  if (date1904) {
    if (days < 0 || days + 1462 > MAX_EXCEL_SERIAL) throw new SheetError(`${capital(where())} holds a date Excel cannot show`);
    ms = Date.UTC(1904, 0, 1) + days * 86_400_000;
  } else {
    if (days < 0 || days > MAX_EXCEL_SERIAL) throw new SheetError(`${capital(where())} holds a date Excel cannot show`);
    if (days === 60) throw new SheetError(`${capital(where())} holds 29 February 1900, a date that does not exist`);
    // Excel counts 1900 as a leap year: serials after 60 are one day ahead.
    ms = days > 60 ? Date.UTC(1899, 11, 30) + days * 86_400_000 : Date.UTC(1899, 11, 31) + days * 86_400_000;
  }
  const d = new Date(ms);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (time === 0) return date;
  const h = Math.floor(time / 3600);
  const m = Math.floor((time % 3600) / 60);
  return `${date}T${pad(h)}:${pad(m)}:${pad(time % 60)}`;
}

function columnName(c: number): string {
  let s = '';
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function readXlsx(input: Uint8Array, name: string, lim: Limits): Sheet {
  const bytes = readZipDirectory(input, name, lim);
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(bytes, {
      type: 'array',
      dense: true,
      sheets: 0,
      sheetRows: lim.maxRows + 2,
      cellFormula: true,
      cellDates: false,
      cellNF: true,
      cellText: false,
      cellHTML: false,
      cellStyles: false,
      bookVBA: false,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/encrypt|password/i.test(detail)) {
      throw new SheetError(`"${name}" is encrypted: save it from Excel without a password`);
    }
    throw new SheetError(`"${name}" could not be read as an .xlsx workbook (${clip(detail.split('\n')[0] ?? '')})`);
  }
  const sheetName = wb.SheetNames[0];
  if (sheetName === undefined) throw new SheetError(`"${name}" holds no sheets`);
  const ws = wb.Sheets[sheetName];
  const data = ws?.['!data'];
  if (!ws || !data) throw new SheetError('The sheet is empty');
  const date1904 = Boolean(wb.Workbook?.WBProps?.date1904);

  // The first column that holds anything is column 1 of the result.
  let startCol = Number.MAX_SAFE_INTEGER;
  for (let R = 0; R < data.length; R++) {
    const row = data[R];
    if (!row) continue;
    const end = Math.min(row.length, startCol);
    for (let C = 0; C < end; C++) {
      if (row[C] !== undefined) {
        startCol = C;
        break;
      }
    }
  }
  if (startCol === Number.MAX_SAFE_INTEGER) startCol = 0;

  const where: Where = (line, column) => `cell ${columnName(startCol + column)}${line}`;
  const builder = new SheetBuilder('xlsx', sheetName, lim, where);
  const kinds = new Map<string, NumberKind>();

  for (let R = 0; R < data.length; R++) {
    const row = data[R];
    if (!row) continue;
    const line = R + 1;
    const width = Math.max(0, row.length - startCol);
    const cells: SheetCell[] = new Array<SheetCell>(width);
    for (let c = 0; c < width; c++) {
      const cell = row[startCol + c];
      cells[c] = cell === undefined ? null : xlsxCell(cell, () => `cell ${columnName(startCol + c)}${line}`);
    }
    // Let SheetJS's copy of the row go as soon as it has been converted.
    (data as unknown as (XLSX.CellObject[] | undefined)[])[R] = undefined;
    builder.add(line, cells);
  }
  // sheetRows cut the sheet short: there are rows beyond those read.
  const full = ws['!fullref'];
  if (full && full !== ws['!ref']) {
    throw new SheetError(`The sheet has more than ${lim.maxRows} data rows: split it into smaller files`);
  }
  return builder.finish();

  function xlsxCell(cell: XLSX.CellObject, where: () => string): SheetCell {
    if (cell.f !== undefined || cell.F !== undefined) {
      const formula = cell.f !== undefined ? `=${cell.f}` : `an array formula over ${cell.F}`;
      throw new SheetError(`${capital(where())} holds a formula (${clip(formula)}): save the sheet with values only`);
    }
    switch (cell.t) {
      case 'z':
        return null;
      case 's': {
        const value = typeof cell.v === 'string' ? cell.v.trim() : String(cell.v ?? '').trim();
        if (value === '') return null;
        checkText(value, lim, where);
        return value;
      }
      case 'b':
        return Boolean(cell.v);
      case 'e': {
        const text = typeof cell.w === 'string' ? cell.w : typeof cell.v === 'number' ? ERROR_CODES[cell.v] : undefined;
        throw new SheetError(`${capital(where())} holds an error (${text ?? '#ERROR'}): correct it or clear the cell`);
      }
      case 'd': {
        const v = cell.v;
        if (v instanceof Date) {
          const serial = excelSerial(v);
          return serial === null ? null : excelDate(serial, false, where);
        }
        return typeof v === 'string' ? v.trim() || null : null;
      }
      case 'n': {
        const v = cell.v;
        if (typeof v !== 'number' || !Number.isFinite(v)) return null;
        const format = cell.z;
        if (typeof format !== 'string' || format === 'General') return v;
        const kind = numberKind(format, kinds);
        if (kind === 'date') return excelDate(v, date1904, where);
        if (kind === 'time') return Math.round(v * 86_400_000) / 1000;
        return v;
      }
      default:
        return null;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

function excelSerial(date: Date): number | null {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) return null;
  const serial = (ms - Date.UTC(1899, 11, 30)) / 86_400_000;
  // Before 1 March 1900 Excel's (fictional) 29 February 1900 has not happened yet.
  return serial < 61 ? serial - 1 : serial;
}

/** Builds a real .xlsx (for tests, the dev example sheets and the benchmark). Date objects -> real Excel date cells (number format yyyy-mm-dd). */
export function writeXlsx(header: string[], rows: (SheetCell | Date)[][], options?: { sheetName?: string }): Uint8Array {
  const data: XLSX.CellObject[][] = [];
  let width = header.length;
  data.push(header.map((h): XLSX.CellObject => ({ t: 's', v: h })));
  for (const row of rows) {
    const out: XLSX.CellObject[] = [];
    for (let c = 0; c < row.length; c++) {
      const v = row[c];
      if (v === null || v === undefined) continue;
      if (v instanceof Date) {
        const serial = excelSerial(v);
        if (serial !== null) out[c] = { t: 'n', v: serial, z: 'yyyy-mm-dd' };
      } else if (typeof v === 'string') out[c] = { t: 's', v };
      else if (typeof v === 'number') out[c] = { t: 'n', v };
      else out[c] = { t: 'b', v };
    }
    if (row.length > width) width = row.length;
    data.push(out);
  }
  const ws: XLSX.WorkSheet = {
    '!data': data,
    '!ref': XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: Math.max(0, data.length - 1), c: Math.max(0, width - 1) } }),
  };
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, options?.sheetName ?? 'Sheet1');
  const out: unknown = XLSX.write(wb, { type: 'array', bookType: 'xlsx', compression: true });
  return out instanceof Uint8Array ? out : new Uint8Array(out as ArrayBuffer);
}

function csvField(value: SheetCell): string {
  if (value === null) return '';
  const s = typeof value === 'string' ? value : String(value);
  return /[",;\t\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180: comma-separated, CRLF line ends, fields quoted when needed. */
export function writeCsv(header: string[], rows: SheetCell[][]): string {
  const lines: string[] = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return lines.join('\r\n') + '\r\n';
}
