import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import {
  readSheet,
  SHEET_LIMITS,
  SheetError,
  writeCsv,
  writeXlsx,
  type SheetCell,
} from '../../workers/migrate/src/imports/sheet';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** A workbook built with SheetJS directly, cell by cell (for what writeXlsx cannot make). */
function workbook(rows: (XLSX.CellObject | null)[][], sheetName = 'Data', extraSheets: string[] = []): Uint8Array {
  const ws: XLSX.WorkSheet = {};
  let width = 1;
  rows.forEach((row, r) => {
    width = Math.max(width, row.length);
    row.forEach((cell, c) => {
      if (cell) ws[XLSX.utils.encode_cell({ r, c })] = cell;
    });
  });
  ws['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: Math.max(0, rows.length - 1), c: width - 1 } });
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, sheetName);
  for (const name of extraSheets) XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Other'], ['x']]), name);
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx', compression: true }) as ArrayBuffer);
}

const s = (v: string): XLSX.CellObject => ({ t: 's', v });
const n = (v: number, z?: string): XLSX.CellObject => (z ? { t: 'n', v, z } : { t: 'n', v });

function error(run: () => unknown): SheetError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SheetError);
    return e as SheetError;
  }
  throw new Error('expected a SheetError');
}

// ----- a tiny zip writer, for the zip checks (no CRC: the checks refuse before anything is read)

type Entry = { name: string; data: Uint8Array; method: 0 | 8; usz: number; declaredUsz?: number };

