import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { writeCsv, writeXlsx } from '../../scripts/sheet-writers.ts';
import { readSheet, SHEET_LIMITS, type SheetCell, SheetError } from '../../workers/migrate/src/imports/sheet/index.ts';

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

async function error(run: () => unknown): Promise<SheetError> {
  try {
    await run();
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
  it('round-trips what writeXlsx writes', async () => {
    const header = ['Name', 'Age', 'Member', 'Joined', 'Note'];
    const rows: (SheetCell | Date)[][] = [
      ['Ann', 34, true, new Date(Date.UTC(2024, 0, 15)), 'a, "quoted" note'],
      ['Bob', 41.5, false, new Date(Date.UTC(1999, 11, 31)), null],
      ['Cé Ü 漢字', -2, null, new Date(Date.UTC(2024, 1, 29, 13, 45, 30)), 'line one\nline two'],
      ['Old', 0, true, new Date(Date.UTC(1900, 0, 1)), ''],
    ];
    const sheet = await readSheet(writeXlsx(header, rows, { sheetName: 'Members' }), 'members.xlsx');
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

  it('detects xlsx by content whatever the name, and reads only the first sheet', async () => {
    const bytes = workbook([[s('A')], [s('first')]], 'One', ['Two', 'Three']);
    const sheet = await readSheet(bytes, 'upload.bin');
    expect(sheet.sheetName).toBe('One');
    expect(sheet.rows).toEqual([{ line: 2, cells: ['first'] }]);
  });

  it('refuses a formula, naming the cell', async () => {
    const bytes = workbook([
      [s('A'), s('B')],
      [n(1), { t: 'n', v: 2, f: 'A2*2' }],
    ]);
    expect((await error(() => readSheet(bytes, 'f.xlsx'))).message).toBe(
      'Cell B2 holds a formula (=A2*2): save the sheet with values only',
    );
  });

  it('refuses a formula without a cached value', async () => {
    const bytes = workbook([
      [s('A'), s('B')],
      [n(1), { t: 'n', f: 'SUM(A1:A2)' } as XLSX.CellObject],
    ]);
    expect((await error(() => readSheet(bytes, 'f.xlsx'))).message).toMatch(/^Cell B2 holds a formula \(=SUM\(A1:A2\)\)/);
  });

  it('refuses an error cell, naming it', async () => {
    const bytes = workbook([
      [s('A'), s('B'), s('C')],
      [n(1), s('x'), { t: 'e', v: 0x2a }],
    ]);
    expect((await error(() => readSheet(bytes, 'e.xlsx'))).message).toMatch(/^Cell C2 holds an error \(#N\/A\)/);
  });

  it('turns date formats into ISO dates and time formats into seconds', async () => {
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
    const sheet = await readSheet(bytes, 'd.xlsx');
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

  it('reads dates of a 1904-based workbook', async () => {
    const ws = XLSX.utils.aoa_to_sheet([['When'], [0]]);
    ws['A2'] = n(0, 'yyyy-mm-dd');
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, ws, 'S');
    wb.Workbook = { WBProps: { date1904: true } };
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    expect((await readSheet(bytes, 'old-mac.xlsx')).rows[0]!.cells).toEqual(['1904-01-01']);
  });

  it('trims text around, never inside; empty text is null; booleans stay booleans', async () => {
    const bytes = workbook([
      [s('  Name  '), s('Flag'), s('Blank')],
      [s('  two  words  '), { t: 'b', v: false }, s('   ')],
    ]);
    const sheet = await readSheet(bytes, 't.xlsx');
    expect(sheet.header).toEqual(['Name', 'Flag', 'Blank']);
    expect(sheet.rows[0]!.cells).toEqual(['two  words', false, null]);
  });

  it('takes the first non-empty row as the header, skips empty rows, keeps Excel row numbers', async () => {
    const bytes = workbook([[], [null, null], [null, s('Name'), n(2024)], [null, s('a'), n(1)], [], [null, null, n(2)], [null, s('   ')]]);
    const sheet = await readSheet(bytes, 'h.xlsx');
    expect(sheet.header).toEqual(['Name', '2024']);
    expect(sheet.rows).toEqual([
      { line: 4, cells: ['a', 1] },
      { line: 6, cells: [null, 2] },
    ]);
  });

  it('names the cell of a missing heading (by its Excel column)', async () => {
    const bytes = workbook([
      [null, s('A'), null, s('C')],
      [null, n(1), n(2), n(3)],
    ]);
    expect((await error(() => readSheet(bytes, 'h.xlsx'))).message).toBe('Column 2 has no heading (cell C1)');
  });

  it('refuses a value in a column without heading, but not empty extra cells', async () => {
    const bad = workbook([
      [s('A'), s('B')],
      [n(1), n(2), n(3)],
    ]);
    expect((await error(() => readSheet(bad, 'x.xlsx'))).message).toMatch(/^Cell C2 holds a value, but its column has no heading/);
    const fine = workbook([[s('A'), s('B')], [n(1), n(2), s('  ')], [n(3)]]);
    expect((await readSheet(fine, 'x.xlsx')).rows).toEqual([
      { line: 2, cells: [1, 2] },
      { line: 3, cells: [3, null] },
    ]);
  });

  it('refuses a text cell holding U+0000', async () => {
    const bytes = writeXlsx(['A'], [['bad\u0000text']]);
    expect((await error(() => readSheet(bytes, 'nul.xlsx'))).message).toMatch(/^Cell A2 holds a NUL character/);
  });

  it('refuses a cell longer than the limit', async () => {
    expect((await readSheet(writeXlsx(['A'], [['x'.repeat(1000)]]), 'ok.xlsx')).rows[0]!.cells[0]).toHaveLength(1000);
    expect((await error(() => readSheet(writeXlsx(['A'], [['x'.repeat(1001)]]), 'long.xlsx'))).message).toMatch(
      /^Cell A2 holds 1001 characters, more than the 1000 allowed/,
    );
  });

  it('refuses an empty sheet and a sheet without data rows', async () => {
    expect((await error(() => readSheet(workbook([[]]), 'e.xlsx'))).message).toBe('The sheet is empty');
    expect((await error(() => readSheet(writeXlsx(['A', 'B'], []), 'h.xlsx'))).message).toBe('The sheet has a header row but no data rows');
  });

  it('refuses more rows than the limit', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => [i]);
    expect((await readSheet(writeXlsx(['N'], rows.slice(0, 5)), 'r.xlsx', { maxRows: 5 })).rows).toHaveLength(5);
    expect((await error(() => readSheet(writeXlsx(['N'], rows), 'r.xlsx', { maxRows: 5 }))).message).toMatch(/more than 5 data rows/);
    // The rows beyond those read are not all counted, but are seen to exist.
    const gappy = workbook([[s('N')], [n(1)], [], [], [], [], [], [], [n(2)]]);
    expect((await error(() => readSheet(gappy, 'r.xlsx', { maxRows: 2 }))).message).toMatch(/more than 2 data rows/);
  });

  it('reads a zip written as a stream (sizes after the data)', async () => {
    const bytes = asStreamedZip(writeXlsx(['A', 'B'], [['x', 1]]));
    expect((await readSheet(bytes, 'stream.xlsx')).rows).toEqual([{ line: 2, cells: ['x', 1] }]);
  });
});

// ----- .xlsx packages written part by part, as other programs write them

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

type Parts = { sheet: string; strings?: string; styles?: string; workbook?: string };

/** A complete .xlsx package around the given parts; every entry deflated, or stored when asked. */
async function xlsxPackage(parts: Parts, options: { stored?: boolean } = {}): Promise<Uint8Array> {
  const files: [string, string][] = [
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT}.worksheet+xml"/>` +
        (parts.strings ? `<Override PartName="/xl/sharedStrings.xml" ContentType="${CT}.sharedStrings+xml"/>` : '') +
        (parts.styles ? `<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/>` : '') +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      parts.workbook ??
        `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        (parts.strings ? `<Relationship Id="rId2" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` : '') +
        (parts.styles ? `<Relationship Id="rId3" Type="${REL_NS}/styles" Target="/xl/styles.xml"/>` : '') +
        '</Relationships>',
    ],
    ['xl/worksheets/sheet1.xml', parts.sheet],
  ];
  if (parts.strings) files.push(['xl/sharedStrings.xml', parts.strings]);
  if (parts.styles) files.push(['xl/styles.xml', parts.styles]);
  const entries: Entry[] = [];
  for (const [name, text] of files) {
    const data = utf8(text);
    entries.push(
      options.stored ? { name, data, method: 0, usz: data.length } : { name, data: await deflateRaw(data), method: 8, usz: data.length },
    );
  }
  return zip(entries);
}

/** A worksheet part holding these rows (XML), its tags with the given namespace prefix ("x:") if any. */
function worksheet(rows: string, prefix = ''): string {
  const xmlns = prefix ? `xmlns:${prefix.slice(0, -1)}` : 'xmlns';
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${prefix}worksheet ${xmlns}="${MAIN_NS}" xmlns:r="${REL_NS}"><${prefix}dimension ref="A1"/><${prefix}sheetData>${rows}</${prefix}sheetData></${prefix}worksheet>`;
}

/** An inline-string cell. */
const is = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

describe('readSheet: xlsx as other programs write it', () => {
  it('reads shared strings: rich-text runs joined, phonetic runs left out, entities and escapes decoded', async () => {
    const bytes = await xlsxPackage({
      sheet: worksheet(
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
          '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c></row>' +
          '<row r="3"><c r="A3" t="s"><v>4</v></c><c r="B3"><v>7</v></c></row>',
      ),
      strings:
        `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN_NS}" count="5" uniqueCount="5">` +
        '<si><t>Name</t></si><si><t>Note</t></si>' +
        '<si><r><rPr><b/><sz val="11"/></rPr><t>Bold</t></r><r><t xml:space="preserve"> &amp; plain</t></r></si>' +
        '<si><t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh><phoneticPr fontId="1"/></si>' +
        '<si><t>A &lt;b&gt; &quot;c&quot; &apos;d&apos; line&#10;two &#x263A; _x0009_tab&#13;&#10;end</t></si></sst>',
    });
    expect(await readSheet(bytes, 'sst.xlsx')).toEqual({
      format: 'xlsx',
      sheetName: 'Data',
      header: ['Name', 'Note'],
      rows: [
        { line: 2, cells: ['Bold & plain', '漢字'] },
        { line: 3, cells: ['A <b> "c" \'d\' line\ntwo ☺ \ttab\nend', 7] },
      ],
    });
  });

  it('reads inline strings (plain, rich text, CDATA), skipping comments', async () => {
    const bytes = await xlsxPackage({
      sheet: worksheet(
        `<row r="1">${is('A1', 'Name')}<c r="B1" t="inlineStr"><is><r><t>Sc</t></r><r><rPr><i/></rPr><t>ore</t></r></is></c>${is('C1', '<![CDATA[<raw> & more]]>')}</row>` +
          `<!-- <row r="2"><c r="A2"><v>0</v></c></row> -->` +
          `<row r="3">${is('A3', '  inline &amp; text  ')}<c r="B3" t="inlineStr"><is><t>x</t><rPh><t>ignored</t></rPh></is></c><c r="C3" t="inlineStr"/></row>`,
      ),
    });
    const sheet = await readSheet(bytes, 'inline.xlsx');
    expect(sheet.header).toEqual(['Name', 'Score', '<raw> & more']);
    expect(sheet.rows).toEqual([{ line: 3, cells: ['inline & text', 'x', null] }]);
  });

  it('reads tags with a namespace prefix, in the workbook and the sheet', async () => {
    const bytes = await xlsxPackage({
      workbook: `<?xml version="1.0"?><x:workbook xmlns:x="${MAIN_NS}" xmlns:r="${REL_NS}"><x:workbookPr date1904="1"/><x:sheets><x:sheet name="Prefixed &amp; co" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`,
      sheet: worksheet(
        '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>H1</x:t></x:is></x:c><x:c r="B1" t="str"><x:v>H2</x:v></x:c><x:c r="C1" t="inlineStr"><x:is><x:t>H3</x:t></x:is></x:c></x:row>' +
          '<x:row r="2"><x:c r="A2"><x:v>1.25</x:v></x:c><x:c r="B2" t="b"><x:v>1</x:v></x:c><x:c r="C2" t="d"><x:v>1904-01-02</x:v></x:c></x:row>',
        'x:',
      ),
    });
    expect(await readSheet(bytes, 'prefixed.xlsx')).toEqual({
      format: 'xlsx',
      sheetName: 'Prefixed & co',
      header: ['H1', 'H2', 'H3'],
      rows: [{ line: 2, cells: [1.25, true, 1] }],
    });
    const formula = await xlsxPackage({
      sheet: worksheet(
        '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>A</x:t></x:is></x:c></x:row><x:row r="2"><x:c r="A2"><x:f>_xlfn.CONCAT(&quot;a&quot;,B1)</x:f><x:v>1</x:v></x:c></x:row>',
        'x:',
      ),
    });
    expect((await error(() => readSheet(formula, 'f.xlsx'))).message).toBe(
      'Cell A2 holds a formula (=CONCAT("a",B1)): save the sheet with values only',
    );
  });

  it('places cells and rows without an r attribute by their order', async () => {
    const bytes = await xlsxPackage({
      sheet: worksheet(
        '<row><c t="inlineStr"><is><t>A</t></is></c><c t="inlineStr"><is><t>B</t></is></c><c t="inlineStr"><is><t>C</t></is></c></row>' +
          '<row><c><v>1</v></c><c r="C2"><v>3</v></c></row>' +
          '<row r="5"><c r="B5"><v>2</v></c><c><v>4</v></c></row>' +
          '<row><c><v>9</v></c></row>',
      ),
    });
    expect((await readSheet(bytes, 'norefs.xlsx')).rows).toEqual([
      { line: 2, cells: [1, null, 3] },
      { line: 5, cells: [null, 2, 4] },
      { line: 6, cells: [9, null, null] },
    ]);
  });

  it('reads stored (uncompressed) zip entries', async () => {
    const bytes = await xlsxPackage(
      { sheet: worksheet(`<row r="1">${is('A1', 'A')}</row><row r="2"><c r="A2"><v>5</v></c></row>`) },
      { stored: true },
    );
    expect((await readSheet(bytes, 'stored.xlsx')).rows).toEqual([{ line: 2, cells: [5] }]);
  });

  it('refuses a corrupt deflate stream, and one that unpacks to more or less than its declared size', async () => {
    const sheet = worksheet(
      `<row r="1">${is('A1', 'A')}</row>` +
        Array.from({ length: 50 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}"><v>${i}</v></c></row>`).join(''),
    );
    const stored = (name: string, text: string): Entry => ({ name, data: utf8(text), method: 0, usz: utf8(text).length });
    // No relationships: the first sheet is found where Excel puts it.
    const withSheet = (data: Uint8Array, usz: number) =>
      zip([
        stored('[Content_Types].xml', '<Types/>'),
        stored('xl/workbook.xml', `<workbook xmlns="${MAIN_NS}"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>`),
        { name: 'xl/worksheets/sheet1.xml', data, method: 8, usz },
      ]);
    const packed = await deflateRaw(utf8(sheet));
    expect((await readSheet(withSheet(packed, utf8(sheet).length), 'good.xlsx')).rows).toHaveLength(50);

    const corrupt = withSheet(new Uint8Array(300).fill(0xff), 2000);
    expect((await error(() => readSheet(corrupt, 'bad.xlsx'))).message).toBe(
      '"bad.xlsx" is damaged and cannot be read as an .xlsx file (xl/worksheets/sheet1.xml cannot be unpacked)',
    );
    expect((await error(() => readSheet(withSheet(packed, 1000), 'lying.xlsx'))).message).toBe(
      '"lying.xlsx" is damaged and cannot be read as an .xlsx file (the sizes of xl/worksheets/sheet1.xml do not agree)',
    );
    const cut = withSheet(packed.slice(0, Math.floor(packed.length / 2)), utf8(sheet).length);
    expect((await error(() => readSheet(cut, 'cut.xlsx'))).message).toMatch(
      /^"cut\.xlsx" is damaged and cannot be read as an \.xlsx file \(/,
    );
  });

  it('classifies number formats of styles.xml: custom and built-in dates and times, plain numbers', async () => {
    const values: [number, number][] = [
      [1, 45306],
      [2, 0.75],
      [3, 45306],
      [4, 12],
      [5, 83.25 / 86400],
      [6, 45306.5],
      [7, 0.5],
      [8, 45306],
      [0, 45306],
      [9, 2.5],
    ];
    const col = (i: number) => String.fromCharCode(65 + i);
    const bytes = await xlsxPackage({
      sheet: worksheet(
        `<row r="1">${values.map((_, i) => is(`${col(i)}1`, `h${i}`)).join('')}</row>` +
          `<row r="2">${values.map(([s, v], i) => `<c r="${col(i)}2" s="${s}"><v>${v}</v></c>`).join('')}</row>`,
      ),
      styles:
        `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${MAIN_NS}">` +
        '<numFmts count="3"><numFmt numFmtId="164" formatCode="dd/mm/yyyy;@"/><numFmt numFmtId="165" formatCode="[$-409]h:mm:ss\\ AM/PM"/><numFmt numFmtId="166" formatCode="&quot;Week &quot;0"/></numFmts>' +
        '<cellStyleXfs count="1"><xf numFmtId="14" fontId="0"/></cellStyleXfs>' +
        '<cellXfs count="10"><xf numFmtId="0" fontId="0" xfId="0"/><xf numFmtId="164" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" xfId="0"><alignment horizontal="left"/></xf>' +
        '<xf numFmtId="14" xfId="0"/><xf numFmtId="166" xfId="0"/><xf numFmtId="47" xfId="0"/><xf numFmtId="22" xfId="0"/><xf numFmtId="20"/><xf numFmtId="30"/><xf numFmtId="46"/></cellXfs>' +
        '<dxfs count="1"><dxf><numFmt numFmtId="167" formatCode="yyyy"/></dxf></dxfs></styleSheet>',
    });
    expect((await readSheet(bytes, 'styles.xlsx')).rows[0]!.cells).toEqual([
      '2024-01-15', // dd/mm/yyyy;@
      64800, // h:mm:ss AM/PM: a time of day, in seconds
      '2024-01-15', // built-in 14
      12, // "Week "0
      83.25, // built-in 47, mmss.0
      '2024-01-15T12:00:00', // built-in 22
      43200, // built-in 20, h:mm
      45306, // 30: no format SheetJS knows, a plain number
      45306, // style 0, General
      216000, // built-in 46, [h]:mm:ss
    ]);
  });

  it('reads the other cell types: booleans, ISO dates, formula strings, errors; refuses shared formulas', async () => {
    const bytes = await xlsxPackage({
      sheet: worksheet(
        `<row r="1">${is('A1', 'a')}${is('B1', 'b')}${is('C1', 'c')}${is('D1', 'd')}</row>` +
          '<row r="2"><c r="A2" t="b"><v>0</v></c><c r="B2" t="d"><v>2024-03-01T10:30:00</v></c><c r="C2" t="str"><v>s&amp;t</v></c><c r="D2" t="n"><v>abc</v></c></row>' +
          '<row r="3"><c r="A3" t="b"/><c r="B3" t="str"/><c r="C3" t="n"></c><c r="D3" s="9"><v>7</v></c></row>',
      ),
    });
    expect((await readSheet(bytes, 'types.xlsx')).rows).toEqual([
      { line: 2, cells: [false, 45352.4375, 's&t', null] },
      { line: 3, cells: [false, null, null, 7] },
    ]);
    const shared = await xlsxPackage({
      sheet: worksheet(
        `<row r="1">${is('A1', 'A')}</row><row r="2"><c r="A2"><f t="shared" ref="A2:A3" si="0">B2*2</f><v>1</v></c></row><row r="3"><c r="A3"><f t="shared" si="0"/><v>2</v></c></row>`,
      ),
    });
    expect((await error(() => readSheet(shared, 's.xlsx'))).message).toBe(
      'Cell A2 holds a formula (=B2*2): save the sheet with values only',
    );
    const err = await xlsxPackage({
      sheet: worksheet(`<row r="1">${is('A1', 'A')}</row><row r="2"><c r="A2" t="e"><v>#DIV/0!</v></c></row>`),
    });
    expect((await error(() => readSheet(err, 'e.xlsx'))).message).toBe('Cell A2 holds an error (#DIV/0!): correct it or clear the cell');
  });

  it('starts at the first column that holds anything, and reports problems in row order meanwhile', async () => {
    const bytes = await xlsxPackage({
      sheet: worksheet(
        `<row r="2">${is('C2', 'Name')}${is('D2', 'N')}</row><row r="3">${is('C3', 'a')}<c r="D3"><v>1</v></c></row><row r="4"><c r="D4"><v>2</v></c></row>`,
      ),
    });
    expect(await readSheet(bytes, 'offset.xlsx')).toMatchObject({
      header: ['Name', 'N'],
      rows: [
        { line: 3, cells: ['a', 1] },
        { line: 4, cells: [null, 2] },
      ],
    });
    // Row 3 has a value past the header; row 4 a formula; row 5 a value in column B.
    const ordered = await xlsxPackage({
      sheet: worksheet(
        `<row r="2">${is('C2', 'Name')}</row><row r="3"><c r="C3"><v>1</v></c><c r="D3"><v>9</v></c></row><row r="4"><c r="C4"><f>1+1</f></c></row><row r="5">${is('B5', '  ')}</row>`,
      ),
    });
    expect((await error(() => readSheet(ordered, 'o.xlsx'))).message).toBe('Column 1 has no heading (cell B2)');
    const later = await xlsxPackage({
      sheet: worksheet(
        `<row r="2">${is('C2', 'Name')}${is('D2', 'N')}</row><row r="3"><c r="C3"><v>1</v></c><c r="E3"><v>9</v></c></row><row r="4"><c r="C4"><f>1+1</f></c></row>`,
      ),
    });
    expect((await error(() => readSheet(later, 'l.xlsx'))).message).toMatch(/^Cell E3 holds a value, but its column has no heading/);
  });

  it('refuses rows out of order and shared strings that do not exist', async () => {
    const order = await xlsxPackage({ sheet: worksheet(`<row r="2">${is('A2', 'A')}</row><row r="1"><c r="A1"><v>1</v></c></row>`) });
    expect((await error(() => readSheet(order, 'order.xlsx'))).message).toMatch(/^"order\.xlsx" is damaged .*row 1 comes after row 2/);
    const missing = await xlsxPackage({ sheet: worksheet('<row r="1"><c r="A1" t="s"><v>3</v></c></row>') });
    expect((await error(() => readSheet(missing, 'sst.xlsx'))).message).toMatch(/^"sst\.xlsx" is damaged .*shared string 3/);
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
    expect((await error(() => readSheet(bytes, 'bomb.xlsx'))).message).toMatch(/^"bomb.xlsx" expands to more than 200 times.*: refused$/);
  });

  it('refuses a zip whose declared sizes add up to more than the limit', async () => {
    const bytes = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'xl/huge.xml', data: new Uint8Array(16), method: 8, usz: 16, declaredUsz: 0xfffffff0 },
    ]);
    expect((await error(() => readSheet(bytes, 'huge.xlsx'))).message).toMatch(/^"huge.xlsx" expands to more than 150 MiB.*: refused$/);
    const real = writeXlsx(['A'], [['x']]);
    expect((await error(() => readSheet(real, 'small.xlsx', { maxUncompressedBytes: 1000 }))).message).toMatch(
      /expands to more than 1000 bytes when unpacked: refused/,
    );
  });

  it('refuses local headers that do not agree with the directory', async () => {
    const bytes = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'xl/a.xml', data: new Uint8Array(64), method: 8, usz: 1000 },
    ]);
    // Make the local header of the second entry claim another size.
    const v = new DataView(bytes.buffer);
    const second = 30 + '[Content_Types].xml'.length + 8;
    v.setUint32(second + 22, 5000, true);
    expect((await error(() => readSheet(bytes, 'lie.xlsx'))).message).toMatch(/damaged.*do not agree/);
  });

  it('refuses corrupt and truncated zips without a raw stack', async () => {
    const garbage = concat([utf8('PK\x03\x04'), new Uint8Array(100).fill(7)]);
    expect((await error(() => readSheet(garbage, 'bad.xlsx'))).message).toMatch(/^"bad.xlsx" is damaged/);
    const real = writeXlsx(['A'], [['x']]);
    expect((await error(() => readSheet(real.slice(0, Math.floor(real.length / 2)), 'half.xlsx'))).message).toMatch(
      /^"half.xlsx" is damaged/,
    );
    // A zip that is not a workbook.
    const other = zip([{ name: 'hello.txt', data: utf8('hello'), method: 0, usz: 5 }]);
    expect((await error(() => readSheet(other, 'other.xlsx'))).message).toMatch(/is not an \.xlsx or \.csv file/);
    // Directory fine, content not a workbook: SheetJS throws, the message stays ours.
    const docx = zip([
      { name: '[Content_Types].xml', data: utf8('<Types/>'), method: 0, usz: 8 },
      { name: 'word/document.xml', data: utf8('<w:document/>'), method: 0, usz: 13 },
    ]);
    const message = (await error(() => readSheet(docx, 'doc.xlsx'))).message;
    expect(message).toMatch(/^"doc.xlsx" (could not be read as an \.xlsx workbook|holds no sheets)|The sheet is empty/);
    expect(message).not.toMatch(/\n\s+at /);
  });
});

