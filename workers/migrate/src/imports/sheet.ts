// Reading an uploaded spreadsheet (.xlsx or .csv) into a header and rows of plain values, and
// writing such files (tests, the example sheets, the benchmark).
//
// Runs in a Worker and a Durable Object: Web-standard APIs only. An .xlsx is read here as it
// streams out of its zip (DecompressionStream, a small XML scanner), a row at a time, so a sheet
// never sits in memory whole: only the resulting rows and the shared strings do. The zip itself is
// checked first (sizes declared in its central directory), so a zip bomb is refused before anything
// is inflated. SheetJS writes .xlsx files (tests, example sheets, the benchmark) and classifies
// number formats. CSV has its own small RFC 4180 reader.

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

export async function readSheet(bytes: Uint8Array, fileName: string, limits?: Partial<Limits>): Promise<Sheet> {
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
    throw new SheetError(`${capital(where())} holds ${value.length} characters, more than the ${lim.maxCellLength} allowed`);
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
      throw new SheetError(`${capital(where(rowLine, column))} holds a formula (${clip(value)}): save the sheet with values only`);
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
            throw new SheetError(`Line ${quoteLine}, column ${cells.length + 1}: a quoted value is never closed (a " is missing)`);
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
// The zip under an .xlsx: checked before anything is inflated

/** A checked zip entry: its data is bytes[offset, offset + csz), inflating to exactly usz bytes. */
type ZipEntry = { name: string; method: 0 | 8; csz: number; usz: number; offset: number };

/** Checks the whole central directory (sizes, ratios, limits); returns the entries by lower-cased name. */
function readZipDirectory(bytes: Uint8Array, name: string, lim: Limits): Map<string, ZipEntry> {
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
  const entries = new Map<string, ZipEntry>();
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
      throw new SheetError(`"${name}" expands to more than ${formatBytes(lim.maxUncompressedBytes)} when unpacked: refused`);
    }
    if (usz > BOMB_MIN_ENTRY && usz > BOMB_RATIO * csz) {
      throw new SheetError(
        `"${name}" expands to more than ${BOMB_RATIO} times its size when unpacked (${entryName}: ${formatBytes(usz)} from ${formatBytes(csz)}): refused`,
      );
    }
    // Deflate cannot make data much bigger; a "compressed" size far above the unpacked one is a lie.
    if (method === 8 && csz > usz + Math.ceil(usz / 100) + 1024) throw corrupt(`the sizes of ${entryName} do not agree`);
    if (method === 0 && csz !== usz) throw corrupt(`the sizes of ${entryName} do not agree`);

    // The local header must agree with the directory (or leave the sizes to a data descriptor).
    if (local + 30 > cdOffset || view.getUint32(local, true) !== 0x04034b50) throw corrupt('a zip entry is missing');
    const lflags = view.getUint16(local + 6, true);
    const lcsz = view.getUint32(local + 18, true);
    const lusz = view.getUint32(local + 22, true);
    const lnameLen = view.getUint16(local + 26, true);
    const lextraLen = view.getUint16(local + 28, true);
    const offset = local + 30 + lnameLen + lextraLen;
    if (offset + csz > cdOffset) throw corrupt(`${entryName} is cut short`);
    const entry: ZipEntry = { name: entryName, method: method as 0 | 8, csz, usz, offset };
    const key = entryName.toLowerCase();
    if (!entries.has(key)) entries.set(key, entry);
    if (lcsz === csz && lusz === usz) continue;
    if (lusz === 0xffffffff || lcsz === 0xffffffff) {
      const z64 = zip64Extra(view, local + 30 + lnameLen, lextraLen, lusz === 0xffffffff, lcsz === 0xffffffff, false);
      if (z64 && (z64.usz ?? lusz) === usz && (z64.csz ?? lcsz) === csz) continue;
      throw corrupt(`the sizes of ${entryName} do not agree`);
    }
    // Written as a stream: the sizes follow the data; those of the directory are used.
    if (lflags & 8 && lcsz === 0 && lusz === 0) continue;
    throw corrupt(`the sizes of ${entryName} do not agree`);
  }
  if (!hasContentTypes) throw new SheetError(`"${name}" is not an .xlsx or .csv file (it is a zip of something else)`);
  return entries;
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

