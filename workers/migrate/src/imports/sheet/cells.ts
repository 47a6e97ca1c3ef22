// Excel's values: date serials (1900 and 1904 systems, and the ISO dates of t="d" cells), error
// codes and column letters.

import { capital, SheetError } from './common.ts';

/** Largest date Excel shows: 9999-12-31. */
const MAX_EXCEL_SERIAL = 2958466;

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

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

export function excelDate(serial: number, date1904: boolean, where: () => string): string {
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

export function columnName(c: number): string {
  let s = '';
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The name of an error cell's value as Excel shows it (one SheetJS knows), or #ERROR. */
export function errorName(value: string | undefined): string {
  for (const code of Object.values(ERROR_CODES)) if (code === value) return code;
  return '#ERROR';
}

/** Excel's last column, XFD. */
export const MAX_COLUMN = 16383;

/** SheetJS's reading of a t="d" cell (an ISO 8601 date, time or both, UTC) as an Excel serial. */
export function isoSerial(text: string, date1904: boolean): number {
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

export function columnIndex(ref: string): number {
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
