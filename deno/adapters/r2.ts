// R2Bucket over the file system: one directory per bucket, each object's bytes in a data file
// and its metadata in a JSON sidecar, both named by the SHA-256 of the key (see README.md).
import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';

export interface R2HTTPMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  cacheExpiry?: Date;
}
export type R2Range = { offset: number; length?: number } | { offset?: number; length: number } | { suffix: number };
export interface R2Conditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
  uploadedBefore?: Date;
  uploadedAfter?: Date;
  secondsGranularity?: boolean;
}
export interface R2GetOptions {
  onlyIf?: R2Conditional | Headers;
  range?: R2Range | Headers;
}
type ChecksumName = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
export type R2PutOptions = {
  onlyIf?: R2Conditional | Headers;
  httpMetadata?: R2HTTPMetadata | Headers;
  customMetadata?: Record<string, string>;
  storageClass?: string;
} & { [K in ChecksumName]?: ArrayBuffer | ArrayBufferView | string };
export interface R2ListOptions {
  limit?: number;
  prefix?: string;
  cursor?: string;
  delimiter?: string;
  startAfter?: string;
  /** Which metadata listed objects carry (none unless asked, as on R2). */
  include?: ('httpMetadata' | 'customMetadata')[];
}
export type R2Objects = { objects: R2Object[]; delimitedPrefixes: string[] } & ({ truncated: true; cursor: string } | { truncated: false });
export type R2StringChecksums = { [K in ChecksumName]?: string };
export type R2Checksums = { readonly [K in ChecksumName]?: ArrayBuffer } & { toJSON(): R2StringChecksums };
export type R2PutValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | null | Blob;

/** What the sidecar holds. */
interface Stored {
  key: string;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  httpMetadata: Omit<R2HTTPMetadata, 'cacheExpiry'> & { cacheExpiry?: number };
  customMetadata: Record<string, string>;
  checksums: R2StringChecksums;
  storageClass: string;
  data: string;
}

const MAX_KEY_BYTES = 1024;
const MAX_LIST = 1000;
const CHUNK = 64 * 1024;

class R2Error extends Error {
  constructor(operation: string, message: string, code: number) {
    super(`${operation}: ${message} (${code})`);
    this.name = 'R2Error';
  }
}

function hexToBuffer(hex: string): ArrayBuffer {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes.buffer;
}

