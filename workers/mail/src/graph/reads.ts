import type { GraphRequest, GraphResult } from './transport.ts';

/** Cached answers kept per mailbox, at most. */
const READ_CACHE_ENTRIES = 64;
/** Characters (JSON) or bytes kept in the cache per mailbox, at most; a larger answer is not kept. */
const READ_CACHE_BYTES = 4 * 1024 * 1024;
/** No cached answer is served older than this, whatever a request accepts. */
const READ_CACHE_MAX_AGE_MS = 30_000;

type Answer = Extract<GraphResult, { ok: true }>;

/** Times a caller asks again after a shared call that ended throttled (each within its own retries and deadline). */
const MAX_ASKS_AGAIN = 4;

interface Flight {
  generation: number;
  answer: Promise<GraphResult>;
}

/** The call's answer, and whether this caller started the call (false: it joined one in flight). */
interface Read {
  result: GraphResult;
  led: boolean;
}

interface Entry {
  at: number;
  result: Answer;
  size: number;
}

/**
 * The mailbox's reads, shared (one per mailbox, in its Durable Object, in front of its Graph slots):
 *
 * - single flight: a GET that is already in flight for the mailbox (same path, same kind of
 *   answer) is not sent again; every caller gets the one answer. A read joins only a flight of a
 *   read (never waits behind a background call); background work joins either.
 * - a short-lived cache: a successful JSON answer is kept, and a later GET that accepts an answer
 *   of that age (`maxAgeMs`) gets it without a Graph call. Bounded in entries and size.
 * - invalidation: every write of the mailbox (any method but GET) and every change notification
 *   drops the cache and detaches the flights in progress, before the write and again after it,
 *   so no answer read before or during a change is served after it.
 * - its own retries: a caller that joined a call in flight is owed what it would have had alone.
 *   When the shared call ends throttled (429/503 past its retries or its deadline), a caller that
 *   joined after some of its throttled answers asks again (leading or joining the next call), with
 *   the retries it has left and the deadline counted from its own arrival; the mailbox's pause for
 *   Retry-After (see Semaphore) holds that call until Graph's wait is over.
 *
 * Every caller gets its own copy of a shared answer (structured clone), so none can change another's.
 */
export class SharedReads {
  private generation = 0;
  private readonly flights = new Map<string, Flight>();
  private readonly cache = new Map<string, Entry>();
  private bytes = 0;
  /** Graph calls saved: answers given from a flight in progress, and from the cache (for the tests and the traces). */
  readonly saved = { joined: 0, cached: 0 };

  constructor(private readonly now: () => number = Date.now) {}

  /** Drops every cached answer; flights in progress finish for their callers but are neither joined nor kept. */
  invalidate(): void {
    this.generation++;
    this.flights.clear();
    this.cache.clear();
    this.bytes = 0;
  }

  /** Cached answers now (for the tests). */
  get size(): number {
    return this.cache.size;
  }

  async send(request: GraphRequest, call: (request: GraphRequest) => Promise<GraphResult>): Promise<GraphResult> {
    if (request.method !== 'GET') {
      this.invalidate();
      try {
        return await call(request);
      } finally {
        this.invalidate();
      }
    }
    const arrivedAt = Date.now();
    let own: Pick<GraphRequest, 'since' | 'retriesUsed'> = {};
    /** Throttled answers this caller has had (its first answer, then its retries). */
    let answers = 0;
    for (let asks = 0; ; asks++) {
      const { result, led } = await this.read(request, call, own);
      const throttled = result.ok ? undefined : result.throttled;
      if (led || !throttled || asks >= MAX_ASKS_AGAIN) return structuredClone(result);
      // A call it joined ended throttled: what this caller would have had alone is the retries
      // its own answers have not used, until its own deadline.
      answers += throttled.at.filter((at) => at >= arrivedAt).length;
      const retriesUsed = Math.max(0, answers - 1);
      const deadlineAt = arrivedAt + (throttled.deadlineAt - throttled.since);
      if (retriesUsed >= throttled.maxRetries || Date.now() >= deadlineAt) return structuredClone(result);
      own = { since: arrivedAt, retriesUsed };
    }
  }

  /** One read: from the cache, from a call in flight, or a new call. */
  private async read(
    request: GraphRequest,
    call: (request: GraphRequest) => Promise<GraphResult>,
    own: Pick<GraphRequest, 'since' | 'retriesUsed'>,
  ): Promise<Read> {
    const key = `${request.accept ?? 'json'} ${request.path}`;
    const maxAge = Math.min(request.maxAgeMs ?? 0, READ_CACHE_MAX_AGE_MS);
    if (maxAge > 0) {
      const entry = this.cache.get(key);
      if (entry && this.now() - entry.at <= maxAge) {
        this.saved.cached++;
        return { result: entry.result, led: false };
      }
    }
    const background = request.priority === 'background';
    const joined = this.flights.get(`read ${key}`) ?? (background ? this.flights.get(`background ${key}`) : undefined);
    if (joined) {
      this.saved.joined++;
      return { result: await joined.answer, led: false };
    }
    const flightKey = `${background ? 'background' : 'read'} ${key}`;
    const flight: Flight = { generation: this.generation, answer: call({ ...request, ...own }) };
    this.flights.set(flightKey, flight);
    let result: GraphResult;
    try {
      result = await flight.answer;
    } finally {
      if (this.flights.get(flightKey) === flight) this.flights.delete(flightKey);
    }
    if (result.ok && maxAge > 0 && request.accept !== 'bytes' && flight.generation === this.generation) this.keep(key, result);
    return { result, led: true };
  }

  private keep(key: string, result: Answer): void {
    const size = result.size ?? 0;
    if (size > READ_CACHE_BYTES / 4) return;
    const previous = this.cache.get(key);
    if (previous) {
      this.cache.delete(key);
      this.bytes -= previous.size;
    }
    // oldest first (a Map keeps insertion order)
    for (const [oldest, entry] of this.cache) {
      if (this.cache.size < READ_CACHE_ENTRIES && this.bytes + size <= READ_CACHE_BYTES) break;
      this.cache.delete(oldest);
      this.bytes -= entry.size;
    }
    this.cache.set(key, { at: this.now(), result, size });
    this.bytes += size;
  }
}
