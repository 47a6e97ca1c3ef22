import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';

/** The upstream `host:port` pairs a relay may reach. */
export type AllowList = { readonly list: readonly string[]; has(host: string, port: number): boolean };

const hostPort = (host: string, port: number) => `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;

/** Entries are `host:port` or postgres:// URLs (port 5432 when the URL has none); blanks are skipped. */
export function allowList(entries: readonly string[]): AllowList {
  const set = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    if (/^postgres(ql)?:\/\//.test(entry)) {
      const url = new URL(entry);
      set.add(hostPort(url.hostname, Number(url.port || 5432)));
      continue;
    }
    const match = /^(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d{1,5})$/.exec(entry);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535)
      throw new Error(`relay: allow-list entry ${entry} is not host:port or a postgres:// URL`);
    set.add(hostPort(match[1]!, Number(match[2])));
  }
  return { list: [...set], has: (host, port) => set.has(hostPort(host, port)) };
}

export type SqlOverHttp = {
  handles(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
};

/** Largest request body the HTTP path reads (a batch of statements with their parameters). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Warm connections kept per upstream connection string. */
const POOL_SIZE = 4;

type Statement = { query: string; params: unknown[] };

/** Every value as the server's text, as the driver asks with `Neon-Raw-Text-Output: true`. */
const rawText = { getTypeParser: () => (value: string) => value };

// The driver's `Neon-Batch-Isolation-Level` values.
const ISOLATION: Record<string, string> = {
  ReadUncommitted: 'read uncommitted',
  ReadCommitted: 'read committed',
  RepeatableRead: 'repeatable read',
  Serializable: 'serializable',
};

// The fields of a PostgreSQL error that the driver copies onto its NeonDbError.
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The serverless driver's HTTP query protocol (what `neon()` sends to Neon's `/sql` endpoint):
 * `POST /sql` with the target in `Neon-Connection-String` and `{query, params}` or
 * `{queries: [...]}` (a non-interactive transaction) as JSON; rows come back as arrays of text with
 * the fields' type ids, and a PostgreSQL error as 400 with its fields. The relay answers it on warm
 * connections of its own, one small pool per connection string, so a Worker's read costs one
 * local round trip and no connection set-up, as it does against Neon. An upstream that cannot be
 * reached is a 503.
 */