function toHex(value: ArrayBuffer | ArrayBufferView | string): string {
  if (typeof value === 'string') return value.toLowerCase();
  const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class R2Object {
  readonly key: string;
  readonly version: string;
  readonly size: number;
  readonly etag: string;
  readonly httpEtag: string;
  readonly checksums: R2Checksums;
  readonly uploaded: Date;
  readonly httpMetadata?: R2HTTPMetadata;
  readonly customMetadata?: Record<string, string>;
  readonly range?: R2Range;
  readonly storageClass: string;

  constructor(
    stored: Stored,
    range?: { offset: number; length: number },
    include: { http: boolean; custom: boolean } = { http: true, custom: true },
  ) {
    this.key = stored.key;
    this.version = stored.version;
    this.size = stored.size;
    this.etag = stored.etag;
    this.httpEtag = `"${stored.etag}"`;
    this.uploaded = new Date(stored.uploaded);
    const { cacheExpiry, ...http } = stored.httpMetadata;
    if (include.http) this.httpMetadata = { ...http, ...(cacheExpiry === undefined ? {} : { cacheExpiry: new Date(cacheExpiry) }) };
    if (include.custom) this.customMetadata = { ...stored.customMetadata };
    if (range) this.range = range;
    this.storageClass = stored.storageClass;
    const strings = { ...stored.checksums };
    const checksums: Record<string, unknown> = { toJSON: () => ({ ...strings }) };
    for (const [name, hex] of Object.entries(strings)) checksums[name] = hexToBuffer(hex!);
    this.checksums = checksums as R2Checksums;
  }

  writeHttpMetadata(headers: Headers): void {
    const m = this.httpMetadata;
    if (!m) return;
    if (m.contentType !== undefined) headers.set('content-type', m.contentType);
    if (m.contentLanguage !== undefined) headers.set('content-language', m.contentLanguage);
    if (m.contentDisposition !== undefined) headers.set('content-disposition', m.contentDisposition);
    if (m.contentEncoding !== undefined) headers.set('content-encoding', m.contentEncoding);
    if (m.cacheControl !== undefined) headers.set('cache-control', m.cacheControl);
    if (m.cacheExpiry !== undefined) headers.set('expires', m.cacheExpiry.toUTCString());
  }
}

export class R2ObjectBody extends R2Object {
  readonly #body: ReadableStream<Uint8Array>;

  constructor(stored: Stored, body: ReadableStream<Uint8Array>, range: { offset: number; length: number }) {
    super(stored, range);
    this.#body = body;
  }

  get body(): ReadableStream<Uint8Array> {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#used || this.#body.locked;
  }

  #used = false;

  #consume(): Response {
    if (this.#used || this.#body.locked) throw new TypeError('Body has already been used. It can only be used once.');
    this.#used = true;
    return new Response(this.#body);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return await this.#consume().arrayBuffer();
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.#consume().arrayBuffer());
  }

  async text(): Promise<string> {
    return await this.#consume().text();
  }

  async json<T>(): Promise<T> {
    return (await this.#consume().json()) as T;
  }

  async blob(): Promise<Blob> {
    return await this.#consume().blob();
  }
}

/** HTTP metadata from R2's object form or from headers (the put option accepts both). */
function httpMetadataOf(source: R2HTTPMetadata | Headers | undefined): Stored['httpMetadata'] {
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
function conditionalOf(source: R2Conditional | Headers): R2Conditional {
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
function holds(condition: R2Conditional, stored: Stored | undefined): boolean {
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
function resolveRange(range: R2Range | Headers | undefined, size: number): { offset: number; length: number } {
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

function fileStream(path: string, offset: number, length: number): ReadableStream<Uint8Array> {
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

function encodeCursor(after: string, skipPrefix?: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(skipPrefix === undefined ? [after] : [after, skipPrefix]))));
}

function decodeCursor(cursor: string): { after: string; skipPrefix?: string } {
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
function compareKeys(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export class R2Bucket {
  readonly #dir: string;
  readonly #locks = new Map<string, Promise<unknown>>();

  /** `dir` is the bucket's directory, created if missing. */
  constructor(dir: string) {
    this.#dir = dir;
    Deno.mkdirSync(dir, { recursive: true });
  }

  async head(key: string): Promise<R2Object | null> {
    const stored = await this.#read(this.#name(key, 'head'));
    return stored ? new R2Object(stored) : null;
  }

  get(key: string, options: R2GetOptions & { onlyIf: R2Conditional | Headers }): Promise<R2ObjectBody | R2Object | null>;
  get(key: string, options?: R2GetOptions): Promise<R2ObjectBody | null>;
  async get(key: string, options: R2GetOptions = {}): Promise<R2ObjectBody | R2Object | null> {
    const stored = await this.#read(this.#name(key, 'get'));
    if (!stored) return null;
    if (options.onlyIf && !holds(conditionalOf(options.onlyIf), stored)) return new R2Object(stored);
    const range = resolveRange(options.range, stored.size);
    return new R2ObjectBody(stored, fileStream(join(this.#dir, stored.data), range.offset, range.length), range);
  }

  put(key: string, value: R2PutValue, options: R2PutOptions & { onlyIf: R2Conditional | Headers }): Promise<R2Object | null>;
  put(key: string, value: R2PutValue, options?: R2PutOptions): Promise<R2Object>;
  async put(key: string, value: R2PutValue, options: R2PutOptions = {}): Promise<R2Object | null> {
    const name = this.#name(key, 'put');
    return await this.#serialised(name, async () => {
      if (options.onlyIf && !holds(conditionalOf(options.onlyIf), await this.#read(name))) {
        // the body is not stored, but a stream is still drained as R2 would read it
        if (value instanceof ReadableStream) await value.cancel();
        return null;
      }
      const version = crypto.randomUUID().replaceAll('-', '');
      const data = `${name}.${version}.data`;
      const asked = (['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const).filter((n) => options[n] !== undefined);
      const hashes = new Map<ChecksumName, Hash>([
        ['md5', createHash('md5')],
        ...asked.filter((n) => n !== 'md5').map((n) => [n, createHash(n)] as [ChecksumName, Hash]),
      ]);
      let size = 0;
      const file = await Deno.open(join(this.#dir, data), { write: true, createNew: true });
      try {
        for await (const chunk of chunksOf(value)) {
          for (const hash of hashes.values()) hash.update(chunk);
          size += chunk.byteLength;
          let written = 0;
          while (written < chunk.byteLength) written += await file.write(chunk.subarray(written));
        }
      } catch (error) {
        file.close();
        await Deno.remove(join(this.#dir, data)).catch(() => {});
        throw error;
      }
      file.close();
      const checksums: R2StringChecksums = {};
      for (const [n, hash] of hashes) checksums[n] = hash.digest('hex');
      for (const n of asked) {
        if (toHex(options[n]!) !== checksums[n]) {
          await Deno.remove(join(this.#dir, data)).catch(() => {});
          throw new R2Error('put', `The ${n.toUpperCase()} checksum you specified did not match what we received.`, 10037);
        }
      }
      const stored: Stored = {
        key,
        version,
        size,
        etag: checksums.md5!,
        uploaded: Date.now(),
        httpMetadata: httpMetadataOf(options.httpMetadata),
        customMetadata: { ...options.customMetadata },
        checksums: Object.fromEntries(Object.entries(checksums).filter(([n]) => n === 'md5' || asked.includes(n as ChecksumName))),
        storageClass: options.storageClass ?? 'Standard',
        data,
      };
      const previous = await this.#read(name);
      await this.#writeSidecar(name, stored);
      if (previous) await Deno.remove(join(this.#dir, previous.data)).catch(() => {});
      return new R2Object(stored);
    });
  }

  async delete(keys: string | string[]): Promise<void> {
    for (const key of Array.isArray(keys) ? keys : [keys]) {
      const name = this.#name(key, 'delete');
      await this.#serialised(name, async () => {
        const stored = await this.#read(name);
        if (!stored) return;
        await Deno.remove(join(this.#dir, `${name}.json`));
        await Deno.remove(join(this.#dir, stored.data)).catch(() => {});
      });
    }
  }

  /** Reads every sidecar of the bucket: listing costs one read per object (fine at this project's sizes). */
  async list(options: R2ListOptions = {}): Promise<R2Objects> {
    const limit = options.limit ?? MAX_LIST;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
      throw new R2Error('list', `MaxKeys params must be positive integer <= ${MAX_LIST}.`, 10022);
    const prefix = options.prefix ?? '';
    const include = {
      http: options.include?.includes('httpMetadata') ?? false,
      custom: options.include?.includes('customMetadata') ?? false,
    };
    const cursor = options.cursor ? decodeCursor(options.cursor) : undefined;
    const all: Stored[] = [];
    for await (const entry of Deno.readDir(this.#dir)) {
      if (!entry.isFile || !entry.name.endsWith('.json')) continue;
      const stored = await this.#read(entry.name.slice(0, -'.json'.length));
      if (stored && stored.key.startsWith(prefix)) all.push(stored);
    }
    all.sort((a, b) => compareKeys(a.key, b.key));
    const objects: R2Object[] = [];
    const delimitedPrefixes: string[] = [];
    let last: { after: string; skipPrefix?: string } | undefined;
    let truncated = false;
    for (const stored of all) {
      if (
        cursor &&
        (compareKeys(stored.key, cursor.after) <= 0 || (cursor.skipPrefix !== undefined && stored.key.startsWith(cursor.skipPrefix)))
      )
        continue;
      if (options.startAfter !== undefined && compareKeys(stored.key, options.startAfter) <= 0) continue;
      const cut = options.delimiter ? stored.key.indexOf(options.delimiter, prefix.length) : -1;
      const group = cut >= 0 ? stored.key.slice(0, cut + options.delimiter!.length) : undefined;
      if (group !== undefined && last?.skipPrefix === group) continue;
      if (objects.length + delimitedPrefixes.length === limit) {
        truncated = true;
        break;
      }
      if (group !== undefined) {
        delimitedPrefixes.push(group);
        last = { after: stored.key, skipPrefix: group };
      } else {
        objects.push(new R2Object(stored, undefined, include));
        last = { after: stored.key };
      }
    }
    return truncated && last
      ? { objects, delimitedPrefixes, truncated: true, cursor: encodeCursor(last.after, last.skipPrefix) }
      : { objects, delimitedPrefixes, truncated: false };
  }

  /** The file stem of a key: a hash, so no key reaches outside the bucket's directory. */
  #name(key: string, operation: string): string {
    if (typeof key !== 'string') throw new TypeError(`${operation}: the key must be a string`);
    if (new TextEncoder().encode(key).length > MAX_KEY_BYTES)
      throw new R2Error(operation, 'The specified object name is not valid.', 10020);
    return createHash('sha256').update(key).digest('hex');
  }

  async #read(name: string): Promise<Stored | undefined> {
    try {
      return JSON.parse(await Deno.readTextFile(join(this.#dir, `${name}.json`))) as Stored;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  }

  /** Replaces the sidecar atomically (write, then rename). */
  async #writeSidecar(name: string, stored: Stored): Promise<void> {
    const temp = join(this.#dir, `.${name}.${stored.version}.tmp`);
    await Deno.writeTextFile(temp, JSON.stringify(stored));
    await Deno.rename(temp, join(this.#dir, `${name}.json`));
  }

  /** One write at a time per key within this process. */
  #serialised<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(name) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.#locks.set(name, settled);
    void settled.then(() => {
      if (this.#locks.get(name) === settled) this.#locks.delete(name);
    });
    return next;
  }
}

async function* chunksOf(value: R2PutValue): AsyncGenerator<Uint8Array> {
  if (value === null) return;
  if (typeof value === 'string') yield new TextEncoder().encode(value);
  else if (value instanceof ArrayBuffer) yield new Uint8Array(value);
  else if (ArrayBuffer.isView(value)) yield new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof Blob) yield* chunksOf(value.stream());
  else {
    for await (const chunk of value as ReadableStream<unknown>) {
      if (chunk instanceof Uint8Array) yield chunk;
      else if (chunk instanceof ArrayBuffer) yield new Uint8Array(chunk);
      else if (ArrayBuffer.isView(chunk)) yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      else throw new TypeError('put: a stream must yield bytes');
    }
  }
}
