import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Plain HTTP/1.1 to a local Worker on one kept-alive connection, as traffic reaches an isolate.
 * The bench measures through this rather than wrangler's `worker.fetch()` (Miniflare's
 * `dispatchFetch`), which costs several milliseconds a request of its own (`npm run bench -- platform`).
 */
export function keepAliveClient(origin: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(origin);
  return {
    send,
    /** The answer to a request that must succeed: anything but 200 throws with the path, the status and the body. */
    ok,
    /** The JSON body of a request that must succeed (see `ok`). */
    json: async <T = unknown>(path: string, init: SendOptions = {}): Promise<T> => JSON.parse((await ok(path, init)).text) as T,
    close: () => agent.destroy(),
  };

  async function send(path: string, init: SendOptions = {}): Promise<HttpAnswer> {
    try {
      return await once(path, init);
    } catch (err) {
      // The server closed the kept-alive connection while it sat idle (between sections): once more on a new one.
      if ((err as { code?: string }).code === 'ECONNRESET' && (init.method ?? 'GET') === 'GET') return once(path, init);
      throw err;
    }
  }

  async function ok(path: string, init: SendOptions = {}): Promise<HttpAnswer> {
    const answer = await send(path, init);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    return answer;
  }

  function once(path: string, init: SendOptions): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...init.headers };
      if (init.host) headers.host = init.host;
      if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
      const req = request({ agent, host: base.hostname, port: base.port, path, method: init.method ?? 'GET', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init.body);
    });
  }
}

type SendOptions = { method?: string; headers?: Record<string, string>; body?: string; host?: string };
