import { HttpError } from './http-error.ts';

/** The racing database cannot be reached (down, refusing, timing out): a 503, never a 500 or a hang. */
export class DatabaseUnavailableError extends HttpError {
  constructor(options?: { cause?: unknown }) {
    super(503, 'database_unavailable', 'The racing database is unreachable right now; try again shortly');
    this.name = 'DatabaseUnavailableError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

// SQLSTATE classes that mean "no usable connection", not "bad query":
// 08xxx connection exception, 57P01-57P03 shutdown / cannot connect now, 53300 too many connections.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|connection terminated|connection refused|econnrefused|websocket|socket hang up|network connection lost|query read timeout|connection timeout|client has encountered a connection error|cannot connect|error connecting to database|server error \(http status 50[234]\)/i;

/**
 * Recognises a driver error (possibly wrapped by drizzle) that means the database is unreachable.
 * The WebSocket transport reports failures as an ErrorEvent rather than an Error, so any object
 * with a message counts, and an event's `error` is followed like a cause.
 */
export function asDatabaseUnavailable(err: unknown): DatabaseUnavailableError | undefined {
  if (err instanceof DatabaseUnavailableError) return err;
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 6; depth++) {
    const code = Reflect.get(e, 'code');
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      if (UNAVAILABLE_SQLSTATE.test(code)) return new DatabaseUnavailableError({ cause: err });
      return undefined; // the server answered: a query error, not an outage
    }
    const message = Reflect.get(e, 'message');
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return new DatabaseUnavailableError({ cause: err });
    e = Reflect.get(e, 'cause') ?? Reflect.get(e, 'error');
  }
  return undefined;
}
