import { commaList, hostAllowed } from '#shared/config.ts';
import { type RacingDbConfig, type RowSchema, openRacingDb, openRacingReads, parseRows } from '#shared/pg.ts';
import type { z } from 'zod';
import { type Connection, type DbTarget, type EngineEnv, HostNotAllowedError } from './types.ts';

// The engine's two databases through the shared driver set-up (relay, error wrapping): raw
// parameterised SQL, one pool per use, ended by the caller. Rows are read through `rows(db, schema,
// …)`, each parsed by the zod schema the call declares (shared/pg.ts parseRows); COPY stays raw.

export type Row = Record<string, unknown>;

/**
 * The rows of a `COPY … TO STDOUT` as the server sent them (PostgreSQL's text format, a line per
 * row), handed on untouched to a `COPY … FROM STDIN`: no value is parsed in the Worker.
 */
export type CopyRows = { readonly bytes: Uint8Array; readonly count: number };

/** Parameterised SQL on one database; `transaction` runs on one connection between BEGIN and COMMIT. */
export interface Sql {
  query(text: string, values?: unknown[]): Promise<Row[]>;
  /**
   * In a transaction, its last statement, sent as a simple query (no parameters: `text` holds only
   * values the engine wrote) with COMMIT in the same round trip: its rows.
   */
  queryAndCommit(text: string): Promise<Row[]>;
  transaction<T>(
    work: (tx: Sql) => Promise<T>,
    options?: {
      readOnly?: boolean;
      repeatableRead?: boolean;
      statementTimeoutMs?: number;
      /** SQL without parameters sent with BEGIN, in the same round trip. */
      begin?: string;
      /** The work takes session locks (and releases them): on a failure its connection is closed, which frees them. */
      sessionLocks?: boolean;
    },
  ): Promise<T>;
  /**
   * `COPY (…) TO STDOUT` (no parameters): its rows. In a transaction, `last` sends its COMMIT in the
   * same round trip (the transaction then runs nothing more).
   */
  copyOut(text: string, options?: { last?: boolean }): Promise<CopyRows>;
  /** `COPY … FROM STDIN` fed with `rows`: how many rows the server took. `last` as for copyOut. */
  copyIn(text: string, rows: CopyRows, options?: { last?: boolean }): Promise<number>;
  end(): Promise<void>;
}

/** What a read needs of a database, on a connection (Sql) or over HTTP (Reads): parameterised statements. */
export type Reader = Pick<Sql, 'query'>;