/** The name of an error cell's value as Excel shows it (one SheetJS knows), or #ERROR. */
function errorName(value: string | undefined): string {
  for (const code of Object.values(ERROR_CODES)) if (code === value) return code;
  return '#ERROR';
}

// Number formats built into Excel (those SheetJS knows by id); a workbook's own come from styles.xml.
const BUILTIN_FORMATS: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
  56: '"上午/下午 "hh"時"mm"分"ss"秒 "',
};

/** Excel's last column, XFD. */
const MAX_COLUMN = 16383;

/** How much compressed data goes to the inflater at a time (bounds what one step can produce). */
const INFLATE_SLICE = 16 * 1024;

// ----- XML text: entities and the _xHHHH_ escapes of OOXML strings, decoded as SheetJS decodes them

const NAMED_ENTITIES: Record<string, string> = { quot: '"', apos: "'", gt: '>', lt: '<', amp: '&' };
const ENTITY = /&(?:(quot|apos|gt|lt|amp)|#[xX]([\da-fA-F]+)|#(\d+));/g;
const ESCAPE = /_x([\da-fA-F]{4})_/gi;

function entityText(match: string, name: string | undefined, hex: string | undefined, dec: string | undefined): string {
  if (name !== undefined) return NAMED_ENTITIES[name] ?? match;
  const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
  return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : match;
}

function decodeXml(raw: string): string {
  let s = raw;
  if (s.indexOf('&') >= 0) s = s.replace(ENTITY, entityText);
  if (s.indexOf('_') >= 0) s = s.replace(ESCAPE, (_m: string, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return s;
}

/**
 * A copy of text cut from a chunk of a part, that does not keep the whole chunk alive: V8 makes a
 * longer piece of a string a view of it, and the rows would otherwise hold on to every chunk of the
 * sheet. (Pieces under 13 characters are copies already; a JSON round trip is the quickest flat copy.)
 */
function detach(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** Text of a string cell: Windows line ends become \n (as SheetJS reads them). */
function stringText(text: string): string {
  return text.indexOf('\r\n') >= 0 ? text.replace(/\r\n/g, '\n') : text;
}

// ----- A small streaming XML scanner: enough for the parts of an .xlsx, never the whole part at once

interface XmlHandler {
  /** Whether the text between tags matters now (it is not even sliced out otherwise). It may come in pieces. */
  wantText: boolean;
  /** Set to stop reading the part. */
  done: boolean;
  /** name: without its namespace prefix; attrs: the raw attribute text. A self-closing tag is followed by close(). */
  open(name: string, attrs: string): void;
  close(name: string): void;
  /** raw: undecoded text (a piece of it: an entity may be cut in two), or the literal content of a CDATA section. */
  text(raw: string, cdata: boolean): void;
}

/** What a handler collects of the text of an element, decoded once it is complete. */
class TextPieces {
  private raw = '';
  private decoded = '';
  reset(): void {
    this.raw = '';
    this.decoded = '';
  }
  add(raw: string, cdata: boolean): void {
    if (cdata) {
      this.decoded += decodeXml(this.raw) + raw;
      this.raw = '';
    } else this.raw += raw;
  }
  text(): string {
    const tail = decodeXml(this.raw);
    return this.decoded ? this.decoded + tail : tail;
  }
}

/** The longest tag (or comment, CDATA section…) that may wait for the rest of it in the next chunk. */
const MAX_TAG = 1024 * 1024;

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

class XmlScanner {
  private rest = '';

  constructor(
    private readonly h: XmlHandler,
    private readonly damaged: (why: string) => SheetError,
  ) {}

  /** Scans what has arrived; keeps an unfinished tag or text for the next chunk. Returns true once the handler is done. */
  feed(chunk: string): boolean {
    const s = this.rest.length ? this.rest + chunk : chunk;
    const n = s.length;
    const h = this.h;
    let i = 0;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        // Text that may go on in the next chunk: what has come so far.
        if (h.wantText) h.text(s.slice(i), false);
        i = n;
        break;
      }
      if (lt > i && h.wantText) h.text(s.slice(i, lt), false);
      i = lt;
      if (lt + 1 >= n) break;
      const c = s.charCodeAt(lt + 1);
      if (c === 47 /* / */) {
        const gt = s.indexOf('>', lt + 2);
        if (gt < 0) break;
        h.close(localName(s.slice(lt + 2, gt).trim()));
        i = gt + 1;
      } else if (c === 63 /* ? */) {
        const end = s.indexOf('?>', lt + 2);
        if (end < 0) break;
        i = end + 2;
      } else if (c === 33 /* ! */) {
        if (n - lt < 9) break;
        if (s.startsWith('![CDATA[', lt + 1)) {
          const end = s.indexOf(']]>', lt + 9);
          if (end < 0) break;
          if (h.wantText) h.text(s.slice(lt + 9, end), true);
          i = end + 3;
        } else if (s.startsWith('!--', lt + 1)) {
          const end = s.indexOf('-->', lt + 4);
          if (end < 0) break;
          i = end + 3;
        } else {
          // <!DOCTYPE …>, possibly with an internal subset in brackets.
          const bracket = s.indexOf('[', lt);
          let gt = s.indexOf('>', lt);
          if (bracket >= 0 && gt >= 0 && bracket < gt) {
            const close = s.indexOf(']', bracket);
            gt = close < 0 ? -1 : s.indexOf('>', close);
          }
          if (gt < 0) break;
          i = gt + 1;
        }
      } else {
        let j = lt + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (d === 62 /* > */ || d === 47 /* / */ || isSpace(d)) break;
          j++;
        }
        // The end of the tag, past quoted attribute values (which may hold a >).
        let k = j;
        let quote = 0;
        while (k < n) {
          const d = s.charCodeAt(k);
          if (quote) {
            if (d === quote) quote = 0;
          } else if (d === 62) break;
          else if (d === 34 || d === 39) quote = d;
          k++;
        }
        if (k >= n) break;
        const empty = s.charCodeAt(k - 1) === 47 && k - 1 >= j;
        const name = localName(s.slice(lt + 1, j));
        h.open(name, s.slice(j, empty ? k - 1 : k));
        if (empty && !h.done) h.close(name);
        i = k + 1;
      }
      if (h.done) {
        this.rest = '';
        return true;
      }
    }
    this.rest = i < n ? s.slice(i) : '';
    if (this.rest.length > MAX_TAG) throw this.damaged(`a tag is longer than ${formatBytes(MAX_TAG)}`);
    return false;
  }
}

/** The value of an attribute, by its name without prefix (namespace declarations aside); raw, undecoded. */
function attr(attrs: string, want: string): string | undefined {
  const n = attrs.length;
  let i = 0;
  while (i < n) {
    let c = attrs.charCodeAt(i);
    if (isSpace(c) || c === 47) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && (c = attrs.charCodeAt(i)) !== 61 /* = */ && !isSpace(c)) i++;
    const end = i;
    while (i < n && attrs.charCodeAt(i) !== 61) i++;
    i++;
    while (i < n && isSpace(attrs.charCodeAt(i))) i++;
    const q = attrs.charCodeAt(i);
    if (q !== 34 && q !== 39) return undefined;
    const close = attrs.indexOf(q === 34 ? '"' : "'", i + 1);
    if (close < 0) return undefined;
    const colon = attrs.lastIndexOf(':', end - 1);
    const local = colon >= start ? colon + 1 : start;
    if (end - local === want.length && attrs.startsWith(want, local) && !(colon >= start && attrs.startsWith('xmlns', start))) {
      return attrs.slice(i + 1, close);
    }
    i = close + 1;
  }
  return undefined;
}

