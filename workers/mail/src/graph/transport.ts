import type { GraphSettings } from '../config.ts';

/**
 * One Graph call, as the mailbox Durable Object runs it for the Worker: the path is relative to
 * GRAPH_BASE_URL (query included), the answer comes back as data, never as an exception, so it
 * crosses the RPC boundary whole.
 */
export interface GraphRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** `bytes` for MIME content and attachments; JSON otherwise. */
  accept?: 'json' | 'bytes';
  /** `read` unless said otherwise (see Semaphore). */
  priority?: GraphPriority;
  /**
   * A GET may be answered from the mailbox's read cache when its answer is at most this old
   * (milliseconds; 0 or none: always from Graph). See SharedReads.
   */
  maxAgeMs?: number;
  /**
   * Set by the mailbox's shared reads when a caller that joined another's call asks again in its
   * own right (see SharedReads): when its time began (epoch ms; its deadline is
   * GRAPH_DEADLINE_MS from then, never later than now) and how many throttled answers it has had
   * already (they count against its GRAPH_MAX_RETRIES).
   */
  since?: number;
  retriesUsed?: number;
}

export type GraphFailureKind =
  /** No mailbox connected, or its refresh token was refused. */
  | 'not_connected'
  /** Graph answered 4xx for the request itself (not found, bad request, conflict). */
  | 'rejected'
  /** 429/503 still after the retries, 5xx, a timeout, or an answer that is not Graph's. */
  | 'unavailable'
  /** Not sent: too many reads of the mailbox wait for Graph's slots already (try again shortly). */
  | 'busy';

export type GraphResult =
  /** `size`: the answer's length in characters (JSON) or bytes. */
  | { ok: true; status: number; json?: unknown; bytes?: ArrayBuffer; contentType?: string; size?: number }
  | {
      ok: false;
      kind: GraphFailureKind;
      status: number;
      code: string;
      message: string;
      retryAfterSeconds?: number;
      /**
       * Throttled past the retries or the deadline: when each throttled answer came (epoch ms),
       * and when the call's time began and ran out, so that a caller who joined the call later
       * can tell what of its own retries and time it has left (SharedReads).
       */
      throttled?: Throttled;
    };

/** A call throttled past its retries or its deadline (see GraphResult). */
interface Throttled {
  /** When each throttled answer came (epoch ms). */
  at: number[];
  /** When the call's time began, and when its deadline fell (epoch ms). */
  since: number;
  deadlineAt: number;
  /** GRAPH_MAX_RETRIES. */
  maxRetries: number;
}

/**
 * Whose call it is: `read` (the default) for what a person waits for — a message, a thread, a
 * folder; `background` for the work nobody watches (new mail summarised and categorised, reply
 * drafts, re-categorisation, subscription renewals).
 */
export type GraphPriority = 'read' | 'background';

/** A read refused a slot: too many reads wait already, or it waited past its deadline. */
export class SlotsBusy extends Error {
  constructor(readonly reason: 'queue_full' | 'wait_timeout') {
    super(reason === 'queue_full' ? 'too many reads of the mailbox wait for Graph already' : 'no Graph slot came free in time');
    this.name = 'SlotsBusy';
  }
}

/** How long a caller waits for a slot, and how deep the queue of waiting reads may grow. */
interface SlotBounds {
  /** A read finding this many reads waiting already is refused at once (SlotsBusy). */
  maxWaitingReads?: number;
  /** Refused (SlotsBusy) when no slot came free within this many milliseconds. */
  waitMs?: number;
  /** A retry of a call admitted already: first in its queue, and not refused for the queue's depth. */
  retry?: boolean;
}

interface Waiter {
  start: () => void;
}

/**
 * The mailbox's Graph slots: at most `limit` calls in flight. A freed slot goes to the oldest
 * waiting read first, then to the oldest waiting background call, and background calls hold at
 * most `backgroundLimit` slots at once, so a read never queues behind background work: it waits
 * at most for the reads ahead of it. The wait is bounded (SlotBounds): a caller is refused rather
 * than left hanging behind a queue that cannot drain in time. Graph throttles per app and mailbox,
 * so its Retry-After holds for every call of the mailbox: `pause` hands out no slot until it has
 * passed (a call sent meanwhile would only be refused again and spend one of its retries).
 */
