// The Workers Cache API (`caches.default`, `caches.open`) in memory. Deno's own `caches` works
// offline but keeps entries past their max-age and has no `default`, so it is not used.

interface Entry {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
  expires: number;
}

export interface CacheQueryOptions {
  ignoreMethod?: boolean;
}

/**
 * How long a shared cache may keep a response, in ms (0: not at all), from `s-maxage`, `max-age`
 * or `Expires`, as Cloudflare reads them for cache.put.
 */
function freshness(headers: Headers, now: number): number {
  const control = (headers.get('cache-control') ?? '').toLowerCase();
  const directives = new Map<string, string | undefined>();
  for (const part of control.split(',')) {
    const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (name) directives.set(name, value?.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('private') || directives.has('no-cache')) return 0;
  for (const name of ['s-maxage', 'max-age']) {
    const value = directives.get(name);
    if (value !== undefined && /^\d+$/.test(value)) return Number(value) * 1000;
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, at - now);
  }
  return 0;
}

export class Cache {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Stores a response to a GET request while its headers let a shared cache keep it. */
  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET') throw new TypeError('Cannot cache response to non-GET request.');
    if (response.status === 206) throw new TypeError('Cannot cache response to a range request (206 Partial Content).');
    if (response.headers.get('vary')?.includes('*')) throw new TypeError("Cannot cache response with 'Vary: *' header.");
    if (response.bodyUsed) throw new TypeError('Response body is already used');
    const body = new Uint8Array(await response.arrayBuffer());
    const now = this.#now();
    const ttl = freshness(response.headers, now);
    // Like Cloudflare, a response with Set-Cookie is not kept (unless the cache is told it is private to it).
    if (ttl <= 0 || response.headers.has('set-cookie')) {
      this.#entries.delete(req.url);
      return;
    }
    this.#entries.set(req.url, { status: response.status, statusText: response.statusText, headers: [...response.headers], body, expires: now + ttl });
  }

  /** A fresh copy of the stored response, with `CF-Cache-Status: HIT`; undefined when missing or stale. */
  // deno-lint-ignore require-await
  async match(request: RequestInfo | URL, options: CacheQueryOptions = {}): Promise<Response | undefined> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET' && !options.ignoreMethod) return undefined;
    const entry = this.#entries.get(req.url);
    if (!entry) return undefined;
    if (entry.expires <= this.#now()) {
      this.#entries.delete(req.url);
      return undefined;
    }
    const headers = new Headers(entry.headers);
    headers.set('cf-cache-status', 'HIT');
    return new Response(entry.body.slice(), { status: entry.status, statusText: entry.statusText, headers });
  }

  /** True when an entry was removed. */
  // deno-lint-ignore require-await
  async delete(request: RequestInfo | URL, options: CacheQueryOptions = {}): Promise<boolean> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET' && !options.ignoreMethod) return false;
    const entry = this.#entries.get(req.url);
    this.#entries.delete(req.url);
    return entry !== undefined && entry.expires > this.#now();
  }
}

export class CacheStorage {
  readonly default: Cache;
  readonly #named = new Map<string, Cache>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.default = new Cache(now);
  }

  // deno-lint-ignore require-await
  async open(cacheName: string): Promise<Cache> {
    let cache = this.#named.get(cacheName);
    if (!cache) {
      cache = new Cache(this.#now);
      this.#named.set(cacheName, cache);
    }
    return cache;
  }
}

/** Replaces the global `caches` with the Workers form, as Workers code reads it (`caches.default`). */
export function installCaches(storage: CacheStorage = new CacheStorage()): CacheStorage {
  Object.defineProperty(globalThis, 'caches', { value: storage, configurable: true, writable: true, enumerable: true });
  return storage;
}