// ----- Inflating one entry as text, a slice at a time

/** Passes the entry's text to sink chunk by chunk until it is all read or sink returns true. */
async function readEntryText(
  bytes: Uint8Array,
  entry: ZipEntry,
  damaged: (why: string) => SheetError,
  sink: (text: string) => boolean,
): Promise<void> {
  const data = bytes.subarray(entry.offset, entry.offset + entry.csz);
  let decoder: InstanceType<typeof TextDecoder> | null = null;
  const decode = (chunk: Uint8Array): string => {
    if (!decoder) {
      // Excel writes UTF-8; a part in UTF-16 says so with its byte order mark.
      const utf16 = chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff));
      decoder = new TextDecoder(utf16 ? (chunk[0] === 0xff ? 'utf-16le' : 'utf-16be') : 'utf-8');
    }
    return decoder.decode(chunk, { stream: true });
  };
  const flush = (): string => (decoder ? decoder.decode() : '');

  if (entry.method === 0) {
    for (let at = 0; at < data.length; at += INFLATE_SLICE) {
      if (sink(decode(data.subarray(at, Math.min(at + INFLATE_SLICE, data.length))))) return;
    }
    sink(flush());
    return;
  }

  // Slices go in only as fast as the text is read: what waits inflated stays small.
  const inflater = new DecompressionStream('deflate-raw');
  const writer = inflater.writable.getWriter();
  const reader = inflater.readable.getReader();
  const feeding = (async () => {
    for (let at = 0; at < data.length; at += INFLATE_SLICE) {
      await writer.ready;
      await writer.write(data.slice(at, Math.min(at + INFLATE_SLICE, data.length)));
    }
    await writer.close();
  })();
  // A failure shows in reader.read(); so does giving up early (the reader is cancelled).
  feeding.catch(() => undefined);
  let finished = false;
  try {
    let total = 0;
    for (;;) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch {
        throw damaged(`${entry.name} cannot be unpacked`);
      }
      if (step.done) break;
      total += step.value.byteLength;
      if (total > entry.usz) throw damaged(`the sizes of ${entry.name} do not agree`);
      if (sink(decode(step.value))) return;
    }
    finished = true;
    if (total !== entry.usz) throw damaged(`the sizes of ${entry.name} do not agree`);
    sink(flush());
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