describe('readSheet: files that are neither', () => {
  it('refuses an empty file and one over the size limit', async () => {
    expect((await error(() => readSheet(new Uint8Array(0), 'e.csv'))).message).toMatch(/is empty/);
    const big = new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61);
    expect((await error(() => readSheet(big, 'big.csv'))).message).toMatch(/^"big.csv" is larger than 20 MiB/);
  });

  it('refuses an old .xls (or encrypted workbook), a PNG, a PDF', async () => {
    const xls = concat([new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), new Uint8Array(504)]);
    expect((await error(() => readSheet(xls, 'old.xls'))).message).toMatch(
      /^"old.xls" is not an \.xlsx or \.csv file \(it is an old \.xls/,
    );
    expect((await error(() => readSheet(xls, 'renamed.csv'))).message).toMatch(/is not an \.xlsx or \.csv file/);
    const png = concat([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), new Uint8Array(64)]);
    expect((await error(() => readSheet(png, 'photo.png'))).message).toMatch(/^"photo.png" is not an \.xlsx or \.csv file/);
    expect((await error(() => readSheet(utf8('%PDF-1.7\n...'), 'doc.pdf'))).message).toMatch(/is not an \.xlsx or \.csv file/);
    const binary = new Uint8Array([1, 2, 3, 0, 0, 250, 251]);
    expect((await error(() => readSheet(binary, 'data.bin'))).message).toMatch(/is not an \.xlsx or \.csv file/);
  });
});

