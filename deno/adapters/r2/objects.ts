// The objects a bucket's calls answer with: R2Object (metadata) and R2ObjectBody (with the bytes).

import type { R2Checksums, R2HTTPMetadata, R2Range, Stored } from './types.ts';

export const MAX_KEY_BYTES = 1024;
export const MAX_LIST = 1000;
export const CHUNK = 64 * 1024;

export class R2Error extends Error {
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

export function toHex(value: ArrayBuffer | ArrayBufferView | string): string {
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