// ----- The parts around the sheet

type Relationship = { type: string; target: string; external: boolean };

/** A part's path from a relationship's target, relative to the folder of the part that names it. */
function resolvePart(folder: string, target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : folder + target;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '.' && segment !== '') out.push(segment);
  }
  return out.join('/');
}

class RelsReader implements XmlHandler {
  wantText = false;
  done = false;
  readonly byId = new Map<string, Relationship>();
  readonly all: Relationship[] = [];
  open(name: string, attrs: string): void {
    if (name !== 'Relationship') return;
    const rel: Relationship = {
      type: attr(attrs, 'Type') ?? '',
      target: decodeXml(attr(attrs, 'Target') ?? ''),
      external: attr(attrs, 'TargetMode') === 'External',
    };
    const id = attr(attrs, 'Id');
    if (id !== undefined && !this.byId.has(id)) this.byId.set(id, rel);
    this.all.push(rel);
  }
  close(): void {}
  text(): void {}
  ofType(suffix: string): Relationship | undefined {
    return this.all.find((r) => !r.external && r.type.endsWith(suffix));
  }
}

class WorkbookReader implements XmlHandler {
  wantText = false;
  done = false;
  date1904 = false;
  /** The first sheet: its name and relationship id. */
  sheet: { name: string; rid: string | undefined } | null = null;
  open(name: string, attrs: string): void {
    if (name === 'workbookPr') {
      const v = attr(attrs, 'date1904');
      this.date1904 = v === '1' || v === 'true';
    } else if (name === 'sheet' && !this.sheet) {
      this.sheet = { name: detach(decodeXml(attr(attrs, 'name') ?? '')), rid: attr(attrs, 'id') };
    }
  }
  close(name: string): void {
    if (name === 'sheets' && this.sheet) this.done = true;
  }
  text(): void {}
}

/** Every string of the shared-strings table: runs of rich text joined, phonetic runs left out. */
class SharedStringsReader implements XmlHandler {
  wantText = false;
  done = false;
  readonly strings: string[] = [];
  private inItem = false;
  private phonetic = 0;
  private item = '';
  private readonly piece = new TextPieces();
  open(name: string): void {
    if (name === 'si') {
      this.inItem = true;
      this.phonetic = 0;
      this.item = '';
    } else if (!this.inItem) return;
    else if (name === 'rPh') this.phonetic++;
    else if (name === 't' && this.phonetic === 0) {
      this.wantText = true;
      this.piece.reset();
    }
  }
  close(name: string): void {
    if (!this.inItem) return;
    if (name === 't') {
      if (this.wantText) this.item += this.piece.text();
      this.wantText = false;
    } else if (name === 'rPh') this.phonetic = Math.max(0, this.phonetic - 1);
    else if (name === 'si') {
      this.strings.push(detach(stringText(this.item)));
      this.inItem = false;
      this.item = '';
    }
  }
  text(raw: string, cdata: boolean): void {
    this.piece.add(raw, cdata);
  }
}

