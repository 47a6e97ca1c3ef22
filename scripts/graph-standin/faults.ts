import { type Account, type Fault, LOG_LIMIT } from './account.ts';
import { isoSeconds } from './mailbox.ts';

/** Faults a test injects into an account's requests (delays, statuses, dropped connections), and its request log. */

/** The first matching fault of the account: delays, then answers its status (or drops the connection). */
export async function applyFault(
  account: Account,
  method: string,
  paths: string[],
  signal: AbortSignal,
): Promise<{ id: number; status: number; headers: Record<string, string> } | 'drop' | null> {
  const fault = account.faults.find(
    (f: Fault) =>
      (f.method === null || f.method === method) &&
      (f.pathPrefix === null || paths.some((p) => p.startsWith(f.pathPrefix!))) &&
      (f.remaining === null || f.remaining > 0),
  );
  if (!fault) return null;
  fault.hits += 1;
  if (fault.remaining !== null) {
    fault.remaining -= 1;
    if (fault.remaining === 0) account.faults = account.faults.filter((f) => f !== fault);
  }
  if (fault.delayMs > 0) await sleep(fault.delayMs, signal);
  if (fault.status === null) return null;
  if (fault.status === 0) return 'drop';
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== null) headers['retry-after'] = String(fault.retryAfter);
  else if (fault.status === 429) headers['retry-after'] = '1';
  return { id: fault.id, status: fault.status, headers };
}

export function faultCode(status: number): string {
  return (
    {
      429: 'TooManyRequests',
      503: 'ServiceNotAvailable',
      500: 'InternalServerError',
      502: 'BadGateway',
      504: 'GatewayTimeout',
      401: 'InvalidAuthenticationToken',
      403: 'ErrorAccessDenied',
      404: 'ErrorItemNotFound',
    }[status] ?? 'UnknownError'
  );
}

export function faultMessage(status: number): string {
  return (
    {
      429: 'Too many requests. Retry after the number of seconds in the Retry-After header.',
      503: 'The service is temporarily unavailable. Please retry later.',
      500: 'An internal server error occurred.',
      502: 'Bad gateway.',
      504: 'The request timed out.',
    }[status] ?? `Injected fault: status ${status}.`
  );
}

/** One line of the account's request log (the newest LOG_LIMIT kept). */
export function logRequest(
  account: Account,
  method: string,
  url: URL,
  status: number,
  started: number,
  token: string | null,
  fault: number | null,
) {
  account.log.push({
    time: isoSeconds(account.mailbox.now()),
    method,
    path: url.pathname,
    query: url.search,
    status,
    durationMs: Date.now() - started,
    token,
    fault,
  });
  if (account.log.length > LOG_LIMIT) account.log.splice(0, account.log.length - LOG_LIMIT);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
