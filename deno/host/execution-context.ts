// The ExecutionContext a Worker's handlers get. `waitUntil` work keeps running after the
// response; the host tracks it so a shutdown can wait for it, and logs a rejection as workerd
// does instead of letting it become an unhandled rejection. `passThroughOnException` has no
// origin to fall through to here, so it only records that it was asked for.
import type { ExecutionContext } from '../shims/cloudflare-workers.ts';

export class HostExecutionContext implements ExecutionContext<Record<string, never>> {
  readonly props: Record<string, never> = {};
  passThrough = false;
  readonly #pending: Set<Promise<unknown>>;
  readonly #label: string;

  /** `pending` is shared by every request of a service, so the host can drain it on shutdown. */
  constructor(pending: Set<Promise<unknown>>, label: string) {
    this.#pending = pending;
    this.#label = label;
  }

  waitUntil(promise: Promise<unknown>): void {
    const tracked = Promise.resolve(promise)
      .catch((error) =>
        console.error(`[${this.#label}] waitUntil: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
      )
      .finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  passThroughOnException(): void {
    this.passThrough = true;
  }
}

/** Waits for every tracked waitUntil() promise, including ones added while waiting. */
export async function drain(pending: Set<Promise<unknown>>): Promise<void> {
  while (pending.size) await Promise.all(pending);
}