/** The number format of each cell style (cellXfs), as a kind: plain number, date or time of day. */
class StylesReader implements XmlHandler {
  wantText = false;
  done = false;
  private readonly formats = new Map<number, string>();
  private readonly xfFormats: number[] = [];
  private inNumFmts = false;
  private inCellXfs = false;
  private depth = 0;
  open(name: string, attrs: string): void {
    if (name === 'numFmts') this.inNumFmts = true;
    else if (name === 'cellXfs') {
      this.inCellXfs = true;
      this.depth = 0;
    } else if (this.inNumFmts && name === 'numFmt') {
      const id = parseInt(attr(attrs, 'numFmtId') ?? '', 10);
      const code = attr(attrs, 'formatCode');
      if (Number.isFinite(id) && code !== undefined) this.formats.set(id, decodeXml(code));
    } else if (this.inCellXfs) {
      if (name === 'xf' && this.depth === 0) {
        const id = parseInt(attr(attrs, 'numFmtId') ?? '', 10);
        this.xfFormats.push(Number.isFinite(id) ? id : 0);
      }
      this.depth++;
    }
  }
  close(name: string): void {
    if (name === 'numFmts') this.inNumFmts = false;
    else if (name === 'cellXfs') this.inCellXfs = false;
    else if (this.inCellXfs) this.depth--;
  }
  text(): void {}
  kinds(): NumberKind[] {
    const cache = new Map<string, NumberKind>();
    return this.xfFormats.map((id) => {
      const format = this.formats.get(id) ?? BUILTIN_FORMATS[id];
      return format === undefined || format === 'General' ? 'number' : numberKind(format, cache);
    });
  }
}

// ----- The sheet itself, row by row

/** SheetJS's reading of a t="d" cell (an ISO 8601 date, time or both, UTC) as an Excel serial. */
function isoSerial(text: string, date1904: boolean): number {
  let ms: number;
  let m = /^(\d+):(\d+)(:\d+)?(\.\d+)?$/.exec(text);
  if (m) {
    const seconds = (parseInt(m[1]!, 10) * 60 + parseInt(m[2]!, 10)) * 60 + (m[3] ? parseInt(m[3].slice(1), 10) : 0);
    ms = (date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 31)) + seconds * 1000 + (m[4] ? parseInt(`${m[4]}000`.slice(1, 4), 10) : 0);
  } else if ((m = /^(\d+)-(\d+)-(\d+)$/.exec(text))) {
    ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!);
  } else if ((m = /^(\d+)-(\d+)-(\d+)[T ](\d+):(\d+)(:\d+)?(\.\d+)?$/.exec(text))) {
    ms = Date.UTC(
      +m[1]!,
      +m[2]! - 1,
      +m[3]!,
      +m[4]!,
      +m[5]!,
      m[6] ? parseInt(m[6].slice(1), 10) : 0,
      m[7] ? parseInt(`${m[7]}0000`.slice(1, 4), 10) : 0,
    );
  } else ms = new Date(text).getTime();
  let serial = (ms - Date.UTC(1899, 11, 30)) / 86_400_000;
  if (date1904) {
    serial -= 1462;
    return serial < -1402 ? serial - 1 : serial;
  }
  return serial < 60 ? serial - 1 : serial;
}

function columnIndex(ref: string): number {
  let index = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    let c = ref.charCodeAt(i);
    if (c >= 97 && c <= 122) c -= 32;
    if (c < 65 || c > 90) break;
    index = index * 26 + (c - 64);
    if (index > MAX_COLUMN + 1) return MAX_COLUMN + 1;
  }
  return i === 0 ? -1 : index - 1;
}

/** Where the text of the element being read goes. */
type Into = 'nothing' | 'value' | 'formula' | 'inline';

/**
 * Reads <sheetData> as it streams past: each cell is converted when its </c> arrives and each row
 * goes to the builder at its </row>. Column 1 of the result is the first column that holds
 * anything in the whole sheet: while no cell of column A has been seen, the rows wait here (they
 * are the result's rows anyway), and a problem found meanwhile waits for the column to be known.
 */
class SheetDataReader implements XmlHandler {
  wantText = false;
  done = false;
  /** The first column that holds anything; final once it is 0 or the sheet has been read. */
  startCol = 0;

