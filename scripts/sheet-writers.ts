// Writing spreadsheets (.xlsx through SheetJS, .csv by hand) for the tests, the example sheets and
// the benchmark. Never part of a Worker: the Worker reads sheets with imports/sheet/ alone.

import * as XLSX from '@e965/xlsx';
import type { SheetCell } from '../workers/migrate/src/imports/sheet/index.ts';

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
