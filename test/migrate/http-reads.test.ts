import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openRacing } from './engine-support';
import { type Client, legacyConfigurationForm, signIn } from './helpers';

// The migration app's look-ups (the wizard's connection test, schema and filter test; the meetings
// comparison; the discipline repair preview; an import area's live counts) go over the driver's
// HTTP read path: every statement or batch is one `POST …/sql`, and no WebSocket is opened. These
// tests watch both from inside the isolate.

const LEGACY = legacyConfigurationForm('Reads');

type SqlPost = { queries: string[]; readOnly: boolean };

let operator: Client;
let posts: SqlPost[];
let sockets: string[];
const RealWebSocket = globalThis.WebSocket;

beforeAll(async () => {
  operator = await signIn('readsOperator');
  await operator.page('/Configuration/Create');
  expect((await operator.post('/Configuration/Create', LEGACY)).status).toBe(302);
});

beforeEach(() => {
  posts = [];
  sockets = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname === '/sql') {
      const body = (await request.clone().json()) as { query?: string; queries?: { query: string }[] };
      posts.push({
        queries: (body.queries ?? [{ query: body.query ?? '' }]).map((q) => q.query),
        readOnly: request.headers.get('neon-batch-read-only') === 'true',
      });
    }
    return realFetch(request);
  });
  // The driver opens its WebSocket with the global constructor.
  globalThis.WebSocket = class extends RealWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      // (workerd's constructor takes a string.)
      super(url.toString(), protocols);
      sockets.push(url.toString());
    }
  };
});

afterEach(() => {
  vi.restoreAllMocks();
  globalThis.WebSocket = RealWebSocket;
});

describe('the watch', () => {
  it('sees the WebSocket of a connection the driver opens (copies and writes still use one)', async () => {
    const sql = openRacing();
    try {
      await sql.query('SELECT 1');
    } finally {
      await sql.end();
    }
    expect(sockets).toHaveLength(1);
    expect(posts).toEqual([]);
  });
});

describe('the wizard reads over HTTP', () => {
  it('tests a connection with one statement and no WebSocket', async () => {
    const res = await operator.postJson('/api/configuration/test-connection', { ...LEGACY, Port: Number(LEGACY.Port) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true });
    expect(posts).toEqual([{ queries: ['SELECT version() AS version'], readOnly: false }]);
    expect(sockets).toEqual([]);
  });

  it('reads a table’s schema as one read-only batch of two statements', async () => {
    const res = await operator.get('/api/table/info/trainer');
    expect(res.status).toBe(200);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.readOnly).toBe(true);
    expect(posts[0]!.queries).toHaveLength(2);
    expect(posts[0]!.queries[0]).toMatch(/FROM pg_class/);
    expect(posts[0]!.queries[1]).toMatch(/FROM pg_constraint/);
    expect(sockets).toEqual([]);
  });

  it('reads the schema, then counts a filter in one read-only batch that carries its statement timeout', async () => {
    const res = await operator.postJson('/api/table/test-filter', { TableName: 'trainer', Filter: 'trainer_id > 0', OriginalCount: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, count: expect.any(Number) });
    // The source's schema first (the filter's columns are resolved in it), then the count.
    expect(posts).toHaveLength(2);
    expect(posts.every((p) => p.readOnly)).toBe(true);
    expect(posts[0]!.queries).toHaveLength(2);
    expect(posts[0]!.queries.join('\n')).toMatch(/pg_attribute|pg_constraint/);
    expect(posts[1]!.queries[0]).toMatch(/^SET LOCAL statement_timeout = \d+$/);
    expect(posts[1]!.queries[1]).toBe('SELECT count(*)::bigint AS n FROM "trainer" WHERE ("trainer_id" > 0) LIMIT $1');
    expect(sockets).toEqual([]);
  });

  it('still refuses a second statement and a write in a filter, over HTTP', async () => {
    for (const Filter of ['1=1; delete from trainer', 'trainer_id > (select count(*) from pg_sleep(30))']) {
      const res = await operator.postJson('/api/table/test-filter', { TableName: 'trainer', Filter, OriginalCount: 0 });
      expect(res.status, Filter).toBe(200);
      expect(await res.json(), Filter).toMatchObject({ success: false, error: expect.any(String) });
    }
    expect(sockets).toEqual([]);
  }, 30_000);

  it('reports a refused login as a failed test with the server’s reason', async () => {
    const res = await operator.postJson('/api/configuration/test-connection', {
      ...LEGACY,
      Port: Number(LEGACY.Port),
      Password: 'not-the-password-5d1f',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      success: false,
      message: expect.stringMatching(/^Connection failed for user "postgres": the server refused the password/),
    });
    expect(sockets).toEqual([]);
  });
});

describe('pages that only look things up read over HTTP', () => {
  it('the meetings comparison', async () => {
    const { res, html } = await operator.page('/Meetings');
    expect(res.status, html.slice(0, 300)).toBe(200);
    expect(posts.length).toBeGreaterThan(0);
    expect(sockets).toEqual([]);
  });

  it('the discipline repair preview', async () => {
    const { res, html } = await operator.page('/DisciplineRepair');
    expect(res.status).toBe(200);
    expect(html).not.toContain('The preview could not be made');
    expect(posts.length).toBeGreaterThan(0);
    expect(sockets).toEqual([]);
  });

  it('an import area’s live counts: one statement', async () => {
    const res = await operator.get('/api/barriertrials/livecounts');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ destinationCounts: { trial_runs: expect.any(Number) } });
    expect(posts.map((p) => p.queries)).toEqual([['SELECT count(*) AS n FROM trial_runs']]);
    expect(sockets).toEqual([]);
  });
});
