// Data cache on the Workers Cache API (shared by every isolate of a location). Only query
// results go in, never HTML or anything tied to a session. Each kind of data has its own time
// to live (the spec's timeouts) and its own version, which is part of every key: bump a kind's
// version when its query or shape changes and the old entries are simply never read again.

export const CACHE_KINDS = {
  /**
   * Full runner page data (horse, runs, trials, toolbar). Its entry also holds the horse's sales
   * (kind `sales`), each part with its own expiry (see getParts).
   */
  runner_page: { ttlSeconds: 120, version: 2 },
  sales: { ttlSeconds: 600, version: 1 },
  dates: { ttlSeconds: 300, version: 1 },
  meetings: { ttlSeconds: 300, version: 1 },
  races: { ttlSeconds: 300, version: 1 },
  runners: { ttlSeconds: 300, version: 1 },
  search: { ttlSeconds: 180, version: 1 },
  /** Form guide meetings and races by date and country. */
  guide: { ttlSeconds: 120, version: 1 },
  date_strip: { ttlSeconds: 300, version: 1 },
  /** The spec leaves this one open; the date strip's timeout fits data that changes as seldom. */
  countries: { ttlSeconds: 300, version: 1 },
  /** Not in the spec: jockey and trainer pages, as fresh as the runner page. */
  person_page: { ttlSeconds: 120, version: 1 },
  /** Not in the spec: the landing page's horse when none is configured. */
  default_horse: { ttlSeconds: 300, version: 1 },
} as const satisfies Record<string, CacheKindSettings>;

export interface CacheKindSettings {
  ttlSeconds: number;
  version: number;
}

export type CacheKind = keyof typeof CACHE_KINDS;

export interface CacheRequest<T> {
  kind: CacheKind;
  parts: CacheKeyParts;
  load: () => Promise<T>;
  /** The answer when `load` fails; never cached. Without it the failure propagates. */
  onError?: (err: unknown) => T;
}

type ValueOf<R> = R extends CacheRequest<infer T> ? T : never;

/** A part as its loader answers it: `store: false` for a fallback, shown but never cached. */
export interface LoadedPart<T> {
  value: T;
  store: boolean;
}
export type LoadedParts<P> = { [K in keyof P]?: LoadedPart<P[K]> };

/** One entry holding several parts of a page (see getParts). */
export interface PartsRequest<P extends object> {
  /** The entry's kind: its version and key. */
  kind: CacheKind;
  parts: CacheKeyParts;
  /** The kind of each part: its time to live, its version (part of the key) and its outcome's name. */
  partKinds: { [K in keyof P]: CacheKind };
  /** Loads the parts named (those missing or expired; at least one), all at once. */
  load: (missing: (keyof P & string)[]) => Promise<LoadedParts<P>>;
}

type StoredParts = Record<string, { value: unknown; expires: number }>;

/** The parts of a stored entry that carry an expiry (an entry of another shape has none). */
function storedParts(value: unknown): StoredParts {
  const parts: unknown = typeof value === 'object' && value !== null ? Reflect.get(value, 'parts') : undefined;
  const found: StoredParts = {};
  if (typeof parts !== 'object' || parts === null) return found;
  for (const [name, part] of Object.entries(parts)) {
    const expires: unknown = typeof part === 'object' && part !== null ? Reflect.get(part, 'expires') : undefined;
    if (typeof expires === 'number') found[name] = { value: Reflect.get(part, 'value'), expires };
  }
  return found;
}
export type CacheKeyParts = Record<string, string | number | undefined>;

export interface DataCacheOptions {
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  now?: () => number;
  /** Runs a write after the response (ctx.waitUntil in a Worker). */
  defer?: (work: Promise<unknown>) => void;
  kinds?: Record<CacheKind, CacheKindSettings>;
  /** Origin the synthetic keys are made under. */
  origin?: string;
}

const EXPIRES_HEADER = 'X-Form-Cache-Expires';

export class DataCache {
  readonly outcomes: string[] = [];
  private readonly now: () => number;
  private readonly defer: (work: Promise<unknown>) => void;
  private readonly kinds: Record<CacheKind, CacheKindSettings>;
  private readonly origin: string;

  constructor(
    private readonly cache: Cache,
    options: DataCacheOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.defer = options.defer ?? ((work) => void work.catch(() => {}));
    this.kinds = options.kinds ?? CACHE_KINDS;
    this.origin = options.origin ?? 'https://form-data.cache.internal';
  }

