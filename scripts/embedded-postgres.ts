import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export type EmbeddedPostgres = { port: number; url: string; close(): Promise<void> };

/**
 * PGlite behind a Postgres wire-protocol socket. `dataDir` persists (dev); without it the
 * database lives in memory (tests). PGlite runs one query at a time; the socket server
 * multiplexes several client connections onto it.
 */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number; maxConnections?: number } = {},
): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ?? 'memory://');
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 16,
  });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    port,
    // PGlite accepts any password; the URL carries one so clients that insist on it are satisfied.
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