/** A statement's name in a RowShapeError: its text on one line, cut short. */
function statementName(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Rows already read (a batch's, queryAndCommit's) each parsed through `schema`, the zod schema of one row of `text`. */
export function parsedRows<S extends RowSchema>(schema: S, text: string, raw: readonly unknown[]): z.output<S>[] {
  return parseRows(statementName(text), schema, raw);
}

/**
 * The rows of a parameterised statement, each parsed through `schema` (the zod schema of one row;
 * int8 and numeric arrive as text): a row that does not match is a RowShapeError.
 */
export async function rows<S extends RowSchema>(db: Reader, schema: S, text: string, values?: unknown[]): Promise<z.output<S>[]> {
  return parsedRows(schema, text, await db.query(text, values));
}

/** One statement of a batch: its text and parameters. */
export type Statement = { text: string; values?: unknown[] };

/**
 * One-shot reads on one database over the driver's HTTP query path (`neon()`, workers/shared/pg.ts):
 * each call is one round trip, with no WebSocket, authentication or connection held, so there is
 * nothing to end. The wizard's and the pages' look-ups read this way; copies, writes, COPY and
 * anything that needs a session keep `Sql`.
 */
export interface Reads extends Reader {
  /**
   * Statements as one read-only non-interactive transaction, in one round trip: the rows of each,
   * in order. `statementTimeoutMs` limits each statement (SET LOCAL, sent in the same batch).
   */
  batch(statements: readonly Statement[], options?: { statementTimeoutMs?: number }): Promise<Row[][]>;
}

const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 120_000;

/** `host` or `host:port` entries, comma-separated; an empty list allows nothing (the shared check). */
export function isHostAllowed(allowed: string | undefined, host: string, port: number): boolean {
  return hostAllowed(commaList(allowed), host, port);
}

export function assertHostAllowed(env: EngineEnv, conn: Connection): void {
  if (!isHostAllowed(env.MIGRATE_ALLOWED_HOSTS, conn.host, conn.port)) throw new HostNotAllowedError(conn.host, conn.port);
}

export function connectionUrl(conn: Connection): string {
  const enc = encodeURIComponent;
  const host = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  return `postgres://${enc(conn.username)}:${enc(conn.password)}@${host}:${conn.port}/${enc(conn.database)}`;
}

function dbConfig(env: EngineEnv, url: string): RacingDbConfig {
  return {
    DATABASE_URL: url,
    PG_WS_PROXY: env.PG_WS_PROXY || undefined,
    PG_CONNECT_TIMEOUT_MS: CONNECT_TIMEOUT_MS,
    PG_QUERY_TIMEOUT_MS: QUERY_TIMEOUT_MS,
  };
}

const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A driver result's rows, checked to be row objects (not cast); anything else is a driver defect. */
function driverRows(rows: unknown): Row[] {
  if (!Array.isArray(rows) || !rows.every(isRow)) throw new Error('the database driver returned something other than rows');
  return rows;
}

/** The rows of one driver result (`{ rows }`). */
const resultRows = (result: unknown): Row[] =>
  driverRows(typeof result === 'object' && result !== null ? Reflect.get(result, 'rows') : undefined);

type Queryable = {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  query(submittable: CopyQuery): unknown;
};

/** What the driver's connection (pg's protocol layer) offers a submitted query for COPY. */
type DriverConnection = {
  query(text: string): void;
  sendCopyFromChunk(chunk: unknown): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
};

/**
 * One COPY statement on the driver's protocol layer (pg's Submittable interface, which the serverless
 * driver keeps): `TO STDOUT` collects the CopyData messages, `FROM STDIN` sends the given ones then
 * CopyDone. The driver calls `callback` once (its query timeout included) and the promise follows it.
 */
class CopyQuery {
  readonly done: Promise<CopyRows>;
  callback!: (error: unknown, rows?: CopyRows) => void;
  /** Received rows, copied out of the driver's receive buffer (which it reuses) as they arrive. */
  private bytes = new Uint8Array(1 << 16);
  private length = 0;
  private count = 0;
  private finished = false;

  constructor(
    private readonly text: string,
    private readonly input?: CopyRows,
  ) {
    this.done = new Promise<CopyRows>((resolve, reject) => {
      this.callback = (error, rows) => (error ? reject(asError(error)) : resolve(rows!));
    });
  }

  submit(connection: DriverConnection): void {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: DriverConnection): void {
    if (!this.input) return connection.sendCopyFail('COPY FROM STDIN without rows');
    const { bytes } = this.input;
    for (let at = 0; at < bytes.length; at += COPY_MESSAGE_BYTES) {
      connection.sendCopyFromChunk(copyDataPayload(bytes.subarray(at, Math.min(bytes.length, at + COPY_MESSAGE_BYTES))));
    }
    connection.endCopyFrom();
  }
  handleCopyData(message: { chunk: Uint8Array }): void {
    const chunk = message.chunk;
    if (this.length + chunk.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + chunk.length));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.length);
    this.length += chunk.length;
  }
  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(message.text ?? '');
    if (match) this.count = Number(match[1]);
  }
  handleError(error: unknown): void {
    this.finish(error);
  }
  handleReadyForQuery(): void {
    this.finish(null);
  }
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  private finish(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.callback(error, error ? undefined : { bytes: this.bytes.subarray(0, this.length), count: this.count });
  }
}

/** CopyData messages sent for a COPY FROM STDIN carry up to this many bytes each. */
const COPY_MESSAGE_BYTES = 1 << 18;

/** A CopyData payload as the driver's message writer takes one: its length, and copy() into its buffer. */
function copyDataPayload(bytes: Uint8Array) {
  return {
    length: bytes.length,
    copy(target: Uint8Array, offset: number) {
      target.set(bytes, offset);
      return bytes.length;
    },
  };
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  const message = typeof error === 'object' && error && 'message' in error ? String(error.message) : String(error);
  return Object.assign(new Error(message), typeof error === 'object' ? error : {});
}

function copy(client: Queryable, text: string, input?: CopyRows): Promise<CopyRows> {
  const query = new CopyQuery(text, input);
  client.query(query);
  return query.done;
}

