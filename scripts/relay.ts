import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { WebSocketServer } from 'ws';
import { allowList, type SqlOverHttp, sqlOverHttp } from './relay-http.ts';

/** Bytes queued on a WebSocket above which the relay stops reading its upstream socket, and below which it reads again. */
const WS_HIGH_WATER = 4 * 1024 * 1024;
const WS_LOW_WATER = 1024 * 1024;

export type Relay = {
  port: number;
  /** what Workers get as PG_WS_PROXY (WebSocket at `/v1`, the driver's HTTP queries at `/sql`) */
  address: string;
  /** the upstream `host:port` pairs this relay may reach */
  allowed: readonly string[];
  close(): Promise<void>;
};

export type RelayOptions = {
  port?: number;
  host?: string;
  /**
   * Upstream databases the relay may reach, as `host:port` or postgres:// URLs; added to those in
   * RELAY_ALLOWED_UPSTREAMS (comma-separated). Nothing else is reachable, on either path.
   */
  allow?: readonly string[];
  /** How long the HTTP path waits for a new upstream connection (default 5 s). */
  connectTimeoutMs?: number;
};

/**
 * A relay in front of TCP Postgres servers, embedded or real, for the serverless driver inside
 * workerd: WebSocket → TCP in Neon's wsproxy convention (`/v1?address=host:port`), and the driver's
 * HTTP query protocol (`POST /sql`, see relay-http.ts) on warm connections of its own. Binds
 * loopback only and reaches allow-listed upstreams only.
 */
export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const host = options.host ?? '127.0.0.1';
  const allowed = allowList([...(options.allow ?? []), ...(process.env.RELAY_ALLOWED_UPSTREAMS ?? '').split(',')]);
  const http: SqlOverHttp = sqlOverHttp({ allowed, connectTimeoutMs: options.connectTimeoutMs ?? 5_000 });
  const server: Server = createServer((req, res) => {
    if (http.handles(req)) return void http.handle(req, res);
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required: /v1?address=host:port\n');
  });
  // Idle kept-alive connections stay open longer than a client keeps them (undici: 4 s), so a
  // client never sends a request on a socket the server is closing at that moment (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  const wss = new WebSocketServer({ noServer: true });

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    const target = parseAddress(url.pathname, url.searchParams.get('address'));
    if (!target) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nexpected /v1?address=host:port\n');
      return;
    }
    if (!allowed.has(target.host, target.port)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\nupstream not on the relay's allow-list\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const tcp = connect(target.port, target.host);
      tcp.setNoDelay(true);
      // Close the WebSocket with a reason (1011) rather than dropping it, so the driver reports it.
      const closeBoth = () => {
        tcp.destroy();
        if (ws.readyState === ws.OPEN) ws.close(1011, 'upstream closed');
      };
      tcp.on('error', closeBoth);
      tcp.on('close', closeBoth);
      ws.on('error', closeBoth);
      ws.on('close', closeBoth);
      // Each message is written to the socket as it came and each socket read sent as one binary
      // message, without stream wrappers in between (no re-chunking, no copies); each side pauses
      // the other while its own buffer is full.
      ws.on('message', (data: Buffer) => {
        if (!tcp.write(data)) {
          ws.pause();
          tcp.once('drain', () => ws.resume());
        }
        // PostgreSQL closes a connection after the client's Terminate message; the embedded server
        // (pglite-socket) does not, and the serverless driver waits for that close, so every
        // pooled connection it ends would hold a server slot for good. Half-close after Terminate.
        if (isTerminate(data)) setImmediate(() => tcp.end());
      });
      tcp.on('data', (chunk: Buffer) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(chunk, { binary: true }, () => {
          if (tcp.isPaused() && ws.bufferedAmount < WS_LOW_WATER) tcp.resume();
        });
        if (ws.bufferedAmount > WS_HIGH_WATER) tcp.pause();
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('relay: no TCP address');
  return {
    port: address.port,
    address: `ws://${host}:${address.port}`,
    allowed: allowed.list,
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await http.close();
    },
  };
}

function parseAddress(pathname: string, address: string | null): { host: string; port: number } | undefined {
  if (!/^\/v[12]\/?$/.test(pathname) || !address) return undefined;
  const match = /^(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d{1,5})$/.exec(address);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** The frontend Terminate message: 'X' and a length of 4. */
function isTerminate(data: unknown): boolean {
  return Buffer.isBuffer(data) && data.length === 5 && data[0] === 0x58 && data.readInt32BE(1) === 4;
}
