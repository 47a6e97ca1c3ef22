// R2Bucket over the file system: one directory per bucket, each object's bytes in a data file
// and its metadata in a JSON sidecar, both named by the SHA-256 of the key (see README.md).
// The bucket is here; its types, objects and options are in r2/.

import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';
import type {
  ChecksumName,
  R2Conditional,
  R2GetOptions,
  R2ListOptions,
  R2Objects,
  R2PutOptions,
  R2PutValue,
  R2StringChecksums,
  Stored,
} from './r2/types.ts';
import { MAX_KEY_BYTES, MAX_LIST, R2Error, R2Object, R2ObjectBody, toHex } from './r2/objects.ts';
import { compareKeys, conditionalOf, decodeCursor, encodeCursor, fileStream, holds, httpMetadataOf, resolveRange } from './r2/options.ts';

export { R2Object, R2ObjectBody } from './r2/objects.ts';

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
