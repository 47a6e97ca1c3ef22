import { request } from 'node:http';
import { neon, neonConfig, NeonDbError } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { type Relay, startRelay } from '../../scripts/relay';
import { allowList } from '../../scripts/relay-http';

// The relay's HTTP path answers the serverless driver's own `neon()` client (the production code
// path) against the test run's racing database, and both paths reach allow-listed upstreams only.

const databaseUrl = inject('racingDatabaseUrl');
let relay: Relay;
beforeAll(async () => {
  relay = await startRelay({ allow: [databaseUrl, '127.0.0.1:1'] });
  neonConfig.fetchEndpoint = () => `${relay.address.replace('ws:', 'http:')}/sql`;
});
afterAll(() => relay.close());

const sqlEndpoint = () => `${relay.address.replace('ws:', 'http:')}/sql`;
const post = (body: string, headers: Record<string, string>) =>
  fetch(sqlEndpoint(), { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

describe("the driver's HTTP query protocol", () => {
  it('answers a parameterised statement with the types the driver parses', async () => {
    const sql = neon(databaseUrl);
    const [row] = await sql.query(
      `select $1::int + 1 as n, 2.50::numeric as price, true as flag, null::text as nothing, '{"a":[1]}'::jsonb as doc,
              $2::text as echo, (select count(*) from meetings) > 0 as has_meetings`,
      [41, 'Flemington %_ "é"'],
    );
    expect(row).toEqual({
      n: 42,
      price: '2.50',
      flag: true,
      nothing: null,
      doc: { a: [1] },
      echo: 'Flemington %_ "é"',
      has_meetings: true,
    });
  });

  it('runs a batch as one transaction: all or nothing', async () => {
    const sql = neon(databaseUrl);
    const [, , rows] = await sql.transaction([
      sql`create temp table relay_probe (v int) on commit drop`,
      sql`insert into relay_probe values (1), (2)`,
      sql`select sum(v)::int as total from relay_probe`,
    ]);
    expect(rows).toEqual([{ total: 3 }]);
    const failed = sql.transaction([sql`create temp table relay_probe2 (v int)`, sql`select 1/0`]);
    await expect(failed).rejects.toMatchObject({ code: '22012' });
    await expect(sql`select count(*) from relay_probe2`).rejects.toMatchObject({ code: '42P01' });
  });

  it('honours a read-only batch', async () => {
    const sql = neon(databaseUrl);
    await expect(sql.transaction([sql`create temp table relay_ro (v int)`], { readOnly: true })).rejects.toMatchObject({ code: '25006' });
  });

  it('reports a query error as the driver expects: 400 with the SQLSTATE and its fields', async () => {
    const sql = neon(databaseUrl);
    const err = await sql`select * from no_such_table`.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeonDbError);
    expect(err).toMatchObject({ code: '42P01', severity: 'ERROR' });
  });

  it('answers 503 when the allow-listed upstream cannot be reached', async () => {
    const res = await post(JSON.stringify({ query: 'select 1', params: [] }), {
      'Neon-Connection-String': 'postgres://u:p@127.0.0.1:1/db',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('upstream unavailable') });
  });

  it('refuses malformed requests with 400 and a body over the cap with 413, chunked or not', async () => {
    const target = { 'Neon-Connection-String': databaseUrl };
    expect((await post('{"query": 1}', target)).status).toBe(400);
    expect((await post('not json', target)).status).toBe(400);
    expect((await post('{"queries": []}', target)).status).toBe(400);
    expect((await post('{"query": "select 1"}', {})).status).toBe(400);
    expect((await post('{"query": "select 1"}', { 'Neon-Connection-String': 'mysql://x@127.0.0.1/db' })).status).toBe(400);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(sqlEndpoint(), { method: 'POST', headers: { ...target, 'Transfer-Encoding': 'chunked' } }, (res) =>
        resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 11; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
  });
});

describe('upstream allow-list', () => {
  it('the HTTP path refuses an upstream not on the list with 403', async () => {
    const res = await post(JSON.stringify({ query: 'select 1', params: [] }), {
      'Neon-Connection-String': 'postgres://u:p@127.0.0.2:5432/db',
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: "upstream 127.0.0.2:5432 is not on the relay's allow-list" });
  });

  it('the WebSocket path refuses an upstream not on the list with 403', async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const ws = new WebSocket(`${relay.address}/v1?address=127.0.0.2:5432`);
      ws.on('open', () => resolve(101));
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('error', () => resolve(undefined));
    });
    expect(status).toBe(403);
  });

  it('reads host:port pairs and postgres URLs (port 5432 by default), and adds RELAY_ALLOWED_UPSTREAMS', async () => {
    const list = allowList(['postgres://u:p@db.example:6543/x', 'postgresql://u@Other.Example/x', '[::1]:5432', ' ', 'localhost:1']);
    expect(list.list).toEqual(['db.example:6543', 'other.example:5432', '::1:5432', 'localhost:1']);
    expect(list.has('db.example', 6543)).toBe(true);
    expect(list.has('db.example', 5432)).toBe(false);
    expect(list.has('[::1]', 5432)).toBe(true);
    expect(() => allowList(['db.example'])).toThrow(/host:port/);
    expect(() => allowList(['db.example:70000'])).toThrow(/host:port/);

    process.env.RELAY_ALLOWED_UPSTREAMS = '10.0.0.9:5432, 10.0.0.10:5433';
    try {
      const withEnv = await startRelay({ allow: ['127.0.0.1:1'] });
      expect(withEnv.allowed).toEqual(['127.0.0.1:1', '10.0.0.9:5432', '10.0.0.10:5433']);
      await withEnv.close();
    } finally {
      delete process.env.RELAY_ALLOWED_UPSTREAMS;
    }
    const none = await startRelay();
    expect(none.allowed).toEqual([]);
    await none.close();
  });
});