function zip(entries: Entry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = utf8(e.name);
    const usz = e.declaredUsz ?? e.usz;
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, e.method, true);
    lv.setUint32(18, e.data.length, true);
    lv.setUint32(22, usz, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const cd = new Uint8Array(46 + name.length);
    const cv = new DataView(cd.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, e.method, true);
    cv.setUint32(20, e.data.length, true);
    cv.setUint32(24, usz, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    cd.set(name, 46);
    parts.push(local, e.data);
    central.push(cd);
    offset += local.length + e.data.length;
  }
  const cdSize = central.reduce((a, b) => a + b.length, 0);
  const eocd = new Uint8Array(22);
  const ev = new DataView(eocd.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  return concat([...parts, ...central, eocd]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Rewrites a zip as a streaming writer would: local headers without sizes, data descriptors after the data. */
function asStreamedZip(bytes: Uint8Array): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = bytes.length - 22;
  while (v.getUint32(eocd, true) !== 0x06054b50) eocd--;
  const count = v.getUint16(eocd + 10, true);
  let p = v.getUint32(eocd + 16, true);
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (let k = 0; k < count; k++) {
    const nameLen = v.getUint16(p + 28, true);
    const entryLen = 46 + nameLen + v.getUint16(p + 30, true) + v.getUint16(p + 32, true);
    const cd = bytes.slice(p, p + entryLen);
    const cdv = new DataView(cd.buffer);
    const crc = cdv.getUint32(16, true);
    const csz = cdv.getUint32(20, true);
    const usz = cdv.getUint32(24, true);
    const local = cdv.getUint32(42, true);
    const lnameLen = v.getUint16(local + 26, true);
    const lextraLen = v.getUint16(local + 28, true);
    const header = bytes.slice(local, local + 30 + lnameLen + lextraLen);
    const hv = new DataView(header.buffer);
    hv.setUint16(6, hv.getUint16(6, true) | 8, true);
    hv.setUint32(14, 0, true);
    hv.setUint32(18, 0, true);
    hv.setUint32(22, 0, true);
    const dataStart = local + header.length;
    const data = bytes.slice(dataStart, dataStart + csz);
    const descriptor = new Uint8Array(16);
    const dv = new DataView(descriptor.buffer);
    dv.setUint32(0, 0x08074b50, true);
    dv.setUint32(4, crc, true);
    dv.setUint32(8, csz, true);
    dv.setUint32(12, usz, true);
    cdv.setUint16(8, cdv.getUint16(8, true) | 8, true);
    cdv.setUint32(42, offset, true);
    parts.push(header, data, descriptor);
    central.push(cd);
    offset += header.length + data.length + descriptor.length;
    p += entryLen;
  }
  const cdSize = central.reduce((a, b) => a + b.length, 0);
  const end = bytes.slice(eocd, eocd + 22);
  const endv = new DataView(end.buffer);
  endv.setUint32(12, cdSize, true);
  endv.setUint32(16, offset, true);
  return concat([...parts, ...central, end]);
}

describe('SHEET_LIMITS', () => {
  it('has the agreed values', () => {
    expect(SHEET_LIMITS).toEqual({
      maxBytes: 20 * 1024 * 1024,
      maxRows: 200_000,
      maxColumns: 64,
      maxUncompressedBytes: 150 * 1024 * 1024,
      maxCellLength: 1000,
    });
  });
});

describe('readSheet: xlsx', () => {
  it('round-trips what writeXlsx writes', () => {
    const header = ['Name', 'Age', 'Member', 'Joined', 'Note'];
    const rows: (SheetCell | Date)[][] = [
      ['Ann', 34, true, new Date(Date.UTC(2024, 0, 15)), 'a, "quoted" note'],
      ['Bob', 41.5, false, new Date(Date.UTC(1999, 11, 31)), null],
      ['Cé Ü 漢字', -2, null, new Date(Date.UTC(2024, 1, 29, 13, 45, 30)), 'line one\nline two'],
      ['Old', 0, true, new Date(Date.UTC(1900, 0, 1)), ''],
    ];
    const sheet = readSheet(writeXlsx(header, rows, { sheetName: 'Members' }), 'members.xlsx');
    expect(sheet).toEqual({
      format: 'xlsx',
      sheetName: 'Members',
      header,
      rows: [
        { line: 2, cells: ['Ann', 34, true, '2024-01-15', 'a, "quoted" note'] },
        { line: 3, cells: ['Bob', 41.5, false, '1999-12-31', null] },
        { line: 4, cells: ['Cé Ü 漢字', -2, null, '2024-02-29T13:45:30', 'line one\nline two'] },
        { line: 5, cells: ['Old', 0, true, '1900-01-01', null] },
      ],
    });
  });

  it('detects xlsx by content whatever the name, and reads only the first sheet', () => {
    const bytes = workbook([[s('A')], [s('first')]], 'One', ['Two', 'Three']);
    const sheet = readSheet(bytes, 'upload.bin');
    expect(sheet.sheetName).toBe('One');
    expect(sheet.rows).toEqual([{ line: 2, cells: ['first'] }]);
  });

  it('refuses a formula, naming the cell', () => {
    const bytes = workbook([
      [s('A'), s('B')],
      [n(1), { t: 'n', v: 2, f: 'A2*2' }],
    ]);
    expect(error(() => readSheet(bytes, 'f.xlsx')).message).toBe(
      'Cell B2 holds a formula (=A2*2): save the sheet with values only',
    );
  });

  it('refuses a formula without a cached value', () => {
    const bytes = workbook([[s('A'), s('B')], [n(1), { t: 'n', f: 'SUM(A1:A2)' } as XLSX.CellObject]]);
    expect(error(() => readSheet(bytes, 'f.xlsx')).message).toMatch(/^Cell B2 holds a formula \(=SUM\(A1:A2\)\)/);
  });

  it('refuses an error cell, naming it', () => {
    const bytes = workbook([[s('A'), s('B'), s('C')], [n(1), s('x'), { t: 'e', v: 0x2a }]]);
    expect(error(() => readSheet(bytes, 'e.xlsx')).message).toMatch(/^Cell C2 holds an error \(#N\/A\)/);
  });

  it('turns date formats into ISO dates and time formats into seconds', () => {
    const serial = 45292; // 2024-01-01
    const bytes = workbook([
      [s('iso'), s('dmy'), s('datetime'), s('mmm'), s('duration'), s('clock'), s('hours'), s('plain'), s('fixed')],
      [
        n(serial, 'yyyy-mm-dd'),
        n(serial + 6, 'd/mm/yyyy'),
        n(serial + 0.5, 'yyyy-mm-dd hh:mm'),
        n(serial, 'd-mmm-yy'),
        n(83.25 / 86400, '[m]:ss.00'),
        n(0.75, 'hh:mm:ss'),
        n(1.5, '[h]:mm'),
        n(serial),
        n(1234.5, '#,##0.00'),
      ],
    ]);
    const sheet = readSheet(bytes, 'd.xlsx');
    expect(sheet.rows[0]!.cells).toEqual([
      '2024-01-01',
      '2024-01-07',
      '2024-01-01T12:00:00',
      '2024-01-01',
      83.25,
      64800,
      129600,
      serial,
      1234.5,
    ]);
  });

  it('reads dates of a 1904-based workbook', () => {
    const ws = XLSX.utils.aoa_to_sheet([['When'], [0]]);
    ws['A2'] = n(0, 'yyyy-mm-dd');
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, ws, 'S');
    wb.Workbook = { WBProps: { date1904: true } };
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    expect(readSheet(bytes, 'old-mac.xlsx').rows[0]!.cells).toEqual(['1904-01-01']);
  });

  it('trims text around, never inside; empty text is null; booleans stay booleans', () => {
    const bytes = workbook([
      [s('  Name  '), s('Flag'), s('Blank')],
      [s('  two  words  '), { t: 'b', v: false }, s('   ')],
    ]);
    const sheet = readSheet(bytes, 't.xlsx');
    expect(sheet.header).toEqual(['Name', 'Flag', 'Blank']);
    expect(sheet.rows[0]!.cells).toEqual(['two  words', false, null]);
  });

  it('takes the first non-empty row as the header, skips empty rows, keeps Excel row numbers', () => {
    const bytes = workbook([
      [],
      [null, null],
      [null, s('Name'), n(2024)],
      [null, s('a'), n(1)],
      [],
      [null, null, n(2)],
      [null, s('   ')],
    ]);
    const sheet = readSheet(bytes, 'h.xlsx');
    expect(sheet.header).toEqual(['Name', '2024']);
    expect(sheet.rows).toEqual([
      { line: 4, cells: ['a', 1] },
      { line: 6, cells: [null, 2] },
    ]);
  });

  it('names the cell of a missing heading (by its Excel column)', () => {
    const bytes = workbook([
      [null, s('A'), null, s('C')],
      [null, n(1), n(2), n(3)],
    ]);
    expect(error(() => readSheet(bytes, 'h.xlsx')).message).toBe('Column 2 has no heading (cell C1)');
  });

  it('refuses a value in a column without heading, but not empty extra cells', () => {
    const bad = workbook([
      [s('A'), s('B')],
      [n(1), n(2), n(3)],
    ]);
    expect(error(() => readSheet(bad, 'x.xlsx')).message).toMatch(/^Cell C2 holds a value, but its column has no heading/);
    const fine = workbook([
      [s('A'), s('B')],
      [n(1), n(2), s('  ')],
      [n(3)],
    ]);
    expect(readSheet(fine, 'x.xlsx').rows).toEqual([
      { line: 2, cells: [1, 2] },
      { line: 3, cells: [3, null] },
    ]);
  });

  it('refuses a text cell holding U+0000', () => {
    const bytes = writeXlsx(['A'], [['bad\u0000text']]);
    expect(error(() => readSheet(bytes, 'nul.xlsx')).message).toMatch(/^Cell A2 holds a NUL character/);
  });

  it('refuses a cell longer than the limit', () => {
    expect(readSheet(writeXlsx(['A'], [['x'.repeat(1000)]]), 'ok.xlsx').rows[0]!.cells[0]).toHaveLength(1000);
    expect(error(() => readSheet(writeXlsx(['A'], [['x'.repeat(1001)]]), 'long.xlsx')).message).toMatch(
      /^Cell A2 holds 1001 characters, more than the 1000 allowed/,
    );
  });

  it('refuses an empty sheet and a sheet without data rows', () => {
    expect(error(() => readSheet(workbook([[]]), 'e.xlsx')).message).toBe('The sheet is empty');
    expect(error(() => readSheet(writeXlsx(['A', 'B'], []), 'h.xlsx')).message).toBe(
      'The sheet has a header row but no data rows',
    );
  });

  it('refuses more rows than the limit', () => {
    const rows = Array.from({ length: 6 }, (_, i) => [i]);
    expect(readSheet(writeXlsx(['N'], rows.slice(0, 5)), 'r.xlsx', { maxRows: 5 }).rows).toHaveLength(5);
    expect(error(() => readSheet(writeXlsx(['N'], rows), 'r.xlsx', { maxRows: 5 })).message).toMatch(
      /more than 5 data rows/,
    );
    // The rows beyond those read are not all counted, but are seen to exist.
    const gappy = workbook([[s('N')], [n(1)], [], [], [], [], [], [], [n(2)]]);
    expect(error(() => readSheet(gappy, 'r.xlsx', { maxRows: 2 })).message).toMatch(/more than 2 data rows/);
  });

  it('reads a zip written as a stream (sizes after the data)', () => {
    const bytes = asStreamedZip(writeXlsx(['A', 'B'], [['x', 1]]));
    expect(readSheet(bytes, 'stream.xlsx').rows).toEqual([{ line: 2, cells: ['x', 1] }]);
  });
});

describe('readSheet: zip checks', () => {
  it('refuses an entry that expands more than 200:1', async () => {
    const zeros = new Uint8Array(5 * 1024 * 1024);
    const packed = await deflateRaw(zeros);
    expect(zeros.length / packed.length).toBeGreaterThan(200);
    const bytes = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'xl/worksheets/sheet1.xml', data: packed, method: 8, usz: zeros.length },
    ]);
    expect(error(() => readSheet(bytes, 'bomb.xlsx')).message).toMatch(/^"bomb.xlsx" expands to more than 200 times.*: refused$/);
  });

  it('refuses a zip whose declared sizes add up to more than the limit', () => {
    const bytes = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'xl/huge.xml', data: new Uint8Array(16), method: 8, usz: 16, declaredUsz: 0xfffffff0 },
    ]);
    expect(error(() => readSheet(bytes, 'huge.xlsx')).message).toMatch(/^"huge.xlsx" expands to more than 150 MiB.*: refused$/);
    const real = writeXlsx(['A'], [['x']]);
    expect(error(() => readSheet(real, 'small.xlsx', { maxUncompressedBytes: 1000 })).message).toMatch(
      /expands to more than 1000 bytes when unpacked: refused/,
    );
  });

  it('refuses local headers that do not agree with the directory', () => {
    const bytes = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'xl/a.xml', data: new Uint8Array(64), method: 8, usz: 1000 },
    ]);
    // Make the local header of the second entry claim another size.
    const v = new DataView(bytes.buffer);
    const second = 30 + '[Content_Types].xml'.length + 8;
    v.setUint32(second + 22, 5000, true);
    expect(error(() => readSheet(bytes, 'lie.xlsx')).message).toMatch(/damaged.*do not agree/);
  });

  it('refuses corrupt and truncated zips without a raw stack', () => {
    const garbage = concat([utf8('PK\x03\x04'), new Uint8Array(100).fill(7)]);
    expect(error(() => readSheet(garbage, 'bad.xlsx')).message).toMatch(/^"bad.xlsx" is damaged/);
    const real = writeXlsx(['A'], [['x']]);
    expect(error(() => readSheet(real.slice(0, Math.floor(real.length / 2)), 'half.xlsx')).message).toMatch(
      /^"half.xlsx" is damaged/,
    );
    // A zip that is not a workbook.
    const other = zip([{ name: 'hello.txt', data: utf8('hello'), method: 0, usz: 5 }]);
    expect(error(() => readSheet(other, 'other.xlsx')).message).toMatch(/is not an \.xlsx or \.csv file/);
    // Directory fine, content not a workbook: SheetJS throws, the message stays ours.
    const docx = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'word/document.xml', data: utf8('<w:document/>'), method: 0, usz: 13 },
    ]);
    const message = error(() => readSheet(docx, 'doc.xlsx')).message;
    expect(message).toMatch(/^"doc.xlsx" (could not be read as an \.xlsx workbook|holds no sheets)|The sheet is empty/);
    expect(message).not.toMatch(/\n\s+at /);
  });
});

