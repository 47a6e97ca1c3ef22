import { Client, Pool } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { parseConfig } from './config';
import * as racingSchema from './racing/schema';

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
const withDriverErrors = (callback: Callback): Callback => (err, ...rest) => callback(err ? asDriverError(err) : err, ...rest);

const clientClasses = new Map<string, typeof Client>();

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

/** The rows of one raw SQL statement on the racing database, typed by the caller. */
export async function queryRows<T = Record<string, unknown>>(db: RacingDb, query: SQL): Promise<T[]> {
  return (await db.execute(query)).rows as T[];
}

export { racingSchema };