export class Semaphore {
  private active = 0;
  private activeBackground = 0;
  private readonly reads: Waiter[] = [];
  private readonly background: Waiter[] = [];
  private pausedUntil = 0;
  private resumeTimer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    private readonly limit: number,
    private readonly backgroundLimit = limit,
  ) {}

  /** In flight now, and waiting (for the tests and the traces). */
  get state() {
    return {
      active: this.active,
      activeBackground: this.activeBackground,
      waitingReads: this.reads.length,
      waitingBackground: this.background.length,
      pausedForMs: this.pausedForMs(),
    };
  }

  /** Milliseconds until the mailbox's calls may go to Graph again (0: now). */
  pausedForMs(now = Date.now()): number {
    return Math.max(0, this.pausedUntil - now);
  }

  /** No slot is handed out for `ms` from now (a longer pause in progress is kept). */
  pause(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.resumeAfter(ms);
  }

  private resumeAfter(ms: number): void {
    if (this.resumeTimer !== undefined) clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      // a timer may fire a little early by the clock
      const left = this.pausedForMs();
      if (left > 0) this.resumeAfter(left);
      else this.dispatch();
    }, ms);
  }

  acquire(priority: GraphPriority = 'read', bounds: SlotBounds = {}): Promise<() => void> {
    const isBackground = priority === 'background';
    const queue = isBackground ? this.background : this.reads;
    return new Promise((resolve, reject) => {
      if (
        !isBackground &&
        !bounds.retry &&
        bounds.maxWaitingReads !== undefined &&
        (this.active >= this.limit || this.pausedForMs() > 0) &&
        this.reads.length >= bounds.maxWaitingReads
      ) {
        reject(new SlotsBusy('queue_full'));
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      // the slot is counted as it is handed over, so no caller can slip in between
      const waiter: Waiter = {
        start: () => {
          if (timer !== undefined) clearTimeout(timer);
          this.active++;
          if (isBackground) this.activeBackground++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.active--;
            if (isBackground) this.activeBackground--;
            this.dispatch();
          });
        },
      };
      if (bounds.retry) queue.unshift(waiter);
      else queue.push(waiter);
      this.dispatch();
      if (queue.includes(waiter) && bounds.waitMs !== undefined) {
        timer = setTimeout(
          () => {
            const at = queue.indexOf(waiter);
            if (at < 0) return;
            queue.splice(at, 1);
            reject(new SlotsBusy('wait_timeout'));
          },
          Math.max(0, bounds.waitMs),
        );
      }
    });
  }

  private dispatch(): void {
    // the pause's timer dispatches again when it ends
    if (this.pausedForMs() > 0) return;
    while (this.active < this.limit) {
      const next = this.reads.shift() ?? (this.activeBackground < this.backgroundLimit ? this.background.shift() : undefined);
      if (!next) return;
      next.start();
    }
  }
}

/** Retry-After in seconds (a number or an HTTP date), or undefined. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

async function graphError(res: Response): Promise<{ code: string; message: string }> {
  const body: unknown = await res.json().catch(() => undefined);
  const error = typeof body === 'object' && body !== null ? Reflect.get(body, 'error') : undefined;
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  const message = typeof error === 'object' && error !== null ? Reflect.get(error, 'message') : undefined;
  return {
    code: typeof code === 'string' ? code : `http_${res.status}`,
    message: typeof message === 'string' ? message : res.statusText || `HTTP ${res.status}`,
  };
}

export interface SendOptions {
  settings: GraphSettings;
  /** The current access token; `true` asks for a new one (after a 401). */
  token: (renew: boolean) => Promise<string | undefined>;
  slots: Semaphore;
}

/**
 * Sends one Graph request: a slot from the mailbox's semaphore for each attempt, each attempt
 * bounded by GRAPH_TIMEOUT_MS and all of them by GRAPH_DEADLINE_MS; 429 and 503 are retried after
 * their Retry-After (at most GRAPH_MAX_RETRIES times, each wait capped), which pauses every call
 * of the mailbox (Semaphore.pause), the retry first in line when it ends; one 401 renews the token.
 */