describe('readSheet: files that are neither', () => {
  it('refuses an empty file and one over the size limit', () => {
    expect(error(() => readSheet(new Uint8Array(0), 'e.csv')).message).toMatch(/is empty/);
    const big = new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61);
    expect(error(() => readSheet(big, 'big.csv')).message).toMatch(/^"big.csv" is larger than 20 MiB/);
  });

  it('refuses an old .xls (or encrypted workbook), a PNG, a PDF', () => {
    const xls = concat([new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), new Uint8Array(504)]);
    expect(error(() => readSheet(xls, 'old.xls')).message).toMatch(/^"old.xls" is not an \.xlsx or \.csv file \(it is an old \.xls/);
    expect(error(() => readSheet(xls, 'renamed.csv')).message).toMatch(/is not an \.xlsx or \.csv file/);
    const png = concat([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), new Uint8Array(64)]);
    expect(error(() => readSheet(png, 'photo.png')).message).toMatch(/^"photo.png" is not an \.xlsx or \.csv file/);
    expect(error(() => readSheet(utf8('%PDF-1.7\n...'), 'doc.pdf')).message).toMatch(/is not an \.xlsx or \.csv file/);
    const binary = new Uint8Array([1, 2, 3, 0, 0, 250, 251]);
    expect(error(() => readSheet(binary, 'data.bin')).message).toMatch(/is not an \.xlsx or \.csv file/);
  });
});

