import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { WebSocketServer } from 'ws';

/** Bytes queued on a WebSocket above which the relay stops reading its upstream socket, and below which it reads again. */
const WS_HIGH_WATER = 4 * 1024 * 1024;
const WS_LOW_WATER = 1024 * 1024;

export type Relay = { port: number; /** what Workers get as PG_WS_PROXY */ address: string; close(): Promise<void> };

/**
 * A WebSocket → TCP relay speaking Neon's wsproxy convention (`/v1?address=host:port`), so the
 * serverless driver inside workerd reaches any TCP Postgres, embedded or real. Binds loopback only.
 */
export async function startRelay(options: { port?: number; host?: string } = {}): Promise<Relay> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required: /v1?address=host:port\n');
  });
  const wss = new WebSocketServer({ noServer: true });

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    const target = parseAddress(url.pathname, url.searchParams.get('address'));
    if (!target) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nexpected /v1?address=host:port\n');
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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
