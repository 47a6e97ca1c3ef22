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
  for (const e of errorChain(err)) {
    const code = sqlStateField(e);
    // The server answered with a SQLSTATE: an outage only for the classes above, else a query error.
    if (code) return UNAVAILABLE_SQLSTATE.test(code) ? new DatabaseUnavailableError({ cause: err }) : undefined;
    const message = Reflect.get(e, 'message');
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return new DatabaseUnavailableError({ cause: err });
  }
  return undefined;
}

/** An error and what it wraps (drizzle's `cause`, an ErrorEvent's `error`), at most six deep. */
function* errorChain(err: unknown): Generator<object> {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 6; depth++) {
    yield e;
    e = Reflect.get(e, 'cause') ?? Reflect.get(e, 'error');
  }
}

const sqlStateField = (e: object): string | undefined => {
  const code = Reflect.get(e, 'code');
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** The SQLSTATE of a driver error (possibly wrapped by drizzle or an event), if the server sent one. */
export function sqlStateOf(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    const code = sqlStateField(e);
    if (code) return code;
  }
  return undefined;
}

// The conditions a person can act on, in words; anything else is named by its class.
const SQLSTATE_WORDS: Record<string, string> = {
  '22P02': 'a text value could not be read as the type it is compared with or cast to',
  '22007': 'a text value is not a date or time in a format the database reads',
  '22008': 'a date or time is out of range',
  '22003': 'a number is out of range for its type',
  '22012': 'a division by zero',
  '22001': 'a text value is too long for its type',
  '22023': 'a function was given a value it does not accept',
  '22025': 'an escape in a LIKE pattern is not valid',
  '2201B': 'a pattern is not valid',
  '42883': 'an operator or function does not accept these types: compare a column with a value of its own type, or cast one side',
  '42804': 'the types do not match: the condition must be true or false, and CASE branches one type',
  '42703': 'a column does not exist',
  '42P01': 'a table does not exist',
  '42501': 'the login may not read a table or call a function the statement needs',
  '42601': 'the statement is not valid SQL',
  '25006': 'the statement tried to write in a read-only transaction',
  '57014': 'the statement took too long and was cancelled (statement timeout)',
  '28P01': 'the server refused the password',
  '28000': 'the server refused the login',
  '3D000': 'the database does not exist',
  '53300': 'the server has too many connections',
};

const SQLSTATE_CLASSES: Record<string, string> = {
  '08': 'connection exception',
  '0A': 'feature not supported',
  '21': 'cardinality violation',
  '22': 'data exception',
  '23': 'integrity constraint violation',
  '25': 'invalid transaction state',
  '28': 'invalid authorization',
  '3D': 'invalid catalog name',
  '40': 'transaction rollback',
  '42': 'syntax error or access rule violation',
  '53': 'insufficient resources',
  '54': 'program limit exceeded',
  '55': 'object not in prerequisite state',
  '57': 'operator intervention',
  '58': 'system error',
  XX: 'internal error',
};

/**
 * A database failure in the app's own words (what happened, SQLSTATE and its class), never the
 * server's message, which can carry values, names and paths of the database.
 */
export function explainDatabaseError(err: unknown): string {
  const state = sqlStateOf(err);
  if (!state) return asDatabaseUnavailable(err) ? 'the database could not be reached' : 'the database did not answer as expected';
  const kind = SQLSTATE_CLASSES[state.slice(0, 2)] ?? 'database error';
  const words = SQLSTATE_WORDS[state];
  return words ? `${words} (SQLSTATE ${state}, ${kind})` : `the database refused the statement (SQLSTATE ${state}, ${kind})`;
}

/** What a job or page may show of a failure: the app's own errors as they are, database errors explained. */
export function failureText(err: unknown): string {
  if (sqlStateOf(err)) return explainDatabaseError(err);
  return err instanceof Error ? err.message : String(err);
}