  private readonly builder: SheetBuilder;
  /** Rows past this one are not read: one holding anything means too many rows. */
  private readonly lastRow: number;
  private minCol = Number.MAX_SAFE_INTEGER;
  /** Rows waiting for the first column to be known; null once it is (column A holds something). */
  private waiting: SheetRow[] | null = [];
  /** A problem found while rows were waiting: thrown once they have gone to the builder. */
  private pending: SheetError | null = null;

  private inData = false;
  private inRow = false;
  private row = 0;
  private cells: SheetCell[] = [];
  private rowHolds = false;
  private col = -1;

  private inCell = false;
  private cellType: string | undefined;
  private cellStyle: string | undefined;
  private value: string | undefined;
  private formula: string | undefined;
  private inline: string | undefined;
  private into: Into = 'nothing';
  private phonetic = 0;
  private readonly piece = new TextPieces();

  constructor(
    private readonly strings: string[],
    private readonly kinds: NumberKind[],
    private readonly date1904: boolean,
    private readonly lim: Limits,
    sheetName: string,
    private readonly damaged: (why: string) => SheetError,
  ) {
    this.lastRow = lim.maxRows + 2;
    this.builder = new SheetBuilder('xlsx', sheetName, lim, (line, column) => `cell ${columnName(this.startCol + column)}${line}`);
  }

  open(name: string, attrs: string): void {
    if (!this.inData) {
      if (name === 'sheetData') this.inData = true;
      return;
    }
    if (this.inCell) {
      switch (name) {
        case 'v':
          if (this.into !== 'inline') this.start('value');
          break;
        case 'f':
          this.start('formula');
          if (this.formula === undefined) this.formula = '';
          break;
        case 'is':
          this.into = 'inline';
          this.inline = '';
          this.phonetic = 0;
          break;
        case 'rPh':
          this.phonetic++;
          break;
        case 't':
          if (this.into === 'inline' && this.phonetic === 0) {
            this.wantText = true;
            this.piece.reset();
          }
          break;
      }
      return;
    }
    if (name === 'c') {
      if (!this.inRow) return;
      const ref = attr(attrs, 'r');
      const col = ref === undefined ? -1 : columnIndex(ref);
      this.col = col >= 0 ? col : this.col + 1;
      if (this.col > MAX_COLUMN) throw this.damaged(`cell ${ref ?? ''} of row ${this.row} is beyond column XFD`);
      this.inCell = true;
      this.cellType = attr(attrs, 't');
      this.cellStyle = attr(attrs, 's');
      this.value = undefined;
      this.formula = undefined;
      this.inline = undefined;
      this.into = 'nothing';
    } else if (name === 'row') {
      const r = attr(attrs, 'r');
      const line = r === undefined ? this.row + 1 : parseInt(r, 10);
      if (!(line > this.row)) {
        throw this.damaged(Number.isFinite(line) ? `row ${line} comes after row ${this.row}` : `a row is numbered "${clip(r ?? '')}"`);
      }
      this.row = line;
      // Waiting for the first column only: rows past the last one read do not count.
      if (this.pending && line > this.lastRow) this.done = true;
      this.inRow = true;
      // Once the header is known, a row's array is made the size the result keeps.
      const width = this.waiting === null ? this.builder.width : null;
      this.cells = width === null ? [] : new Array<SheetCell>(width).fill(null);
      this.rowHolds = false;
      this.col = -1;
    }
  }

  private start(into: Into): void {
    this.into = into;
    this.wantText = true;
    this.piece.reset();
  }

  close(name: string): void {
    if (!this.inData) return;
    if (this.inCell) {
      switch (name) {
        case 'v':
          if (this.into === 'value') {
            if (this.value === undefined) {
              const text = this.piece.text();
              if (text !== '') this.value = text;
            }
            this.into = 'nothing';
            this.wantText = false;
          }
          break;
        case 'f':
          if (this.into === 'formula') {
            if (this.formula === '') this.formula = this.piece.text();
            this.into = 'nothing';
            this.wantText = false;
          }
          break;
        case 't':
          if (this.into === 'inline' && this.wantText) {
            this.inline += this.piece.text();
            this.wantText = false;
          }
          break;
        case 'rPh':
          if (this.phonetic > 0) this.phonetic--;
          break;
        case 'is':
          if (this.into === 'inline') this.into = 'nothing';
          this.wantText = false;
          break;
        case 'c':
          this.inCell = false;
          this.into = 'nothing';
          this.wantText = false;
          this.endCell();
          break;
      }
      return;
    }
    if (name === 'row') {
      if (this.inRow) this.endRow();
      this.inRow = false;
    } else if (name === 'sheetData') {
      this.inData = false;
      this.done = true;
    }
  }

