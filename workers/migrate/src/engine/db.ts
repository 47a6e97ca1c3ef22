import { type RacingDbConfig, openRacingDb } from '../../../shared/pg';
import { type Connection, type DbTarget, type EngineEnv, HostNotAllowedError } from './types';

// The engine's two databases through the shared driver set-up (relay, error wrapping): raw
// parameterised SQL, one pool per use, ended by the caller.

export type Row = Record<string, unknown>;

/** Parameterised SQL on one database; `transaction` runs on one connection between BEGIN and COMMIT. */
export interface Sql {
  query<T extends Row = Row>(text: string, values?: unknown[]): Promise<T[]>;
  transaction<T>(work: (tx: Sql) => Promise<T>, options?: { readOnly?: boolean; statementTimeoutMs?: number }): Promise<T>;
  end(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 120_000;

/** `host` or `host:port` entries, comma-separated; an empty list allows nothing. */
export function isHostAllowed(allowed: string | undefined, host: string, port: number): boolean {
  const wanted = host.trim().toLowerCase();
  return (allowed ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
    .some((entry) => {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
      if (!match) return false;
      const entryHost = match[1]!.replace(/^\[|\]$/g, '');
      return entryHost === wanted && (match[2] === undefined || Number(match[2]) === port);
    });
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

type Queryable = { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

function sqlOn(client: Queryable, open: () => Promise<{ client: Queryable; release(): void }>, end: () => Promise<void>): Sql {
  const sql: Sql = {
    async query<T extends Row>(text: string, values?: unknown[]) {
      return (await client.query(text, values)).rows as T[];
    },
    async transaction(work, options = {}) {
      const conn = await open();
      let broken = false;
      try {
        await conn.client.query(options.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
        if (options.statementTimeoutMs) {
          await conn.client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}`);
        }
        const tx = sqlOn(conn.client, () => Promise.resolve({ client: conn.client, release: () => {} }), () => Promise.resolve());
        const result = await work(tx);
        await conn.client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await conn.client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw error;
      } finally {
        // A connection whose rollback failed is not handed back to the pool.
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

export function openDestination(env: EngineEnv): Sql {
  return openUrl(env, env.DATABASE_URL);
}

/** A source connection, refused before connecting when its host is not allowed. */
export function openSource(env: EngineEnv, conn: Connection): Sql {
  assertHostAllowed(env, conn);
  return openUrl(env, connectionUrl(conn));
}

export function openTarget(env: EngineEnv, target: DbTarget): Sql {
  return target === 'destination' ? openDestination(env) : openSource(env, target);
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

/** A quoted SQL string literal (standard_conforming_strings). */
export function literal(value: string): string {
  if (value.includes('\u0000')) throw new Error('text contains NUL');
  return `'${value.replaceAll("'", "''")}'`;
}

/** The separator of composite source keys in id mappings. */
export const KEY_SEPARATOR = '\u001f';
