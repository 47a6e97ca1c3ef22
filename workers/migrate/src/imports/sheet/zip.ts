// The zip under an .xlsx: its whole central directory checked (sizes, ratios, limits) before
// anything is inflated, then one entry at a time inflated as text, a slice at a time.

import { formatBytes, type Limits, MiB, SheetError } from './common.ts';

/** An entry compressed more than this (and bigger than BOMB_MIN_ENTRY once inflated) is refused. */
const BOMB_RATIO = 200;
const BOMB_MIN_ENTRY = MiB;

/** How much compressed data goes to the inflater at a time (bounds what one step can produce). */
const INFLATE_SLICE = 16 * 1024;

/** A checked zip entry: its data is bytes[offset, offset + csz), inflating to exactly usz bytes. */
export type ZipEntry = { name: string; method: 0 | 8; csz: number; usz: number; offset: number };

/** Checks the whole central directory (sizes, ratios, limits); returns the entries by lower-cased name. */
export function readZipDirectory(bytes: Uint8Array, name: string, lim: Limits): Map<string, ZipEntry> {
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

/** Passes the entry's text to sink chunk by chunk until it is all read or sink returns true. */
export async function readEntryText(
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