  key(kind: CacheKind, parts: CacheKeyParts): string {
    const params = Object.entries(parts)
      .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
      .join('&');
    return `${this.origin}/__form-data/${kind}/v${this.kinds[kind].version}?${params}`;
  }

  /** The cached value of `kind` for `parts`, or `load()`'s result, stored for the kind's time to live. */
  async get<T>(kind: CacheKind, parts: CacheKeyParts, load: () => Promise<T>): Promise<T> {
    const [value] = await this.getAll([{ kind, parts, load }] as const);
    return value;
  }

  /**
   * Several entries for one page: all looked up at once, then the misses loaded at once (each is its
   * own one-shot HTTP read, so they overlap instead of queueing). A failed load with `onError`
   * answers its fallback, which is not cached.
   */
  async getAll<const R extends readonly CacheRequest<unknown>[]>(requests: R): Promise<{ -readonly [K in keyof R]: ValueOf<R[K]> }> {
    const keys = requests.map((r) => this.key(r.kind, r.parts));
    const cached = await Promise.all(keys.map((key) => this.read(key)));
    for (const [i, request] of requests.entries()) this.outcomes.push(`${request.kind}=${cached[i] ? 'hit' : 'miss'}`);
    const values = await Promise.all(
      requests.map(async (request, i) => {
        const hit = cached[i];
        if (hit) return hit.value;
        let value: unknown;
        try {
          value = await request.load();
        } catch (err) {
          if (!request.onError) throw err;
          return request.onError(err);
        }
        this.defer(this.write(keys[i]!, value, this.kinds[request.kind].ttlSeconds));
        return value;
      }),
    );
    return values as { -readonly [K in keyof R]: ValueOf<R[K]> };
  }

  /**
   * Several parts of one page in a single entry, each kept for its own kind's time to live: one
   * look-up per view and at most one write per miss, instead of one of each per kind (on the local
   * runtime every Cache API operation has a cost of its own, whatever its size). Only the parts
   * missing or expired are loaded, by one call of `load`; the outcome is reported per part.
   */
  async getParts<P extends object>(request: PartsRequest<P>): Promise<P> {
    const names = Object.keys(request.partKinds) as (keyof P & string)[];
    const versions = Object.fromEntries(names.map((name) => [`v_${name}`, this.kinds[request.partKinds[name]].version]));
    const key = this.key(request.kind, { ...request.parts, ...versions });
    const stored = storedParts((await this.read(key))?.value);
    const now = this.now();
    const kept: StoredParts = {};
    for (const name of names) {
      const part = stored[name];
      if (part && part.expires > now) kept[name] = part;
      this.outcomes.push(`${request.partKinds[name]}=${kept[name] ? 'hit' : 'miss'}`);
    }
    const missing = names.filter((name) => !kept[name]);
    const loaded: LoadedParts<P> = missing.length > 0 ? await request.load(missing) : {};
    const values: Record<string, unknown> = {};
    let changed = false;
    for (const name of names) {
      const part = kept[name] ?? loaded[name];
      if (!part) throw new Error(`the ${request.kind} entry's loader did not answer its part ${name}`);
      values[name] = part.value;
      if (!kept[name] && loaded[name]?.store) {
        kept[name] = { value: part.value, expires: this.now() + this.kinds[request.partKinds[name]].ttlSeconds * 1000 };
        changed = true;
      }
    }
    if (changed) {
      const expires = Math.max(...Object.values(kept).map((part) => part.expires));
      this.defer(this.write(key, { parts: kept }, Math.max(1, Math.ceil((expires - this.now()) / 1000)), expires));
    }
    return values as P;
  }

  private async read(key: string): Promise<{ value: unknown } | undefined> {
    const response = await this.cache.match(key);
    if (!response) return undefined;
    const expires = Number(response.headers.get(EXPIRES_HEADER));
    // The edge honours max-age loosely; the stored expiry is the rule.
    if (!Number.isFinite(expires) || expires <= this.now()) {
      await response.body?.cancel();
      this.defer(this.cache.delete(key));
      return undefined;
    }
    const body = await response.json<{ value: unknown }>();
    return { value: body.value };
  }

  private async write(key: string, value: unknown, ttlSeconds: number, expires = this.now() + ttlSeconds * 1000): Promise<void> {
    const response = new Response(JSON.stringify({ value }), {
      headers: {
        'Content-Type': 'application/json',
        'Cache-Control': `public, max-age=${ttlSeconds}`,
        [EXPIRES_HEADER]: String(expires),
      },
    });
    await this.cache.put(key, response);
  }
}
