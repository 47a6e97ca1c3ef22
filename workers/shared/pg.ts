import { Client, neon, neonConfig, type NeonQueryFunction, Pool } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleHttp, type NeonHttpDatabase } from 'drizzle-orm/neon-http';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { parseConfig } from './config.ts';
import { PBKDF2_MAX_ITERATIONS, parseServerFirst, scramClientFinal } from './scram.ts';
import * as racingSchema from './racing/schema.ts';

export const racingDbConfigSchema = z.object({
  /** postgres:// URL of the racing database (a Neon URL in production; a secret). */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// URL'),
  /** Local development and tests only: address of the WebSocket relay in front of a TCP Postgres. */
  PG_WS_PROXY: z
    .string()
    .regex(/^(wss?:\/\/)?[\w.-]+(:\d+)?(\/[\w./-]*)?$/, 'must be host:port or ws://host:port')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  PG_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
});
export type RacingDbConfig = z.output<typeof racingDbConfigSchema>;

export type RacingDb = NeonDatabase<typeof racingSchema> & { $client: Pool };
export type RacingDbVariables = { racing: RacingDb };

/**
 * The driver reports a WebSocket that fails (refused, reset, TLS or DNS failure) with the runtime's
 * ErrorEvent, which is not an Error: Hono hands only Errors to onError and rethrows anything else,
 * so it escaped the Worker as an uncaught exception. This turns it into an Error with the event as
 * its cause, so that error handlers and `asDatabaseUnavailable` see it like any other driver error.
 */
function asDriverError(err: unknown): unknown {
  if (err instanceof Error || typeof err !== 'object' || err === null) return err;
  const inner: unknown = Reflect.get(err, 'error');
  const message: unknown = Reflect.get(err, 'message');
  const text = inner instanceof Error ? inner.message : typeof message === 'string' && message ? message : 'unknown error';
  return new Error(`Database WebSocket failed: ${text}`, { cause: err });
}

type Callback = (err: unknown, ...rest: unknown[]) => void;
const withDriverErrors =
  (callback: Callback): Callback =>
  (err, ...rest) =>
    callback(err ? asDriverError(err) : err, ...rest);

const clientClasses = new Map<string, typeof Client>();

type ScramSession = { message: string; clientNonce: string; response: string };
const isScramSession = (value: unknown): value is ScramSession =>
  typeof value === 'object' &&
  value !== null &&
  ['message', 'clientNonce', 'response'].every((name) => typeof Reflect.get(value, name) === 'string');

/** One client class per relay setting for the isolate's life, not one per request. */
function racingClient(config: RacingDbConfig): typeof Client {
  const key = config.PG_WS_PROXY ?? '';
  let cls = clientClasses.get(key);
  if (!cls) clientClasses.set(key, (cls = makeRacingClient(config.PG_WS_PROXY)));
  return cls;
}

/**
 * The driver's Client with this pool's WebSocket settings on its own socket (Neon's process-wide
 * `neonConfig` would carry one request's relay into another's), whose connect and query failures
 * are always Errors (see asDriverError).
 */
