// Reading a call's options as R2 reads them (HTTP metadata, conditionals, ranges, list cursors), the
// order of keys, and an object's bytes streamed from its file.

import type { R2Conditional, R2HTTPMetadata, R2Range, Stored } from './types.ts';
import { CHUNK, R2Error } from './objects.ts';

/** HTTP metadata from R2's object form or from headers (the put option accepts both). */
export function httpMetadataOf(source: R2HTTPMetadata | Headers | undefined): Stored['httpMetadata'] {
  if (!source) return {};
  const m: Stored['httpMetadata'] = {};
  if (source instanceof Headers) {
    const set = (name: string, field: Exclude<keyof R2HTTPMetadata, 'cacheExpiry'>) => {
      const value = source.get(name);
      if (value !== null) m[field] = value;
    };
    set('content-type', 'contentType');
    set('content-language', 'contentLanguage');
    set('content-disposition', 'contentDisposition');
    set('content-encoding', 'contentEncoding');
    set('cache-control', 'cacheControl');
    const expires = source.get('expires');
    if (expires !== null && !Number.isNaN(Date.parse(expires))) m.cacheExpiry = Date.parse(expires);
    return m;
  }
  const { cacheExpiry, ...rest } = source;
  for (const [field, value] of Object.entries(rest)) if (value !== undefined) (m as Record<string, string>)[field] = String(value);
  if (cacheExpiry !== undefined) m.cacheExpiry = cacheExpiry.getTime();
  return m;
}

/** A conditional as R2 reads it from headers: If-Match, If-None-Match, If-(Un)Modified-Since. */
export function conditionalOf(source: R2Conditional | Headers): R2Conditional {
  if (!(source instanceof Headers)) return source;
  const date = (name: string) => {
    const value = source.get(name);
    return value === null || Number.isNaN(Date.parse(value)) ? undefined : new Date(Date.parse(value));
  };
  const c: R2Conditional = { secondsGranularity: true };
  const ifMatch = source.get('if-match');
  const ifNoneMatch = source.get('if-none-match');
  if (ifMatch !== null) c.etagMatches = ifMatch;
  if (ifNoneMatch !== null) c.etagDoesNotMatch = ifNoneMatch;
  const unmodified = date('if-unmodified-since');
  const modified = date('if-modified-since');
  if (unmodified) c.uploadedBefore = unmodified;
  if (modified) c.uploadedAfter = modified;
  return c;
}

function etagsMatch(list: string, etag: string): boolean {
  return list.split(',').some((item) => {
    const tag = item
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1');
    return tag === '*' || tag === etag;
  });
}

/** Whether the condition holds for the stored object (undefined: no object). */
export function holds(condition: R2Conditional, stored: Stored | undefined): boolean {
  if (!stored) return condition.etagMatches === undefined;
  const ifMatch = condition.etagMatches === undefined ? undefined : etagsMatch(condition.etagMatches, stored.etag);
  if (ifMatch === false) return false;
  const ifNoneMatch = condition.etagDoesNotMatch === undefined ? undefined : !etagsMatch(condition.etagDoesNotMatch, stored.etag);
  if (ifNoneMatch === false) return false;
  const seconds = (ms: number) => (condition.secondsGranularity ? Math.floor(ms / 1000) * 1000 : ms);
  const uploaded = seconds(stored.uploaded);
  // As in HTTP, a matching etag decides over the dates.
  if (ifMatch !== true && condition.uploadedBefore && uploaded > seconds(condition.uploadedBefore.getTime())) return false;
  if (ifNoneMatch !== true && condition.uploadedAfter && uploaded <= seconds(condition.uploadedAfter.getTime())) return false;
  return true;
}

/** The byte range asked for, resolved against the size; R2 refuses one it cannot satisfy. */
export function resolveRange(range: R2Range | Headers | undefined, size: number): { offset: number; length: number } {
  if (range === undefined) return { offset: 0, length: size };
  let asked: R2Range;
  if (range instanceof Headers) {
    const header = range.get('range');
    if (header === null) return { offset: 0, length: size };
    const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
    if (!m || (m[1] === '' && m[2] === '')) throw new R2Error('get', 'The requested range is not satisfiable', 10039);
    if (m[1] === '') asked = { suffix: Number(m[2]) };
    else if (m[2] === '') asked = { offset: Number(m[1]) };
    else asked = { offset: Number(m[1]), length: Math.min(Number(m[2]), size - 1) - Number(m[1]) + 1 };
  } else {
    asked = range;
  }
  if ('suffix' in asked) {
    const length = Math.min(asked.suffix, size);
    return { offset: size - length, length };
  }
  const offset = asked.offset ?? 0;
  const length = asked.length ?? size - offset;
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || (offset > 0 && offset >= size)) {
    throw new R2Error('get', 'The requested range is not satisfiable', 10039);
  }
  // A range past the end is cut at the end, as HTTP ranges are.
  return { offset, length: Math.min(length, size - offset) };
}

export function fileStream(path: string, offset: number, length: number): ReadableStream<Uint8Array> {
  let file: Deno.FsFile | undefined;
  let left = length;
  const close = () => {
    file?.close();
    file = undefined;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (left <= 0) {
          close();
          controller.close();
          return;
        }
        if (!file) {
          file = await Deno.open(path, { read: true });
          await file.seek(offset, Deno.SeekMode.Start);
        }
        const chunk = new Uint8Array(Math.min(CHUNK, left));
        const read = await file.read(chunk);
        if (read === null) throw new Error(`${path} ended early`);
        left -= read;
        controller.enqueue(chunk.subarray(0, read));
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    cancel: close,
  });
}

export function encodeCursor(after: string, skipPrefix?: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(skipPrefix === undefined ? [after] : [after, skipPrefix]))));
}

export function decodeCursor(cursor: string): { after: string; skipPrefix?: string } {
  try {
    const [after, skipPrefix] = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(cursor), (c) => c.charCodeAt(0)))) as [
      string,
      string?,
    ];
    if (typeof after !== 'string') throw new Error();
    return { after, skipPrefix };
  } catch {
    throw new R2Error('list', 'The cursor is invalid', 10022);
  }
}

/** Keys compare as R2 orders them: by their UTF-8 bytes. */
export function compareKeys(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