describe('readSheet: csv', () => {
  it('round-trips what writeCsv writes (all cells as text)', async () => {
    const header = ['Name', 'Note', 'N', 'Flag'];
    const rows: SheetCell[][] = [
      ['Ann', 'has, comma', 1.5, true],
      ['Bob', 'has "quotes"', -3, false],
      ['Cé', 'two\r\nlines', null, null],
      ['Dee', 'semi;colon\ttab', 0, true],
    ];
    const text = writeCsv(header, rows);
    expect(text.split('\r\n')[0]).toBe('Name,Note,N,Flag');
    const sheet = await readSheet(utf8(text), 'people.csv');
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

  it('parses quoting per RFC 4180, with line numbers after embedded newlines', async () => {
    const text = 'a,b,c\n"x ""y"" z","multi\nline\nvalue",plain\n\n  spaced , "q" ,\nlast,"",""""\n';
    const sheet = await readSheet(utf8(text), 'q.csv');
    expect(sheet.rows).toEqual([
      { line: 2, cells: ['x "y" z', 'multi\nline\nvalue', 'plain'] },
      { line: 6, cells: ['spaced', 'q', null] },
      { line: 7, cells: ['last', null, '"'] },
    ]);
  });

  it('detects semicolon and tab delimiters, strips a BOM, takes CRLF and lone CR', async () => {
    const semi = await readSheet(utf8('\uFEFFName;Price;Note\r\nApple;1,50;"a;b"\r\n'), 'eu.csv');
    expect(semi.header).toEqual(['Name', 'Price', 'Note']);
    expect(semi.rows).toEqual([{ line: 2, cells: ['Apple', '1,50', 'a;b'] }]);
    const tab = await readSheet(utf8('A\tB\r1\t2,5\r'), 'tab.csv');
    expect(tab.rows).toEqual([{ line: 2, cells: ['1', '2,5'] }]);
    const withBom = await readSheet(concat([new Uint8Array([0xef, 0xbb, 0xbf]), utf8('Id,Name\n1,x')]), 'bom.csv');
    expect(withBom.header).toEqual(['Id', 'Name']);
    expect(withBom.rows).toEqual([{ line: 2, cells: ['1', 'x'] }]);
  });

  it('reads UTF-8 text whatever its name; refuses invalid UTF-8', async () => {
    expect((await readSheet(utf8('A,B\n1,2\n'), 'export.txt')).format).toBe('csv');
    const latin1 = new Uint8Array([0x41, 0x0a, 0x43, 0xe9, 0x0a]); // "A\nCé" in Latin-1
    expect((await error(() => readSheet(latin1, 'latin.csv'))).message).toMatch(/^"latin.csv" is not UTF-8 text/);
    expect((await error(() => readSheet(latin1, 'latin.txt'))).message).toMatch(/is not an \.xlsx or \.csv file/);
  });

  it('refuses an unterminated quote, naming the line', async () => {
    expect((await error(() => readSheet(utf8('A,B\n1,2\n3,"open\nmore\n'), 'u.csv'))).message).toBe(
      'Line 3, column 2: a quoted value is never closed (a " is missing)',
    );
  });

  it('refuses a formula, naming line and column', async () => {
    expect((await error(() => readSheet(utf8('A,B\n1,2\n3, =SUM(A1:A2)\n'), 'f.csv'))).message).toBe(
      'Line 3, column 2 holds a formula (=SUM(A1:A2)): save the sheet with values only',
    );
  });

  it('checks headings: missing, duplicate (any case), too many', async () => {
    expect((await error(() => readSheet(utf8('A,,C\n1,2,3\n'), 'h.csv'))).message).toBe('Column 2 has no heading (line 1, column 2)');
    expect((await error(() => readSheet(utf8('Name,Age,name\n1,2,3\n'), 'h.csv'))).message).toMatch(
      /^Columns 1 and 3 have the same heading "name"/,
    );
    const header64 = Array.from({ length: 64 }, (_, i) => `c${i}`);
    expect((await readSheet(utf8(writeCsv(header64, [header64])), 'w.csv')).header).toHaveLength(64);
    const header65 = Array.from({ length: 65 }, (_, i) => `c${i}`);
    expect((await error(() => readSheet(utf8(writeCsv(header65, [header65])), 'w.csv'))).message).toMatch(
      /has 65 columns, more than the 64 allowed/,
    );
  });

  it('pads short rows, allows empty extra cells, refuses non-empty ones', async () => {
    expect((await readSheet(utf8('A,B,C\n1\n2,,,,\n'), 'p.csv')).rows).toEqual([
      { line: 2, cells: ['1', null, null] },
      { line: 3, cells: ['2', null, null] },
    ]);
    expect((await error(() => readSheet(utf8('A,B\n1,2\n3,4,5\n'), 'x.csv'))).message).toMatch(
      /^Line 3, column 3 holds a value, but its column has no heading/,
    );
  });

  it('refuses U+0000 and over-long cells, naming where', async () => {
    expect((await error(() => readSheet(utf8('A,B\n1,x\u0000y\n'), 'n.csv'))).message).toMatch(/^Line 2, column 2 holds a NUL character/);
    expect((await error(() => readSheet(utf8(`A\n${'y'.repeat(1001)}\n`), 'l.csv'))).message).toMatch(
      /^Line 2, column 1 holds 1001 characters/,
    );
  });

  it('refuses an empty sheet, a header without rows, and more rows than the limit', async () => {
    expect((await error(() => readSheet(utf8('\n , ,\n\r\n'), 'e.csv'))).message).toBe('The sheet is empty');
    expect((await error(() => readSheet(utf8('A,B\n,\n'), 'h.csv'))).message).toBe('The sheet has a header row but no data rows');
    const text = writeCsv(
      ['N'],
      Array.from({ length: 4 }, (_, i) => [i]),
    );
    expect((await readSheet(utf8(text), 'r.csv', { maxRows: 4 })).rows).toHaveLength(4);
    expect((await error(() => readSheet(utf8(text), 'r.csv', { maxRows: 3 }))).message).toMatch(/more than 3 data rows/);
  });
});

describe('readSheet: performance', () => {
  it('reads a 100,000 x 7 xlsx', async () => {
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
    const sheet = await readSheet(bytes, 'big.xlsx');
    const read = performance.now() - started;
    console.log(
      `100,000 x 7 xlsx: ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, written in ${Math.round(wrote)} ms, read in ${Math.round(read)} ms`,
    );
    expect(sheet.rows).toHaveLength(100_000);
    expect(sheet.rows[99_999]).toEqual({
      line: 100_001,
      cells: [
        100_000,
        'Person 99999',
        new Date(Date.UTC(2000, 0, 1) + 999 * 86_400_000).toISOString().slice(0, 10),
        136_998.63,
        false,
        'C345',
        'note number 999',
      ],
    });

    const csv = writeCsv(
      header,
      rows.map((row) => row.map((v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v))),
    );
    started = performance.now();
    const fromCsv = await readSheet(utf8(csv), 'big.csv');
    console.log(`100,000 x 7 csv: read in ${Math.round(performance.now() - started)} ms`);
    expect(fromCsv.rows).toHaveLength(100_000);
  }, 120_000);
});
