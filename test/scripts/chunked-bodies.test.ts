import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWorker } from '../../scripts/local-worker';

// Oversized bodies sent chunked (no Content-Length) to real local Workers, over real HTTP
// connections as a client sends them: the answer is 413, and the Worker still answers the next
// request on a new connection (before the shared body reader, the next request hung or the
// Worker restarted mid-request).

type Local = Awaited<ReturnType<typeof startLocalWorker>>;

const DEV_DATABASE = 'postgres://postgres:postgres@127.0.0.1:1/postgres';

/** Sends `size` bytes in 16 KiB chunks with Transfer-Encoding: chunked; resolves with the status. */
function postChunked(origin: string, path: string, size: number, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, origin),
      { method: 'POST', headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to POST ${path} within 20 s`)));
    req.on('error', (error) => {
      // The server may answer 413 and close before the whole body is written.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      reject(error);
    });
    const chunk = Buffer.alloc(16 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** A plain GET on a new connection, failing when no answer comes within 10 s. */
async function getWithin(origin: string, path: string): Promise<number> {
  const res = await fetch(new URL(path, origin), { signal: AbortSignal.timeout(10_000), headers: { connection: 'close' } });
  await res.arrayBuffer();
  return res.status;
}

describe('oversized chunked bodies against real local Workers', () => {
  let stats: Local;
  let form: Local;
  let statsOrigin: string;
  let formOrigin: string;

  beforeAll(async () => {
    [stats, form] = await Promise.all([
      startLocalWorker({
        config: 'workers/stats/wrangler.toml',
        logLevel: 'error',
        vars: {
          DATABASE_URL: DEV_DATABASE,
          STATIC_API_TOKEN: 'chunked-test-token',
          ADMIN_USERNAME: 'admin',
          ADMIN_PASSWORD: 'chunked-test-password',
        },
      }),
      startLocalWorker({
        config: 'workers/form/wrangler.toml',
        logLevel: 'error',
        vars: {
          DATABASE_URL: DEV_DATABASE,
          ADMIN_USERNAME: 'admin',
          ADMIN_PASSWORD: 'chunked-test-password',
          SESSION_SECRET: 'chunked-test-session-secret-0123456789abcdef',
        },
      }),
    ]);
    statsOrigin = (await stats.url).origin;
    formOrigin = (await form.url).origin;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stats?.dispose(), form?.dispose()]);
  });

  it.each([200 * 1024, 2 * 1024 * 1024])(
    'stats POST /login with %i chunked bytes is 413, and the next request answers',
    async (size) => {
      expect(await postChunked(statsOrigin, '/login', size, 'application/json')).toBe(413);
      expect(await getWithin(statsOrigin, '/login')).toBe(200);
    },
    60_000,
  );

  it.each([20 * 1024, 2 * 1024 * 1024])(
    'form POST /form/ with %i chunked bytes is 413, and the next request answers',
    async (size) => {
      expect(await postChunked(formOrigin, '/form/', size, 'application/x-www-form-urlencoded')).toBe(413);
      expect(await getWithin(formOrigin, '/form/')).toBe(200);
    },
    60_000,
  );
});
