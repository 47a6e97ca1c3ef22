import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Relay, startRelay } from '../../scripts/relay';

let relay: Relay;
let upstream: ReturnType<typeof createServer>;
let upstreamPort: number;
beforeAll(async () => {
  // A server that, like the embedded one, never closes on Terminate by itself.
  upstream = createServer((socket) => socket.on('end', () => upstreamEnded()).on('data', () => {}));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
  upstreamPort = (upstream.address() as { port: number }).port;
  relay = await startRelay({ allow: ['127.0.0.1:1', `127.0.0.1:${upstreamPort}`] });
});
let upstreamEnded: () => void = () => {};
afterAll(async () => {
  await relay.close();
  upstream.close();
});

function open(path: string): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${relay.address}${path}`);
    ws.on('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.on('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.on('error', () => resolve({ opened: false }));
  });
}

describe('WebSocket relay', () => {
  it('refuses a plain HTTP request with 426', async () => {
    const res = await fetch(relay.address.replace('ws:', 'http:') + '/v1');
    expect(res.status).toBe(426);
  });

  it.each(['/v1', '/v1?address=nohost', '/v1?address=host:99999', '/other?address=127.0.0.1:5432', '/v1?address=a b:1'])(
    'refuses a malformed target %s',
    async (path) => {
      expect(await open(path)).toEqual({ opened: false, status: 400 });
    },
  );

  it('accepts the wsproxy form and closes when the target refuses', async () => {
    const closed = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${relay.address}/v1?address=127.0.0.1:1`);
      ws.on('close', (code) => resolve(code));
      ws.on('error', () => {});
    });
    expect(closed).toBe(1011);
  });

  it('half-closes the upstream after a Terminate message, as PostgreSQL itself would close', async () => {
    const ended = new Promise<void>((resolve) => (upstreamEnded = resolve));
    const ws = new WebSocket(`${relay.address}/v1?address=127.0.0.1:${upstreamPort}`);
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(Buffer.from([0x58, 0, 0, 0, 4]));
    await ended;
    await closed;
  });
});
