/** Quiet this long (no read of the person's) before the next message of background work starts. */
const QUIET_MS = 300;
/** Background work waits at most this long for quiet before each message. */
const MAX_YIELD_MS = 2_000;

/**
 * When the mailbox's person last read through it. The assistant's background work (new mail:
 * Graph read, cleaning, summary, category, D1 writes) shares the object, the isolate's CPU and the
 * user's D1 database with the person's reads; between two messages it waits for a quiet moment —
 * no read in flight and none for `quietMs` — so a message being opened is not queued behind it.
 * The wait is bounded (`maxWaitMs`): a person reading without pause slows the work, never stops it.
 */
export class ReadActivity {
  private inFlight = 0;
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs one of the person's reads, marking the mailbox busy while it runs. */
  async around<T>(read: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.last = this.now();
    try {
      return await read();
    } finally {
      this.inFlight--;
      this.last = this.now();
    }
  }

  /** Milliseconds until the mailbox has been quiet for `quietMs` (0: quiet now). */
  busyForMs(quietMs: number): number {
    if (this.inFlight > 0) return quietMs;
    return Math.max(0, this.last + quietMs - this.now());
  }

  /** Resolves once the mailbox has been quiet for `quietMs`, or after `maxWaitMs`; answers how long it waited. */
  async quiet(quietMs = QUIET_MS, maxWaitMs = MAX_YIELD_MS): Promise<number> {
    const started = this.now();
    for (;;) {
      const waited = this.now() - started;
      const busy = this.busyForMs(quietMs);
      if (busy === 0 || waited >= maxWaitMs) return waited;
      await new Promise((resolve) => setTimeout(resolve, Math.min(busy, maxWaitMs - waited)));
    }
  }
}
