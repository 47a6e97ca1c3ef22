import { type Socket, connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres';

// An embedded database has one session, which every client connection shares in turns
// (scripts/embedded-postgres-queue.mjs). A connection keeps its turn until what it started ends —
// a Parse … Sync group, a transaction — so concurrent clients never bind to each other's
// statements or run inside each other's transactions; one that goes away mid-way frees the session.

let db: EmbeddedPostgres;
const clients: pg.Client[] = [];

beforeAll(async () => {
  db = await startEmbeddedPostgres();
  const admin = await client();
  await admin.query('CREATE TABLE turns (n integer)');
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await db?.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

/**
 * A statement with `n` numbers to add (so a Bind that met another statement's Parse would be
 * refused) and a long text, which makes its Bind arrive in several reads of the socket: its answer.
 */
function sumOf(n: number, base: number): { text: string; values: (number | string)[]; sum: number } {
  const numbers = Array.from({ length: n }, (_, i) => base + i);
  const text = `SELECT ${numbers.map((_, i) => `$${i + 1}::int`).join(' + ')} + 0 * length($${n + 1}::text) AS sum`;
  return { text, values: [...numbers, 'x'.repeat(200_000)], sum: numbers.reduce((a, b) => a + b, 0) };
}

/** Resolves with `promise`'s value, or with 'pending' if it has not settled after `ms`. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);
}

describe('connections sharing an embedded database', () => {
  it('run parameterised statements of different shapes concurrently, each bound to its own', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => client()));
    const answers = await Promise.all(
      many.map(async (c, k) => {
        const wrong: string[] = [];
        for (let round = 0; round < 30; round++) {
          const { text, values, sum } = sumOf(1 + ((k * 5 + round) % 12), k * 1000 + round);
          const [row] = (await c.query(text, values)).rows as { sum: number }[];
          if (row?.sum !== sum) wrong.push(`${k}/${round}: ${row?.sum} ≠ ${sum}`);
        }
        return wrong;
      }),
    );
    expect(answers.flat()).toEqual([]);
  }, 60_000);

  it('hold another connection back while one is in a transaction, and let it go at COMMIT', async () => {
    const [writer, reader] = await Promise.all([client(), client()]);
    await writer.query('BEGIN');
    await writer.query('INSERT INTO turns VALUES ($1)', [1]);
    const read = reader.query('SELECT count(*)::int AS n FROM turns');
    expect(await settledWithin(read, 300)).toBe('pending');
    await writer.query('COMMIT');
    expect((await read).rows).toEqual([{ n: 1 }]);
  }, 30_000);

  it('end the transaction of a connection that goes away, so the others go on without its rows', async () => {
    const [writer, reader] = await Promise.all([client(), client()]);
    await writer.query('BEGIN');
    await writer.query('INSERT INTO turns VALUES ($1)', [2]);
    const read = reader.query('SELECT count(*)::int AS n FROM turns WHERE n = 2');
    expect(await settledWithin(read, 300)).toBe('pending');
    (writer as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
    expect((await read).rows).toEqual([{ n: 0 }]);
  }, 30_000);

  it('free the session when a connection goes away between its Parse and its Sync', async () => {
    const [socket, other] = await Promise.all([rawSession(), client()]);
    // A Parse with no Sync after it: the group is open, the connection holds its turn.
    socket.write(message('P', Buffer.concat([cstring(''), cstring('SELECT $1::int'), Buffer.from([0, 0])])));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answer = other.query('SELECT 7 AS n');
    expect(await settledWithin(answer, 300)).toBe('pending');
    socket.destroy();
    expect((await answer).rows).toEqual([{ n: 7 }]);
  }, 30_000);
});

function cstring(text: string): Buffer {
  return Buffer.from(`${text}\0`, 'utf8');
}

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A connection started by hand (protocol 3.0), once the server says it is ready for a query. */
function rawSession(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(db.port, '127.0.0.1');
    socket.on('error', reject);
    socket.on('connect', () => {
      const params = Buffer.concat([cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.from([0])]);
      const head = Buffer.alloc(8);
      head.writeInt32BE(params.length + 8, 0);
      head.writeInt32BE(196608, 4);
      socket.write(Buffer.concat([head, params]));
    });
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      // AuthenticationCleartextPassword: answer with a password message.
      if (seen.length >= 9 && seen[0] === 0x52 && seen.readInt32BE(5) === 3 && !socket.readableEnded) {
        seen = seen.subarray(9);
        socket.write(message('p', cstring('postgres')));
      }
      if (seen.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) {
        socket.off('data', onData);
        resolve(socket);
      }
    };
    socket.on('data', onData);
  });
}