function makeRacingClient(proxy: string | undefined): typeof Client {
  const relay = proxy?.replace(/^wss?:\/\//, '').replace(/\/+$/, '');
  const relayPath = relay && (relay.includes('/') ? relay : `${relay}/v1`);
  const secureRelay = proxy?.startsWith('wss://') ?? false;

  return class RacingClient extends Client {
    constructor(options?: ConstructorParameters<typeof Client>[0]) {
      super(options);
      if (relayPath) {
        const socket = this.neonConfig;
        socket.wsProxy = (host, port) => `${relayPath}?address=${host}:${port}`;
        socket.useSecureWebSocket = secureRelay;
        socket.pipelineTLS = false;
        socket.pipelineConnect = false;
      }
    }

    override connect(): Promise<void>;
    override connect(callback: (err?: Error) => void): void;
    override connect(callback?: (err?: Error) => void): Promise<void> | void {
      if (callback) return super.connect(withDriverErrors(callback as Callback));
      return super.connect().catch((err: unknown) => {
        throw asDriverError(err);
      });
    }

    /**
     * A password login's SCRAM-SHA-256 step (see scram.ts): PBKDF2 in one call of the runtime, not
     * the driver's 4,096 awaited HMAC rounds; the driver's own code only for a count the runtime refuses.
     */
    override async _handleAuthSASLContinue(msg: { data: string }): Promise<void> {
      const session: unknown = this.saslSession;
      // Only the exchange this covers: SCRAM-SHA-256 without channel binding ("n,,"), a password given.
      if (!isScramSession(session) || !session.response.startsWith('n,,') || typeof this.password !== 'string')
        return super._handleAuthSASLContinue(msg);
      try {
        if (session.message !== 'SASLInitialResponse') throw new Error('SASL: protocol error');
        const server = parseServerFirst(msg.data, session.clientNonce);
        if (server.iterations > PBKDF2_MAX_ITERATIONS) return await super._handleAuthSASLContinue(msg);
        const final = await scramClientFinal(this.password, session.response.slice(3), msg.data, server);
        Object.assign(session, { message: 'SASLResponse', ...final });
        this.connection.sendSCRAMClientFinalMessage(final.response);
      } catch (err) {
        // The driver's connection turns an 'error' into the connect's failure.
        this.connection.emit('error', err);
      }
    }

    // pg's query takes (text | config, values?, callback?); without a callback it returns a promise.
    // The return type is `any` because the override has to satisfy every one of its overloads.
    override query(...args: unknown[]): any {
      const at = args.findIndex((arg, i) => i > 0 && typeof arg === 'function');
      if (at > 0) args[at] = withDriverErrors(args[at] as Callback);
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (at < 0 && result instanceof Promise) {
        return result.catch((err: unknown) => {
          throw asDriverError(err);
        });
      }
      return result;
    }
  };
}

/**
 * Opens a per-request pool: Workers cannot share I/O objects between requests, so the pool is
 * created here and must be ended by the caller (the middleware below does it with waitUntil).
 * Without PG_WS_PROXY the driver's defaults apply (production: `wss://<host>/v2` on Neon).
 */
export function openRacingDb(config: RacingDbConfig): RacingDb {
  const pool = new Pool({
    connectionString: config.DATABASE_URL,
    connectionTimeoutMillis: config.PG_CONNECT_TIMEOUT_MS,
    query_timeout: config.PG_QUERY_TIMEOUT_MS,
  });
  // NeonPool sets its own Client class after construction, so the option cannot carry it.
  pool.Client = racingClient(config);
  // An idle client losing its socket must not become an unhandled error in the isolate.
  pool.on('error', () => {});
  return drizzle({ client: pool, schema: racingSchema });
}

/** Puts a per-request racing database handle on `c.var.racing` and ends its pool once the response is out. */
export function racingDb(): MiddlewareHandler<{ Variables: RacingDbVariables }> {
  return async (c, next) => {
    const db = openRacingDb(parseConfig(racingDbConfigSchema, c.env));
    c.set('racing', db);
    try {
      await next();
    } finally {
      c.executionCtx.waitUntil(db.$client.end().catch(() => {}));
    }
  };
}

// ——— One-shot reads over HTTP ———
//
// A read that is one statement, or one batch run as a non-interactive transaction, goes over the
// driver's HTTP query path (`neon()`): one round trip, no WebSocket or authentication per request.
// Production posts to Neon's `/sql` endpoint (the driver's default for the database's host);
// locally, with PG_WS_PROXY set, to the same relay's `/sql`, which keeps warm connections to the
// embedded or real server.

export type RacingReads = NeonHttpDatabase<typeof racingSchema> & { $client: NeonQueryFunction<false, false> };
export type RacingReadsVariables = { racing: RacingReads };

/**
 * Per-call settings carried in the driver's `fetchOptions` (whose endpoint and fetch function are
 * process-wide): where to post and how long to wait. The fetch function below reads and strips them,
 * so one request's relay or timeout never reaches another's query.
 */
const ENDPOINT = 'racingEndpoint';
const TIMEOUT = 'racingTimeoutMs';

neonConfig.fetchFunction = (url: string, init: RequestInit & Record<string, unknown>) => {
  const { [ENDPOINT]: endpoint, [TIMEOUT]: timeoutMs, ...rest } = init;
  const signal = typeof timeoutMs === 'number' ? AbortSignal.timeout(timeoutMs) : undefined;
  return fetch(typeof endpoint === 'string' ? endpoint : url, signal ? { ...rest, signal } : rest);
};

/** `ws://host:port` (PG_WS_PROXY) → `http://host:port/sql`, the relay's HTTP query endpoint. */
export function relaySqlEndpoint(proxy: string): string {
  const base = /^wss?:\/\//.test(proxy) ? proxy : `ws://${proxy}`;
  const url = new URL(base.replace(/^ws/, 'http'));
  return `${url.origin}/sql`;
}

/**
 * The connection string with PostgreSQL startup options (`-c name=value`, sent once when the
 * server-side connection starts, never as a statement per request).
 */
export function withStartupOptions(databaseUrl: string, options: string | undefined): string {
  if (!options) return databaseUrl;
  const url = new URL(databaseUrl);
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', existing ? `${existing} ${options}` : options);
  return url.toString();
}

/**
 * The racing database for one-shot reads over HTTP. No connection is held, so nothing needs ending.
 * The time limit covers connecting and querying together, as one request does both.
 */
export function openRacingReads(config: RacingDbConfig, options: { startupOptions?: string } = {}): RacingReads {
  const fetchOptions: Record<string, unknown> = { [TIMEOUT]: config.PG_CONNECT_TIMEOUT_MS + config.PG_QUERY_TIMEOUT_MS };
  if (config.PG_WS_PROXY) fetchOptions[ENDPOINT] = relaySqlEndpoint(config.PG_WS_PROXY);
  const client = neon(withStartupOptions(config.DATABASE_URL, options.startupOptions), { fetchOptions, disableWarningInBrowsers: true });
  return drizzleHttp({ client, schema: racingSchema });
}

/** Puts a racing database handle for one-shot reads (HTTP, see openRacingReads) on `c.var.racing`. */
export function racingReads(options: { startupOptions?: string } = {}): MiddlewareHandler<{ Variables: RacingReadsVariables }> {
  return async (c, next) => {
    c.set('racing', openRacingReads(parseConfig(racingDbConfigSchema, c.env), options));
    await next();
  };
}

// ——— Typed reads ———
//
// Reads that drizzle's query builder cannot express as one statement (JSON aggregates, window
// functions, CTEs kept for their plans) stay hand-written, and each declares the zod schema of its
// rows: the rows are parsed through it, so their types are checked where they enter, not assumed.
// A row that does not match is a RowShapeError (a defect: the schema and the statement disagree),
// which the services answer as any unexpected error, a logged 500.

/** A row of a statement that does not have the shape the statement declares. */
export class RowShapeError extends Error {
  constructor(
    readonly statement: string,
    readonly rowIndex: number,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    const first = issues[0];
    const where = first && first.path.length ? first.path.map(String).join('.') : 'row';
    super(`Row ${rowIndex} of ${statement} does not match its schema: ${where}: ${first?.message ?? 'invalid'}`);
    this.name = 'RowShapeError';
  }
}

/** The zod schema of one row of a statement. */
export type RowSchema = z.ZodType;

/** Every row parsed through `schema`; the first that fails is a RowShapeError naming `statement`. */
export function parseRows<S extends RowSchema>(statement: string, schema: S, rows: readonly unknown[]): z.output<S>[] {
  const out: z.output<S>[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const parsed = schema.safeParse(rows[i]);
    if (!parsed.success) throw new RowShapeError(statement, i, parsed.error.issues);
    out[i] = parsed.data;
  }
  return out;
}

/** The one row of a statement that always yields exactly one (a select of sub-selects). */
export function parseOne<S extends RowSchema>(statement: string, schema: S, rows: readonly unknown[]): z.output<S> {
  if (rows.length !== 1)
    throw new RowShapeError(statement, rows.length, [
      { code: 'custom', path: [], message: `expected one row, got ${rows.length}`, input: rows },
    ]);
  return parseRows(statement, schema, rows)[0]!;
}

/** A hand-written statement (drizzle `sql` template) with its name and the schema of its rows. */
export interface TypedSql<S extends RowSchema> {
  name: string;
  row: S;
  sql: SQL;
}

export const typedSql = <S extends RowSchema>(name: string, row: S, query: SQL): TypedSql<S> => ({ name, row, sql: query });

/** The rows of a typed statement over the HTTP read path, each checked against its schema. */
export async function selectRows<S extends RowSchema>(db: RacingReads, query: TypedSql<S>): Promise<z.output<S>[]> {
  return parseRows(query.name, query.row, (await db.execute(query.sql)).rows);
}

/** The single row of a typed statement that always yields one. */
export async function selectOne<S extends RowSchema>(db: RacingReads, query: TypedSql<S>): Promise<z.output<S>> {
  return parseOne(query.name, query.row, (await db.execute(query.sql)).rows);
}

/** A hand-written parameterised statement ($1, $2, …) with its name and the schema of its rows. */
export interface TextStatement<S extends RowSchema = RowSchema> {
  name: string;
  text: string;
  params?: unknown[];
  row: S;
}

/** The rows of one parameterised statement over HTTP, each checked against its schema. */
export async function readRows<S extends RowSchema>(db: RacingReads, statement: TextStatement<S>): Promise<z.output<S>[]> {
  return parseRows(statement.name, statement.row, await db.$client.query(statement.text, statement.params ?? []));
}

/**
 * Several parameterised statements as one non-interactive transaction, in one round trip: the
 * rows of each, in order, each checked against its statement's schema.
 */
export async function readBatch<const T extends readonly TextStatement[]>(
  db: RacingReads,
  statements: T,
): Promise<{ -readonly [K in keyof T]: z.output<T[K]['row']>[] }> {
  const sql = db.$client;
  const results: unknown[][] = await sql.transaction(statements.map(({ text, params }) => sql.query(text, params ?? [])));
  // Each element is parsed by its own statement's schema; `map` only loses the tuple's per-index types.
  return statements.map((s, i) => parseRows(s.name, s.row, results[i] ?? [])) as { -readonly [K in keyof T]: z.output<T[K]['row']>[] };
}

// Column schemas for hand-written rows, as the HTTP driver hands values over: int2/int4 as numbers,
// int8 and numeric as their text (numbers inside JSON), dates and timestamps as text.

/** An int2/int4 column (or one inside JSON). */
export const pgInt = z.number().int();
/** A numeric column: its text as a column, a number inside JSON; either way a number here. */
export const pgNumeric = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);
/** A count or other int8: its text as a column, a number inside JSON. */
export const pgCount = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);
/** A date as `YYYY-MM-DD` (`date::text` or to_char). */
export const pgDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export { racingSchema };