  text(raw: string, cdata: boolean): void {
    this.piece.add(raw, cdata);
  }

  /** What SheetJS keeps of a cell (the rest is as good as absent, even for the first column). */
  private holds(): boolean {
    if (this.formula) return true;
    const t = this.cellType;
    if (t === undefined) return this.value !== undefined;
    if (t === 'n' || t === 's') return this.value !== undefined && this.value !== '';
    return true;
  }

  private endCell(): void {
    if (this.pending || this.row > this.lastRow) {
      if (!this.holds()) return;
      if (this.row > this.lastRow) this.fail(this.tooManyRows(), true);
      else this.seeColumn(this.col);
      return;
    }
    let value: SheetCell | undefined;
    try {
      value = this.convert();
    } catch (error) {
      if (error instanceof SheetError) {
        this.seeColumn(this.col);
        this.fail(error, false);
        return;
      }
      throw error;
    }
    if (value === undefined) return;
    this.seeColumn(this.col);
    const cells = this.cells;
    while (cells.length < this.col) cells.push(null);
    cells[this.col] = value;
    this.rowHolds = true;
  }

  private seeColumn(col: number): void {
    if (col < this.minCol) this.minCol = col;
    if (this.pending && this.minCol === 0) this.done = true;
  }

  private tooManyRows(): SheetError {
    return new SheetError(`The sheet has more than ${this.lim.maxRows} data rows: split it into smaller files`);
  }

  /** A problem at the current cell: at once if every earlier row has gone to the builder, else once they have. */
  private fail(error: SheetError, final: boolean): void {
    if (this.waiting === null) throw error;
    this.pending ??= error;
    // Done once the first column is known: column A holds something, or the rows past the last
    // one read (which do not count) have begun.
    if (final || this.minCol === 0) this.done = true;
  }

  private endRow(): void {
    if (this.pending || !this.rowHolds) return;
    const row: SheetRow = { line: this.row, cells: this.cells };
    if (this.waiting === null) {
      this.builder.add(row.line, row.cells);
      return;
    }
    this.waiting.push(row);
    if (this.minCol === 0) this.release(0);
  }

  /** The rows that waited go to the builder, from the first column on. */
  private release(startCol: number): void {
    const waiting = this.waiting ?? [];
    this.waiting = null;
    this.startCol = startCol;
    for (let k = 0; k < waiting.length; k++) {
      const row = waiting[k]!;
      this.builder.add(row.line, startCol ? row.cells.slice(startCol) : row.cells);
    }
  }

  /** After the sheet has been read (or given up on): the result, or the first problem in row order. */
  finish(): Sheet {
    if (this.waiting !== null) this.release(this.minCol === Number.MAX_SAFE_INTEGER ? 0 : this.minCol);
    if (this.pending) throw this.pending;
    return this.builder.finish();
  }

  private where = (): string => `cell ${columnName(this.col)}${this.row}`;

  private convert(): SheetCell | undefined {
    const where = this.where;
    if (this.formula) {
      const formula = `=${stringText(this.formula).replace(/_xlfn\./g, '')}`;
      throw new SheetError(`${capital(where())} holds a formula (${clip(formula)}): save the sheet with values only`);
    }
    const t = this.cellType;
    const v = this.value;
    if (t === undefined && v === undefined) return undefined;
    switch (t ?? 'n') {
      case 'n':
        if (v === undefined || v === '') return undefined;
        return this.number(parseFloat(v));
      case 's': {
        if (v === undefined) return undefined;
        const text = this.strings[parseInt(v, 10)];
        if (text === undefined) throw this.damaged(`${where()} names shared string ${clip(v)}, which does not exist`);
        return this.textCell(text);
      }
      case 'str':
        return this.textCell(stringText(v ?? ''));
      case 'inlineStr':
        return this.textCell(stringText(this.inline ?? ''));
      case 'b':
        return v === '1' || v === 'true';
      case 'e':
        throw new SheetError(`${capital(where())} holds an error (${errorName(v)}): correct it or clear the cell`);
      case 'd':
        return v === undefined ? null : this.number(isoSerial(v, this.date1904));
      default:
        return null;
    }
  }

