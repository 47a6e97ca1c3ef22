// One embedded database on a thread of its own (started by embedded-postgres.ts). PGlite runs each
// statement to its end on the JS thread that owns it, and no statement timeout interrupts it: here
// a long one holds this thread only, not the process serving the relay, the other database and
// the Graph stand-in. Plain JavaScript, so the thread loads the same under tsx and vitest's Node.
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SessionQueue } from './embedded-postgres-queue.mjs';

const { dataDir, port, maxConnections } = workerData;
if (dataDir) mkdirSync(dataDir, { recursive: true });
const db = await PGlite.create(dataDir ?? 'memory://');
const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections });
// The server's own queue keeps a connection's turn only inside a transaction, so another one's
// messages could run in the middle of its Parse … Sync group: ours keeps it until the group ends.
server.queryQueue = new SessionQueue(db);
try {
  await server.start();
} catch (error) {
  await db.close();
  throw error;
}
parentPort.postMessage({ type: 'ready', port: Number(server.getServerConn().split(':').pop()) });
// The one message the parent sends is "close": stop serving, close the database, end the thread.
parentPort.once('message', async () => {
  await server.stop();
  await db.close();
  parentPort.close();
});