describe('readSheet: csv', () => {
  it('round-trips what writeCsv writes (all cells as text)', () => {
    const header = ['Name', 'Note', 'N', 'Flag'];
    const rows: SheetCell[][] = [
      ['Ann', 'has, comma', 1.5, true],
      ['Bob', 'has "quotes"', -3, false],
      ['Cé', 'two\r\nlines', null, null],
      ['Dee', 'semi;colon\ttab', 0, true],
    ];
    const text = writeCsv(header, rows);
    expect(text.split('\r\n')[0]).toBe('Name,Note,N,Flag');
    const sheet = readSheet(utf8(text), 'people.csv');
    expect(sheet).toEqual({
      format: 'csv',
      sheetName: null,
      header,
      rows: [
        { line: 2, cells: ['Ann', 'has, comma', '1.5', 'true'] },
        { line: 3, cells: ['Bob', 'has "quotes"', '-3', 'false'] },
        { line: 4, cells: ['Cé', 'two\r\nlines', null, null] },
        { line: 6, cells: ['Dee', 'semi;colon\ttab', '0', 'true'] },
      ],
    });
  });

  it('parses quoting per RFC 4180, with line numbers after embedded newlines', () => {
    const text = 'a,b,c\n"x ""y"" z","multi\nline\nvalue",plain\n\n  spaced , "q" ,\nlast,"",""""\n';
    const sheet = readSheet(utf8(text), 'q.csv');
    expect(sheet.rows).toEqual([
      { line: 2, cells: ['x "y" z', 'multi\nline\nvalue', 'plain'] },
      { line: 6, cells: ['spaced', 'q', null] },
      { line: 7, cells: ['last', null, '"'] },
    ]);
  });

  it('detects semicolon and tab delimiters, strips a BOM, takes CRLF and lone CR', () => {
    const semi = readSheet(utf8('\uFEFFName;Price;Note\r\nApple;1,50;"a;b"\r\n'), 'eu.csv');
    expect(semi.header).toEqual(['Name', 'Price', 'Note']);
    expect(semi.rows).toEqual([{ line: 2, cells: ['Apple', '1,50', 'a;b'] }]);
    const tab = readSheet(utf8('A\tB\r1\t2,5\r'), 'tab.csv');
    expect(tab.rows).toEqual([{ line: 2, cells: ['1', '2,5'] }]);
    const withBom = readSheet(concat([new Uint8Array([0xef, 0xbb, 0xbf]), utf8('Id,Name\n1,x')]), 'bom.csv');
    expect(withBom.header).toEqual(['Id', 'Name']);
    expect(withBom.rows).toEqual([{ line: 2, cells: ['1', 'x'] }]);
  });

  it('reads UTF-8 text whatever its name; refuses invalid UTF-8', () => {
    expect(readSheet(utf8('A,B\n1,2\n'), 'export.txt').format).toBe('csv');
    const latin1 = new Uint8Array([0x41, 0x0a, 0x43, 0xe9, 0x0a]); // "A\nCé" in Latin-1
    expect(error(() => readSheet(latin1, 'latin.csv')).message).toMatch(/^"latin.csv" is not UTF-8 text/);
    expect(error(() => readSheet(latin1, 'latin.txt')).message).toMatch(/is not an \.xlsx or \.csv file/);
  });

  it('refuses an unterminated quote, naming the line', () => {
    expect(error(() => readSheet(utf8('A,B\n1,2\n3,"open\nmore\n'), 'u.csv')).message).toBe(
      'Line 3, column 2: a quoted value is never closed (a " is missing)',
    );
  });

  it('refuses a formula, naming line and column', () => {
    expect(error(() => readSheet(utf8('A,B\n1,2\n3, =SUM(A1:A2)\n'), 'f.csv')).message).toBe(
      'Line 3, column 2 holds a formula (=SUM(A1:A2)): save the sheet with values only',
    );
  });

  it('checks headings: missing, duplicate (any case), too many', () => {
    expect(error(() => readSheet(utf8('A,,C\n1,2,3\n'), 'h.csv')).message).toBe(
      'Column 2 has no heading (line 1, column 2)',
    );
    expect(error(() => readSheet(utf8('Name,Age,name\n1,2,3\n'), 'h.csv')).message).toMatch(
      /^Columns 1 and 3 have the same heading "name"/,
    );
    const header64 = Array.from({ length: 64 }, (_, i) => `c${i}`);
    expect(readSheet(utf8(writeCsv(header64, [header64])), 'w.csv').header).toHaveLength(64);
    const header65 = Array.from({ length: 65 }, (_, i) => `c${i}`);
    expect(error(() => readSheet(utf8(writeCsv(header65, [header65])), 'w.csv')).message).toMatch(
      /has 65 columns, more than the 64 allowed/,
    );
  });

  it('pads short rows, allows empty extra cells, refuses non-empty ones', () => {
    expect(readSheet(utf8('A,B,C\n1\n2,,,,\n'), 'p.csv').rows).toEqual([
      { line: 2, cells: ['1', null, null] },
      { line: 3, cells: ['2', null, null] },
    ]);
    expect(error(() => readSheet(utf8('A,B\n1,2\n3,4,5\n'), 'x.csv')).message).toMatch(
      /^Line 3, column 3 holds a value, but its column has no heading/,
    );
  });

  it('refuses U+0000 and over-long cells, naming where', () => {
    expect(error(() => readSheet(utf8('A,B\n1,x\u0000y\n'), 'n.csv')).message).toMatch(
      /^Line 2, column 2 holds a NUL character/,
    );
    expect(error(() => readSheet(utf8(`A\n${'y'.repeat(1001)}\n`), 'l.csv')).message).toMatch(
      /^Line 2, column 1 holds 1001 characters/,
    );
  });

  it('refuses an empty sheet, a header without rows, and more rows than the limit', () => {
    expect(error(() => readSheet(utf8('\n , ,\n\r\n'), 'e.csv')).message).toBe('The sheet is empty');
    expect(error(() => readSheet(utf8('A,B\n,\n'), 'h.csv')).message).toBe('The sheet has a header row but no data rows');
    const text = writeCsv(['N'], Array.from({ length: 4 }, (_, i) => [i]));
    expect(readSheet(utf8(text), 'r.csv', { maxRows: 4 }).rows).toHaveLength(4);
    expect(error(() => readSheet(utf8(text), 'r.csv', { maxRows: 3 })).message).toMatch(/more than 3 data rows/);
  });
});