  private textCell(raw: string): SheetCell {
    const value = raw.trim();
    if (value === '') return null;
    checkText(value, this.lim, this.where);
    return detach(value);
  }

  private number(v: number): SheetCell {
    if (!Number.isFinite(v)) return null;
    const style = this.cellStyle;
    const kind = style === undefined ? 'number' : (this.kinds[parseInt(style, 10)] ?? 'number');
    if (kind === 'date') return excelDate(v, this.date1904, this.where);
    if (kind === 'time') return Math.round(v * 86_400_000) / 1000;
    return v;
  }
}

async function readXlsx(input: Uint8Array, name: string, lim: Limits): Promise<Sheet> {
  const entries = readZipDirectory(input, name, lim);
  const damaged = (why: string) => new SheetError(`"${name}" is damaged and cannot be read as an .xlsx file (${why})`);
  const part = (path: string): ZipEntry | undefined => entries.get(path.toLowerCase());
  const parse = async <H extends XmlHandler>(entry: ZipEntry, handler: H): Promise<H> => {
    const scanner = new XmlScanner(handler, damaged);
    await readEntryText(input, entry, damaged, (text) => scanner.feed(text));
    return handler;
  };
  try {
    // The workbook: where the package says it is, else where Excel puts it.
    let workbookPath = 'xl/workbook.xml';
    if (!part(workbookPath)) {
      const root = part('_rels/.rels');
      const office = root ? (await parse(root, new RelsReader())).ofType('/officeDocument') : undefined;
      if (office) workbookPath = resolvePart('', office.target);
    }
    const workbookEntry = part(workbookPath);
    if (!workbookEntry) {
      if (part('xl/workbook.bin')) {
        throw new SheetError(`"${name}" is a binary workbook (.xlsb), which cannot be read here: save it from Excel as .xlsx`);
      }
      throw new SheetError(`"${name}" could not be read as an .xlsx workbook (it holds no workbook)`);
    }
    const workbook = await parse(workbookEntry, new WorkbookReader());
    if (!workbook.sheet) throw new SheetError(`"${name}" holds no sheets`);
    const folder = workbookPath.slice(0, workbookPath.lastIndexOf('/') + 1);
    const relsEntry = part(`${folder}_rels/${workbookPath.slice(folder.length)}.rels`) ?? part('xl/_rels/workbook.xml.rels');
    const rels = relsEntry ? await parse(relsEntry, new RelsReader()) : new RelsReader();

    // The first sheet's part: by its relationship, else the usual name.
    let sheetEntry: ZipEntry | undefined;
    const rel = workbook.sheet.rid === undefined ? undefined : rels.byId.get(workbook.sheet.rid);
    if (rel && !rel.external) {
      sheetEntry = part(resolvePart(folder, rel.target)) ?? part(`xl/${rel.target.replace(/^\/?xl\//, '')}`) ?? part(rel.target);
    }
    sheetEntry ??= part('xl/worksheets/sheet1.xml');
    if (!sheetEntry) throw damaged(`the part of its first sheet, "${clip(workbook.sheet.name)}", is missing`);

    const stringsRel = rels.ofType('/sharedStrings');
    const stringsEntry = (stringsRel && part(resolvePart(folder, stringsRel.target))) || part(`${folder}sharedStrings.xml`);
    const strings = stringsEntry ? (await parse(stringsEntry, new SharedStringsReader())).strings : [];
    const stylesRel = rels.ofType('/styles');
    const stylesEntry = (stylesRel && part(resolvePart(folder, stylesRel.target))) || part(`${folder}styles.xml`);
    const kinds = stylesEntry ? (await parse(stylesEntry, new StylesReader())).kinds() : [];

    const reader = new SheetDataReader(strings, kinds, workbook.date1904, lim, workbook.sheet.name, damaged);
    await parse(sheetEntry, reader);
    return reader.finish();
  } catch (error) {
    if (error instanceof SheetError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new SheetError(`"${name}" could not be read as an .xlsx workbook (${clip(detail.split('\n')[0] ?? '')})`);
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
