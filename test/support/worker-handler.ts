import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';

type FetchHandler = (request: Request, env: never, ctx: ExecutionContext) => Response | Promise<Response>;

/**
 * Sends a request straight to a Worker's fetch handler, in a new execution context whose
 * `waitUntil` work is awaited before the answer is returned: what `exports.default.fetch` does,
 * without its per-call cost. Through `exports.default`, vitest-pool-workers imports the Worker's
 * main module again through vitest's module runner on every call (a round trip to Node), and that
 * cost grows with every request the isolate has served: the mail fuzz took 80 s
 * that way and 6 s this way. For the files that send thousands of requests (the fuzz files) and
 * for projects whose files share one isolate (the migrate test client); the rest keep
 * `exports.default.fetch`, which also passes the request and answer through the runtime.
 */
export function workerHandler(worker: { fetch?: unknown }): (request: Request) => Promise<Response> {
  const fetch = worker.fetch as FetchHandler | undefined;
  if (typeof fetch !== 'function') throw new TypeError('the Worker has no fetch handler');
  return async (request) => {
    const ctx = createExecutionContext();
    const response = await fetch.call(worker, request, env as never, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}
