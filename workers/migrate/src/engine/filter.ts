import { type Reads, type Sql, ident, sourceReads } from './db.ts';
import { type Connection, type EngineEnv, FilterError } from './types.ts';

// Operator-typed WHERE conditions on the source. They only ever run as one statement (the
// extended protocol refuses a second), inside a READ ONLY transaction with a statement timeout;
// before that a lexical check refuses what is not a plain condition, so the error is clear.
// The direct copy path's `COPY … TO STDOUT` (a simple query, which could hold several statements)
// never carries a filter: it names its rows by the ids that a filtered, parameterised query returned.

export const FILTER_MAX_LENGTH = 2_000;
export const FILTER_TIMEOUT_MS = 5_000;
/** Source reads of a run (a filter included) get longer than a wizard's test. */
export const COPY_READ_TIMEOUT_MS = 60_000;

/** Functions with effects outside the statement (sessions, files, locks, sequences, other servers). */
const FORBIDDEN_CALL =
  /\b(pg_\w+|lo_\w+|dblink\w*|set_config|nextval|setval|currval|lastval|txid_\w+|query_to_xml\w*|table_to_xml\w*|cursor_to_xml\w*|database_to_xml\w*|schema_to_xml\w*)\s*\(/i;
const FORBIDDEN_WORD = /\b(insert|update|delete|merge|truncate|drop|alter|create|grant|revoke|copy|call|do|execute|prepare|listen|notify|vacuum|analyze|lock|set|reset|begin|commit|rollback|savepoint)\b/i;

/** The filter with its string literals and quoted identifiers blanked, for the lexical checks. */
function outsideQuotes(filter: string): string {
  let out = '';
  let quote: "'" | '"' | null = null;
  for (const ch of filter) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ' ';
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ' ';
    } else {
      out += ch;
    }
  }
  if (quote) throw new FilterError('The filter has an unterminated quote');
  return out;
}

/** Throws FilterError unless `filter` looks like one plain condition. Returns it trimmed. */
export function checkFilter(filter: string): string {
  const trimmed = filter.trim();
  if (!trimmed) throw new FilterError('The filter is empty');
  if (trimmed.includes('\u0000')) throw new FilterError('The filter contains a NUL character');
  if (trimmed.length > FILTER_MAX_LENGTH) throw new FilterError(`The filter is longer than ${FILTER_MAX_LENGTH} characters`);
  const bare = outsideQuotes(trimmed);
  if (bare.includes(';')) throw new FilterError('The filter must be one condition: no semicolons');
  if (bare.includes('--') || bare.includes('/*')) throw new FilterError('The filter must not contain comments');
  if (/^\s*where\b/i.test(bare)) throw new FilterError('Type the condition without the WHERE keyword');
  const word = FORBIDDEN_WORD.exec(bare);
  if (word) throw new FilterError(`The filter must be a read-only condition: "${word[1]}" is not allowed`);
  const call = FORBIDDEN_CALL.exec(bare);
  if (call) throw new FilterError(`The filter must be a read-only condition: ${call[1]}() is not allowed`);
  let depth = 0;
  for (const ch of bare) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth < 0) throw new FilterError('The filter has an unbalanced parenthesis');
  }
  if (depth !== 0) throw new FilterError('The filter has an unbalanced parenthesis');
  return trimmed;
}

/** The SQL condition of an optional filter (already checked). */
export function filterCondition(filter: string | undefined): string {
  return filter && filter.trim() ? `(${checkFilter(filter)})` : 'true';
}

/** A read-only, time-limited transaction on the source: how every source read of the engine runs. */
export function readSource<T>(source: Sql, work: (tx: Sql) => Promise<T>, timeoutMs = COPY_READ_TIMEOUT_MS): Promise<T> {
  return source.transaction(work, { readOnly: true, statementTimeoutMs: timeoutMs });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = Reflect.get(error, 'code');
    if (code === '57014') return 'The filter took too long (statement timeout)';
    if (code === '25006') return 'The filter must be a read-only condition';
    return error.message;
  }
  return String(error);
}

/**
 * Rows of the source table matching the filter, or FilterError with the database's reason: one
 * read-only batch with its statement timeout, one round trip.
 */
export async function countWithFilter(source: Reads, table: string, filter: string, timeoutMs = FILTER_TIMEOUT_MS): Promise<number> {
  const condition = `(${checkFilter(filter)})`;
  try {
    // A parameter keeps the statement on the extended protocol, which refuses a second statement.
    const [rows = []] = await source.batch([{ text: `SELECT count(*)::bigint AS n FROM ${ident(table)} WHERE ${condition} LIMIT $1`, values: [1] }], {
      statementTimeoutMs: timeoutMs,
    });
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    throw new FilterError(describe(error));
  }
}

/** `/api/table/test-filter`: the count of source rows the filter keeps. */
export async function testFilter(env: EngineEnv, conn: Connection, table: string, filter: string): Promise<{ count: number }> {
  checkFilter(filter);
  return { count: await countWithFilter(sourceReads(env, conn), table, filter) };
}