function sqlOn(client: Queryable, open: () => Promise<{ client: Queryable; release(err?: boolean): void }>, end: () => Promise<void>): Sql {
  const onOwnClient = async <T>(work: (client: Queryable) => Promise<T>): Promise<T> => {
    const conn = await open();
    let failed = false;
    try {
      return await work(conn.client);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // A COPY that failed may have left the protocol mid-stream: that connection is not reused.
      conn.release(failed || undefined);
    }
  };
  const sql: Sql = {
    async query(text: string, values?: unknown[]) {
      return driverRows((await client.query(text, values)).rows);
    },
    queryAndCommit: () => Promise.reject(new Error('queryAndCommit outside a transaction')),
    // A COPY holds its connection until ReadyForQuery: on a pool it runs on a client of its own.
    async copyOut(text) {
      return onOwnClient((c) => copy(c, text));
    },
    async copyIn(text, rows) {
      return (await onOwnClient((c) => copy(c, text, rows))).count;
    },
    async transaction(work, options = {}) {
      const conn = await open();
      let broken = false;
      // BEGIN (with the statement timeout and the caller's extra SQL) goes in the same round trip as
      // the transaction's first statement when that is a COPY (a simple query too), else just before it.
      let pending: string | null = [
        `BEGIN${options.repeatableRead ? ' ISOLATION LEVEL REPEATABLE READ' : ''}${options.readOnly ? ' READ ONLY' : ''}`,
        ...(options.statementTimeoutMs ? [`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}`] : []),
        ...(options.begin ? [options.begin] : []),
      ].join('; ');
      let committed = false;
      const withPending = (text: string, last: boolean | undefined) => {
        const full = [pending, text, last ? 'COMMIT' : null].filter(Boolean).join('; ');
        pending = null;
        if (last) committed = true;
        return full;
      };
      const tx: Sql = {
        async query(text: string, values?: unknown[]) {
          if (committed) throw new Error('the transaction has committed');
          if (pending) await conn.client.query(withPending('', false));
          return driverRows((await conn.client.query(text, values)).rows);
        },
        async queryAndCommit(text: string) {
          if (committed) throw new Error('the transaction has committed');
          // Several statements in one message: the driver answers with one result per statement.
          const results: unknown = await conn.client.query(withPending(text, true));
          const all: unknown[] = Array.isArray(results) ? results : [results];
          // BEGIN's results come first when it went in the same message; the statement's are before COMMIT's.
          const last = all.at(-2);
          return last === undefined ? [] : resultRows(last);
        },
        copyOut: (text, copyOptions) => copy(conn.client, withPending(text, copyOptions?.last)),
        async copyIn(text, rows, copyOptions) {
          return (await copy(conn.client, withPending(text, copyOptions?.last), rows)).count;
        },
        transaction: (inner) => inner(tx),
        end: () => Promise.resolve(),
      };
      try {
        const result = await work(tx);
        if (!committed && !pending) await conn.client.query('COMMIT');
        return result;
      } catch (error) {
        if (options.sessionLocks) broken = true;
        else if (!pending)
          broken = await conn.client.query('ROLLBACK').then(
            () => false,
            () => true,
          );
        throw error;
      } finally {
        // A connection whose rollback failed, or that may hold a session lock, is not handed back to the pool.
        (conn.release as (err?: boolean) => void)(broken || undefined);
      }
    },
    end,
  };
  return sql;
}

/** A pool on a postgres:// URL through the shared driver set-up. */
export function openUrl(env: EngineEnv, url: string): Sql {
  const pool = openRacingDb(dbConfig(env, url)).$client;
  return sqlOn(
    pool,
    async () => {
      const client = await pool.connect();
      return { client, release: (err?: boolean) => client.release(err) };
    },
    () => pool.end().catch(() => {}),
  );
}

/** Reads on a postgres:// URL over HTTP (see Reads). */
export function openReads(env: EngineEnv, url: string): Reads {
  const sql = openRacingReads(dbConfig(env, url)).$client;
  return {
    async query(text: string, values?: unknown[]) {
      return driverRows(await sql.query(text, values ?? []));
    },
    async batch(statements, options = {}) {
      const timeout = options.statementTimeoutMs
        ? [sql.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}`)]
        : [];
      const results = await sql.transaction([...timeout, ...statements.map((s) => sql.query(s.text, s.values ?? []))], { readOnly: true });
      return results.slice(timeout.length).map(driverRows);
    },
  };
}

/** A source's URL, refused before any connection or request when its host is not allowed. */
function sourceUrl(env: EngineEnv, conn: Connection): string {
  assertHostAllowed(env, conn);
  return connectionUrl(conn);
}

export function destinationReads(env: EngineEnv): Reads {
  return openReads(env, env.DATABASE_URL);
}

export function sourceReads(env: EngineEnv, conn: Connection): Reads {
  return openReads(env, sourceUrl(env, conn));
}

export function targetReads(env: EngineEnv, target: DbTarget): Reads {
  return openReads(env, target === 'destination' ? env.DATABASE_URL : sourceUrl(env, target));
}

export function openDestination(env: EngineEnv): Sql {
  return openUrl(env, env.DATABASE_URL);
}

export function openSource(env: EngineEnv, conn: Connection): Sql {
  return openUrl(env, sourceUrl(env, conn));
}

/** Runs `work` on a freshly opened database and always ends its pool. */
export async function withSql<T>(open: () => Sql, work: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = open();
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** A quoted SQL identifier. */
export function ident(name: string): string {
  if (name.includes('\u0000')) throw new Error('identifier contains NUL');
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A quoted SQL string literal, read the same whatever the server's standard_conforming_strings:
 * a value with a backslash is written as E'…' with the backslashes doubled.
 */
export function literal(value: string): string {
  if (value.includes('\u0000')) throw new Error('text contains NUL');
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\\') ? `E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}
