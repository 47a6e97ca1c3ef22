import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres';
import { type PasswordFront, startPasswordFront } from '../../scripts/racing/legacy-password';

// The password check in front of the embedded legacy source database: MD5 authentication in the
// startup exchange, then the connection handed over to PGlite (which takes any password).

let db: EmbeddedPostgres;
let front: PasswordFront;
const PASSWORD = 'front-test-password';

beforeAll(async () => {
  db = await startEmbeddedPostgres();
  front = await startPasswordFront({ upstream: { host: '127.0.0.1', port: db.port }, user: 'postgres', password: PASSWORD });
}, 60_000);
afterAll(async () => {
  await front?.close();
  await db?.close();
});

async function tryConnect(
  user: string,
  password: string,
): Promise<{ ok: true; rows: unknown[] } | { ok: false; code: string; message: string }> {
  const client = new pg.Client({ host: '127.0.0.1', port: front.port, user, password, database: 'postgres' });
  try {
    await client.connect();
    const result = await client.query('SELECT $1::int + 1 AS n, current_user AS who', [41]);
    return { ok: true, rows: result.rows };
  } catch (error) {
    return { ok: false, code: String(Reflect.get(error as object, 'code')), message: (error as Error).message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('legacy source password front', () => {
  it('lets the right password through to the database, for several connections at once', async () => {
    expect(await tryConnect('postgres', PASSWORD)).toEqual({ ok: true, rows: [{ n: 42, who: 'postgres' }] });
    const pool = new pg.Pool({ host: '127.0.0.1', port: front.port, user: 'postgres', password: PASSWORD, database: 'postgres', max: 3 });
    try {
      const results = await Promise.all([1, 2, 3, 4, 5].map((i) => pool.query<{ i: number }>('SELECT $1::int AS i', [i])));
      expect(results.map((r) => r.rows[0]!.i)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await pool.end();
    }
  });

  it("refuses a wrong password or another user with PostgreSQL's error (28P01), naming no password", async () => {
    for (const [user, password] of [
      ['postgres', 'wrong-password'],
      ['postgres', ''],
      ['someone', PASSWORD],
    ] as const) {
      const result = await tryConnect(user, password);
      expect(result, `${user}/${password}`).toEqual({
        ok: false,
        code: '28P01',
        message: `password authentication failed for user "${user}"`,
      });
    }
  });

  it('answers an SSL request with N, and refuses a malformed startup packet', async () => {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(front.port, '127.0.0.1', () => {
        const ssl = Buffer.alloc(8);
        ssl.writeInt32BE(8, 0);
        ssl.writeInt32BE(80877103, 4);
        socket.write(ssl);
      });
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data);
      });
      socket.on('error', reject);
    });
    expect(answer.toString('latin1')).toBe('N');
    const refused = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(front.port, '127.0.0.1', () => socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0])));
      socket.on('data', (data) => (text += data.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(refused).toContain('08P01');
  });
});