export function sqlOverHttp(options: { allowed: AllowList; connectTimeoutMs: number }): SqlOverHttp {
  const pools = new Map<string, pg.Pool>();

  function poolFor(connectionString: string): pg.Pool {
    let pool = pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({
        connectionString,
        max: POOL_SIZE,
        idleTimeoutMillis: 60_000,
        connectionTimeoutMillis: options.connectTimeoutMs,
      });
      // An idle connection the server drops is simply replaced on the next query.
      pool.on('error', () => {});
      pools.set(connectionString, pool);
    }
    return pool;
  }

  async function run(client: pg.Pool | pg.PoolClient, statement: Statement) {
    const result = await client.query({ text: statement.query, values: statement.params, rowMode: 'array', types: rawText });
    return {
      command: result.command,
      rowCount: result.rowCount,
      rows: result.rows,
      fields: result.fields.map((f) => ({
        name: f.name,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeID: f.dataTypeID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: 'text',
      })),
      rowAsArray: true,
    };
  }

  async function batch(pool: pg.Pool, statements: Statement[], req: IncomingMessage) {
    const isolation = header(req, 'neon-batch-isolation-level');
    const readOnly = header(req, 'neon-batch-read-only');
    const deferrable = header(req, 'neon-batch-deferrable');
    if (isolation !== undefined && !(isolation in ISOLATION)) throw new RequestError(400, `unknown isolation level ${isolation}`);
    const begin = [
      'begin',
      isolation ? `isolation level ${ISOLATION[isolation]}` : '',
      readOnly === 'true' ? 'read only' : '',
      deferrable === 'true' ? 'deferrable' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out connection the server drops (a shutdown) emits 'error': unheard, it would end the relay's process.
    const dropped = (err: Error) => void (broken = err);
    client.on('error', dropped);
    try {
      await client.query(begin);
      const results = [];
      for (const statement of statements) results.push(await run(client, statement));
      await client.query('commit');
      return { results };
    } catch (err) {
      if (isServerError(err)) await client.query('rollback').catch(() => {});
      else broken = err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      client.removeListener('error', dropped);
      client.release(broken);
    }
  }

  return {
    handles: (req) => req.method === 'POST' && new URL(req.url ?? '/', 'http://relay').pathname.replace(/\/+$/, '') === '/sql',

    async handle(req, res) {
      try {
        const target = targetOf(req);
        if (!options.allowed.has(target.host, target.port))
          throw new RequestError(403, `upstream ${target.host}:${target.port} is not on the relay's allow-list`);
        const body = parseBody(await readBody(req));
        const pool = poolFor(target.connectionString);
        const answer = Array.isArray(body) ? await batch(pool, body, req) : await run(pool, body);
        send(res, 200, answer);
      } catch (err) {
        if (err instanceof RequestError) return send(res, err.status, { message: err.message });
        if (isServerError(err)) {
          const fields = Object.fromEntries(ERROR_FIELDS.map((key) => [key, Reflect.get(err, key)]).filter(([, v]) => v !== undefined));
          return send(res, 400, { message: err.message, ...fields });
        }
        // No connection to the upstream (refused, timed out, dropped): an outage, not a bad query.
        send(res, 503, { message: `upstream unavailable: ${err instanceof Error ? err.message : String(err)}` });
      }
    },

    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((pool) => pool.end().catch(() => {})));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function targetOf(req: IncomingMessage): { connectionString: string; host: string; port: number } {
  const connectionString = header(req, 'neon-connection-string');
  if (!connectionString) throw new RequestError(400, 'missing Neon-Connection-String');
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new RequestError(400, 'Neon-Connection-String is not a URL');
  }
  if (!/^postgres(ql)?:$/.test(url.protocol) || !url.hostname)
    throw new RequestError(400, 'Neon-Connection-String must be a postgres:// URL');
  return { connectionString, host: url.hostname, port: Number(url.port || 5432) };
}

/** The body, read with a byte cap whatever Content-Length says (chunked bodies have none). */
async function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new RequestError(413, `body over ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Past the cap the rest is read and dropped (so the client gets its 413 rather than a reset),
    // up to a point where the connection is simply cut.
    if (size > 4 * MAX_BODY_BYTES) {
      req.destroy();
      throw new RequestError(413, `body over ${MAX_BODY_BYTES} bytes`);
    }
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new RequestError(413, `body over ${MAX_BODY_BYTES} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): Statement | Statement[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestError(400, 'body is not JSON');
  }
  const statement = (value: unknown): Statement => {
    const query = typeof value === 'object' && value !== null ? Reflect.get(value, 'query') : undefined;
    const params = typeof value === 'object' && value !== null ? (Reflect.get(value, 'params') ?? []) : undefined;
    if (typeof query !== 'string' || !Array.isArray(params))
      throw new RequestError(400, 'expected {query, params} or {queries: [{query, params}]}');
    return { query, params };
  };
  const queries = typeof body === 'object' && body !== null ? Reflect.get(body, 'queries') : undefined;
  if (queries !== undefined) {
    if (!Array.isArray(queries) || queries.length === 0) throw new RequestError(400, 'queries must be a non-empty array');
    return queries.map(statement);
  }
  return statement(body);
}

/** An error the server sent (it has a SQLSTATE), as opposed to a failed connection. */
/**
 * An error the server sent about the statement (answered as 400 with its fields). Connection
 * exceptions (class 08) and a server shutting down or starting up (57P01–57P03) are outages instead.
 */
function isServerError(err: unknown): err is Error {
  const code = err instanceof Error ? Reflect.get(err, 'code') : undefined;
  if (typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code))) return false;
  return err instanceof pg.DatabaseError || (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
}

function send(res: ServerResponse, status: number, body: unknown) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}
