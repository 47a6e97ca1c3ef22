// The Workers Cache API (`caches.default`, `caches.open`) over Deno's own `caches`. Deno's keeps
// what it is given for as long as it is asked to and has no `default`; this adds what a Worker's
// cache does on top: what may be kept and for how long (Cloudflare's reading of the response's
// headers), `cf-cache-status: HIT`, and a `default` cache. Each entry carries its expiry in one
// extra header, removed again on the way out.

/** Deno's CacheStorage (captured before `installCaches` replaces the global). */
type WebCacheStorage = typeof globalThis.caches;
type WebCache = Awaited<ReturnType<WebCacheStorage['open']>>;
const denoCaches: WebCacheStorage = globalThis.caches;

/** The stored copy's expiry (ms since the epoch). */
const EXPIRES = 'x-deno-host-cache-expires';

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
  readonly #store: Promise<WebCache>;
  readonly #now: () => number;

  constructor(store: Promise<WebCache>, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Stores a response to a GET request while its headers let a shared cache keep it. */
  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET') throw new TypeError('Cannot cache response to non-GET request.');
    if (response.status === 206) throw new TypeError('Cannot cache response to a range request (206 Partial Content).');
    if (response.headers.get('vary')?.includes('*')) throw new TypeError("Cannot cache response with 'Vary: *' header.");
    if (response.bodyUsed) throw new TypeError('Response body is already used');
    const now = this.#now();
    const ttl = freshness(response.headers, now);
    const store = await this.#store;
    // Like Cloudflare, a response with Set-Cookie is not kept (unless the cache is told it is private to it).
    if (ttl <= 0 || response.headers.has('set-cookie')) {
      await response.body?.cancel();
      await store.delete(req.url);
      return;
    }
    const headers = new Headers(response.headers);
    headers.set(EXPIRES, String(now + ttl));
    await store.put(req.url, new Response(response.body, { status: response.status, statusText: response.statusText, headers }));
  }

  /** The stored response, with `CF-Cache-Status: HIT`; undefined when missing or stale. */
  async match(request: RequestInfo | URL, options: CacheQueryOptions = {}): Promise<Response | undefined> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET' && !options.ignoreMethod) return undefined;
    const store = await this.#store;
    const stored = await store.match(req.url);
    if (!stored) return undefined;
    if (Number(stored.headers.get(EXPIRES)) <= this.#now()) {
      await stored.body?.cancel();
      await store.delete(req.url);
      return undefined;
    }
    const headers = new Headers(stored.headers);
    headers.delete(EXPIRES);
    headers.set('cf-cache-status', 'HIT');
    return new Response(stored.body, { status: stored.status, statusText: stored.statusText, headers });
  }

  /** True when a fresh entry was removed. */
  async delete(request: RequestInfo | URL, options: CacheQueryOptions = {}): Promise<boolean> {
    const req = request instanceof Request ? request : new Request(request);
    if (req.method !== 'GET' && !options.ignoreMethod) return false;
    const store = await this.#store;
    const stored = await store.match(req.url);
    await stored?.body?.cancel();
    const removed = await store.delete(req.url);
    return removed && stored !== undefined && Number(stored.headers.get(EXPIRES)) > this.#now();
  }
}

export interface CacheStorageOptions {
  /** Where entries live: Deno's `caches` unless given. */
  storage?: WebCacheStorage;
  /** Put before each cache's name in that storage, so two hosts (state directories) keep apart. */
  prefix?: string;
  now?: () => number;
}

export class CacheStorage {
  readonly default: Cache;
  readonly #named = new Map<string, Cache>();
  readonly #storage: WebCacheStorage;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(options: CacheStorageOptions = {}) {
    this.#storage = options.storage ?? denoCaches;
    this.#prefix = options.prefix ?? '';
    this.#now = options.now ?? Date.now;
    this.default = this.#cache('default');
  }

  #cache(name: string): Cache {
    return new Cache(this.#storage.open(`${this.#prefix}${name}`), this.#now);
  }

  // deno-lint-ignore require-await
  async open(cacheName: string): Promise<Cache> {
    let cache = this.#named.get(cacheName);
    if (!cache) {
      // A named cache is apart from the default one even when it is called "default".
      cache = this.#cache(`named:${cacheName}`);
      this.#named.set(cacheName, cache);
    }
    return cache;
  }

  /** Removes every cache this storage made in the backing storage. */
  async clear(): Promise<void> {
    await this.#storage.delete(`${this.#prefix}default`);
    for (const name of this.#named.keys()) await this.#storage.delete(`${this.#prefix}named:${name}`);
  }
}

/** Replaces the global `caches` with the Workers form, as Workers code reads it (`caches.default`). */
export function installCaches(storage: CacheStorage = new CacheStorage()): CacheStorage {
  Object.defineProperty(globalThis, 'caches', { value: storage, configurable: true, writable: true, enumerable: true });
  return storage;
}