describe('readSheet: performance', () => {
  it('reads a 100,000 x 7 xlsx', () => {
    const header = ['Id', 'Name', 'Date', 'Amount', 'Flag', 'Code', 'Note'];
    const rows: (SheetCell | Date)[][] = [];
    for (let i = 0; i < 100_000; i++) {
      rows.push([
        i + 1,
        `Person ${i}`,
        new Date(Date.UTC(2000, 0, 1) + (i % 9000) * 86_400_000),
        Math.round(i * 1.37 * 100) / 100,
        i % 2 === 0,
        `C${i % 977}`,
        i % 10 === 0 ? null : `note number ${i % 1000}`,
      ]);
    }
    let started = performance.now();
    const bytes = writeXlsx(header, rows);
    const wrote = performance.now() - started;
    started = performance.now();
    const sheet = readSheet(bytes, 'big.xlsx');
    const read = performance.now() - started;
    console.log(
      `100,000 x 7 xlsx: ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, written in ${Math.round(wrote)} ms, read in ${Math.round(read)} ms`,
    );
    expect(sheet.rows).toHaveLength(100_000);
    expect(sheet.rows[99_999]).toEqual({
      line: 100_001,
      cells: [100_000, 'Person 99999', new Date(Date.UTC(2000, 0, 1) + 999 * 86_400_000).toISOString().slice(0, 10), 136_998.63, false, 'C345', 'note number 999'],
    });

    const csv = writeCsv(header, rows.map((row) => row.map((v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v))));
    started = performance.now();
    const fromCsv = readSheet(utf8(csv), 'big.csv');
    console.log(`100,000 x 7 csv: read in ${Math.round(performance.now() - started)} ms`);
    expect(fromCsv.rows).toHaveLength(100_000);
  }, 120_000);
});
