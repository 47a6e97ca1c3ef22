// Reading an uploaded spreadsheet (.xlsx or .csv) into a header and rows of plain values.
//
// Runs in a Worker and a Durable Object: Web-standard APIs only, no spreadsheet library. An .xlsx
// is read as it streams out of its zip (DecompressionStream, a small XML scanner: xlsx.ts, zip.ts,
// xml.ts), a row at a time, so a sheet never sits in memory whole: only the resulting rows and the
// shared strings do. The zip itself is checked first (sizes declared in its central directory), so
// a zip bomb is refused before anything is inflated. Number formats are classified by our own
// check (number-format.ts). CSV has its own small RFC 4180 reader (csv.ts). The writers used by
// the tests, the example sheets and the benchmark are in scripts/sheet-writers.ts.

import { formatBytes, type Limits, SHEET_LIMITS, type Sheet, SheetError } from './common.ts';
import { readCsv } from './csv.ts';
import { readXlsx } from './xlsx.ts';

export { SHEET_LIMITS, type Sheet, type SheetCell, SheetError } from './common.ts';

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
