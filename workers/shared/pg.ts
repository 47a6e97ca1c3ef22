import { Pool, neonConfig } from '@neondatabase/serverless';
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
 * Opens a per-request pool: Workers cannot share I/O objects between requests, so the pool is
 * created here and must be ended by the caller (the middleware below does it with waitUntil).
 */
export function openRacingDb(config: RacingDbConfig): RacingDb {
  if (config.PG_WS_PROXY) {
    // Neon's driver keeps these process-wide; they are derived from config, so every request sets the same.
    const relay = config.PG_WS_PROXY.replace(/^wss?:\/\//, '').replace(/\/+$/, '');
    const path = relay.includes('/') ? relay : `${relay}/v1`;
    neonConfig.wsProxy = (host, port) => `${path}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = config.PG_WS_PROXY.startsWith('wss://');
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  const pool = new Pool({
    connectionString: config.DATABASE_URL,
    connectionTimeoutMillis: config.PG_CONNECT_TIMEOUT_MS,
    query_timeout: config.PG_QUERY_TIMEOUT_MS,
  });
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

export { racingSchema };