export async function sendGraph(request: GraphRequest, { settings, token, slots }: SendOptions): Promise<GraphResult> {
  const since = Math.min(Date.now(), request.since ?? Date.now());
  const deadline = since + settings.GRAPH_DEADLINE_MS;
  const url = `${settings.GRAPH_BASE_URL}${request.path}`;
  let retries = Math.max(0, Math.min(settings.GRAPH_MAX_RETRIES, request.retriesUsed ?? 0));
  let renewed = false;
  /** When each throttled answer came (429/503). */
  const throttledAt: number[] = [];
  let graphWait = 0; // Graph's last Retry-After (s): what a caller refused for throttling is told to wait
  const waitSeconds = () => Math.max(1, graphWait, Math.ceil(slots.pausedForMs() / 1000));
  const throttledSoFar = (): Throttled => ({ at: throttledAt, since, deadlineAt: deadline, maxRetries: settings.GRAPH_MAX_RETRIES });
  for (;;) {
    const accessToken = await tokenOrFailure(token, false);
    if (typeof accessToken !== 'string') return accessToken;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return unavailable('graph_timeout', `Graph did not answer within ${settings.GRAPH_DEADLINE_MS} ms`);
    // Graph asked the mailbox to wait past this call's deadline: refused now rather than then.
    const pausedMs = slots.pausedForMs();
    if (pausedMs >= remaining) return stillThrottled(waitSeconds(), throttledSoFar());
    let release: () => void;
    try {
      const retry = throttledAt.length > 0;
      release = await slots.acquire(request.priority, { maxWaitingReads: settings.GRAPH_MAX_WAITING_READS, waitMs: remaining, retry });
    } catch (err) {
      if (!(err instanceof SlotsBusy)) throw err;
      // A retry out of time waiting for Graph's pause to end is still Graph throttling, not a busy mailbox.
      return err.reason === 'wait_timeout' && throttledAt.length > 0 ? stillThrottled(waitSeconds(), throttledSoFar()) : busy(err);
    }
    let res: Response;
    try {
      res = await fetch(url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: request.accept === 'bytes' ? '*/*' : 'application/json',
          // Ids that survive a move, so a message opened before a move can still be found.
          prefer: 'IdType="ImmutableId"',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(Math.min(settings.GRAPH_TIMEOUT_MS, remaining)),
      });
      if (res.ok) {
        const contentType = res.headers.get('content-type') ?? undefined;
        if (request.accept === 'bytes') {
          const bytes = await res.arrayBuffer();
          return { ok: true, status: res.status, bytes, contentType, size: bytes.byteLength };
        }
        const text = await res.text();
        if (!text) return { ok: true, status: res.status, size: 0 };
        try {
          return { ok: true, status: res.status, json: JSON.parse(text), contentType, size: text.length };
        } catch {
          return unavailable('graph_bad_answer', `Graph answered ${res.status} with a body that is not JSON`);
        }
      }
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      return unavailable(
        timedOut ? 'graph_timeout' : 'graph_unreachable',
        timedOut
          ? `Graph did not answer within ${settings.GRAPH_TIMEOUT_MS} ms`
          : `Graph could not be reached: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      release();
    }
    if (res.status === 401 && !renewed) {
      renewed = true;
      await res.body?.cancel();
      const renewedToken = await tokenOrFailure(token, true);
      if (typeof renewedToken !== 'string') return renewedToken;
      continue;
    }
    if (res.status === 429 || res.status === 503) {
      throttledAt.push(Date.now());
      const wait = retryAfterSeconds(res.headers.get('retry-after')) ?? 1;
      graphWait = wait;
      const waitMs = Math.min(wait, settings.GRAPH_MAX_RETRY_AFTER_SECONDS) * 1000;
      // Graph's limits are per app and mailbox: none of the mailbox's calls goes before the wait is over.
      slots.pause(waitMs);
      if (retries < settings.GRAPH_MAX_RETRIES && Date.now() + waitMs < deadline) {
        retries++;
        await res.body?.cancel();
        continue;
      }
      const { code, message } = await graphError(res);
      return {
        ok: false,
        kind: 'unavailable',
        status: res.status,
        code,
        message: `Graph is throttling or unavailable (${message})`,
        retryAfterSeconds: wait,
        throttled: throttledSoFar(),
      };
    }
    const { code, message } = await graphError(res);
    if (res.status === 401) return notConnected(message);
    if (res.status >= 500) return { ok: false, kind: 'unavailable', status: res.status, code, message };
    return { ok: false, kind: 'rejected', status: res.status, code, message };
  }
}

/** The token, or the failure to answer: not connected, or the identity platform unreachable. */
async function tokenOrFailure(token: SendOptions['token'], renew: boolean): Promise<string | GraphResult> {
  try {
    return (await token(renew)) ?? notConnected();
  } catch (err) {
    return unavailable(
      'identity_unavailable',
      `The mailbox token could not be refreshed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

function notConnected(message = 'No mailbox is connected.'): GraphResult {
  return { ok: false, kind: 'not_connected', status: 401, code: 'mailbox_not_connected', message };
}

/** Seconds a refused read is told to wait before it asks again. */
const BUSY_RETRY_AFTER_SECONDS = 1;

function busy(err: SlotsBusy): GraphResult {
  return {
    ok: false,
    kind: 'busy',
    status: 503,
    code: err.reason === 'queue_full' ? 'mailbox_busy' : 'mailbox_wait_timeout',
    message:
      err.reason === 'queue_full'
        ? 'Too many reads of this mailbox are waiting for Microsoft Graph; try again in a moment.'
        : 'No Microsoft Graph slot of this mailbox came free in time; try again in a moment.',
    retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
  };
}

/** Not sent: the mailbox is paused for Graph's Retry-After past the call's deadline. */
function stillThrottled(seconds: number, throttled: Throttled): GraphResult {
  return {
    ok: false,
    kind: 'unavailable',
    status: 429,
    code: 'graph_throttled',
    message: `Graph is throttling this mailbox for ${seconds} s more, past the request's deadline`,
    retryAfterSeconds: seconds,
    throttled,
  };
}

function unavailable(code: string, message: string): GraphResult {
  return { ok: false, kind: 'unavailable', status: 502, code, message };
}
