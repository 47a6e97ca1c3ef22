import { Worker } from 'node:worker_threads';

export type EmbeddedPostgres = { port: number; url: string; close(): Promise<void> };

/** How long close() waits for a statement still running before ending the thread mid-statement. */
const CLOSE_GRACE_MS = 5_000;

/**
 * PGlite behind a Postgres wire-protocol socket, on a worker thread of its own
 * (embedded-postgres-thread.mjs). `dataDir` persists (dev); without it the database lives in
 * memory (tests). PGlite runs one statement at a time, to its end: the socket server multiplexes
 * several client connections onto it, and a long statement holds that thread only, so the
 * process that started it (the relay, the other database, the Graph stand-in) keeps answering.
 * The thread ends with its process, however the process ends.
 */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number; maxConnections?: number } = {},
): Promise<EmbeddedPostgres> {
  const thread = new Worker(new URL('./embedded-postgres-thread.mjs', import.meta.url), {
    workerData: { dataDir: options.dataDir, port: options.port ?? 0, maxConnections: options.maxConnections ?? 16 },
  });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('message', (message: unknown) => {
      if (isReady(message)) resolve(message.port);
      else reject(new Error(`embedded PostgreSQL: unexpected message ${JSON.stringify(message)}`));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`embedded PostgreSQL stopped while starting (thread exit code ${code})`)));
  });
  thread.on('error', (error) => console.error(`✗ embedded PostgreSQL on port ${port} failed: ${error.message}`));
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  return {
    port,
    // PGlite accepts any password; the URL carries one so clients that insist on it are satisfied.
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      thread.postMessage('close');
      const timer = setTimeout(() => void thread.terminate(), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

function isReady(message: unknown): message is { type: 'ready'; port: number } {
  return (
    typeof message === 'object' &&
    message !== null &&
    Reflect.get(message, 'type') === 'ready' &&
    typeof Reflect.get(message, 'port') === 'number'
  );
}
