import assert from 'node:assert/strict';
import { DurableObject } from 'cloudflare:workers';
import { PendingLogin } from '#durable-objects/pending-login.ts';
import { LiveSession } from '#durable-objects/live-session.ts';
import { type AlarmInvocationInfo, type DurableObjectState, DurableObjectNamespace } from './durable-objects.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

async function withDirectory(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

interface Env {
  GREETING: string;
}

let constructed = 0;

/** A test object over every storage API; its alarm records each run and fails on demand. */
class Notebook extends DurableObject<Env> {
  readonly created = ++constructed;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, data BLOB)');
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS alarms (retry_count INTEGER, is_retry INTEGER, at INTEGER, alarm_seen INTEGER)');
  }

  greet(who: { name: string }): { text: string; instance: number; id: string; name?: string } {
    return { text: `${this.env.GREETING}, ${who.name}`, instance: this.created, id: this.ctx.id.toString(), name: this.ctx.id.name };
  }

  mutate(list: number[]): number[] {
    list.push(4);
    return list;
  }

  fail(message: string): never {
    throw new RangeError(message);
  }

  write(text: string): number {
    this.ctx.storage.kv.put('last', { text, at: new Date(0), tags: new Set(['a']) });
    const row = this.ctx.storage.sql
      .exec<{ id: number }>('INSERT INTO notes (text, data) VALUES (?, ?) RETURNING id', text, new Uint8Array([1, 2]))
      .one();
    return row.id;
  }

  async increment(): Promise<number> {
    const n = (await this.ctx.storage.get<number>('n')) ?? 0;
    await this.ctx.storage.put('n', n + 1);
    return n + 1;
  }

  async slow(ms: number): Promise<string> {
    await sleep(ms);
    return 'slow';
  }

  fast(): string {
    return 'fast';
  }

  async schedule(at: number, failures: number): Promise<void> {
    this.ctx.storage.kv.put('failures', failures);
    await this.ctx.storage.setAlarm(at);
  }

  async alarmTime(): Promise<number | null> {
    return await this.ctx.storage.getAlarm();
  }

  alarmRuns(): { retry_count: number; is_retry: number }[] {
    return this.ctx.storage.sql
      .exec<{ retry_count: number; is_retry: number }>('SELECT retry_count, is_retry FROM alarms ORDER BY rowid')
      .toArray();
  }

  /** What getAlarm() answered inside each run of alarm(). */
  alarmsSeen(): (number | null)[] {
    return this.ctx.storage.sql
      .exec<{ alarm_seen: number | null }>('SELECT alarm_seen FROM alarms ORDER BY rowid')
      .toArray()
      .map((r) => r.alarm_seen);
  }

  override async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const seen = await this.ctx.storage.getAlarm();
    this.ctx.storage.sql.exec('INSERT INTO alarms VALUES (?, ?, ?, ?)', info?.retryCount ?? -1, info?.isRetry ?? false, Date.now(), seen);
    const failures = this.ctx.storage.kv.get<number>('failures') ?? 0;
    if (failures > 0) {
      this.ctx.storage.kv.put('failures', failures - 1);
      throw new Error('alarm failed on purpose');
    }
  }

  override async fetch(request: Request): Promise<Response> {
    return Response.json({ method: request.method, url: request.url, body: await request.text() });
  }
}

/** Waits in its constructor: no call may reach it before. */
class SlowStart extends DurableObject {
  ready = false;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      await sleep(50);
      this.ready = true;
    });
  }

  isReady(): boolean {
    return this.ready;
  }
}

const open = (dir: string, retry = { baseMs: 20, maxRetries: 3 }) =>
  new DurableObjectNamespace(Notebook, { directory: dir, env: { GREETING: 'Hello' }, alarmRetry: retry });

Deno.test('DO: ids by name are stable, by string round-trip, unique ids differ', () =>
  withDirectory(async (dir) => {
    const ns = open(dir);
    const a = ns.idFromName('meeting:1');
    assert.match(a.toString(), /^[0-9a-f]{64}$/);
    assert.ok(a.equals(ns.idFromName('meeting:1')));
    assert.ok(!a.equals(ns.idFromName('meeting:2')));
    assert.equal(a.name, 'meeting:1');
    assert.ok(ns.idFromString(a.toString()).equals(a));
    assert.throws(() => ns.idFromString('../../etc/passwd'), TypeError);
    assert.notEqual(ns.newUniqueId().toString(), ns.newUniqueId().toString());
    await ns.close();
  }));

Deno.test('DO: one instance per id; RPC structured-clones arguments, results and errors', () =>
  withDirectory(async (dir) => {
    const ns = open(dir);
    const first = ns.get(ns.idFromName('one'));
    const again = ns.getByName('one');
    const other = ns.get(ns.idFromName('two'));
    const a = await first.greet({ name: 'Ann' });
    const b = await again.greet({ name: 'Bob' });
    const c = await other.greet({ name: 'Cy' });
    assert.equal(a.text, 'Hello, Ann');
    assert.equal(a.instance, b.instance);
    assert.notEqual(a.instance, c.instance);
    assert.equal(a.id, first.id.toString());
    assert.equal(a.name, 'one');
    const list = [1, 2, 3];
    assert.deepEqual(await first.mutate(list), [1, 2, 3, 4]);
    assert.deepEqual(list, [1, 2, 3]);
    await assert.rejects(first.fail('out of range'), (error: Error) => error instanceof RangeError && error.message === 'out of range');
    await assert.rejects((first as unknown as { nope(): Promise<void> }).nope(), /does not implement the method "nope"/);
    assert.equal((first as unknown as { alarm?: unknown }).alarm, undefined);
    const response = await first.fetch('https://do/notes?x=1', { method: 'POST', body: 'hi' });
    assert.deepEqual(await response.json(), { method: 'POST', url: 'https://do/notes?x=1', body: 'hi' });
    await ns.close();
  }));

Deno.test('DO: storage (SQL, sync KV, async KV) survives a host restart', () =>
  withDirectory(async (dir) => {
    const before = open(dir);
    const stub = before.getByName('notebook');
    assert.equal(await stub.write('first'), 1);
    assert.equal(await stub.write('second'), 2);
    assert.equal(await stub.increment(), 1);
    await before.close();

    const after = open(dir);
    const id = after.idFromName('notebook');
    // reach inside with a fresh instance of a throwaway class over the same storage file
    const inspect = new DurableObjectNamespace(
      class Inspect extends DurableObject {
        dump() {
          const storage = this.ctx.storage;
          const cursor = storage.sql.exec('SELECT id, text, data FROM notes ORDER BY id');
          const columns = cursor.columnNames;
          const rows = [...cursor.raw()];
          return {
            columns,
            rows,
            last: storage.kv.get('last'),
            list: [...storage.kv.list({ prefix: 'la' })].map(([k]) => k),
            read: storage.sql.exec('SELECT * FROM notes').rowsRead,
          };
        }
      },
      { directory: dir, env: undefined, name: 'Notebook' },
    );
    const dump = await inspect.get(inspect.idFromString(id.toString())).dump();
    assert.deepEqual(dump.columns, ['id', 'text', 'data']);
    assert.equal(dump.rows.length, 2);
    assert.deepEqual(dump.rows[0]!.slice(0, 2), [1, 'first']);
    assert.ok(dump.rows[0]![2] instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(dump.rows[0]![2] as ArrayBuffer), new Uint8Array([1, 2]));
    assert.deepEqual(dump.last, { text: 'second', at: new Date(0), tags: new Set(['a']) });
    assert.deepEqual(dump.list, ['last']);
    assert.equal(dump.read, 2);
    await inspect.close();
    assert.equal(await after.get(id).increment(), 2);
    await after.close();
  }));

Deno.test('DO: async storage API, list options, deleteAll, transactions', () =>
  withDirectory(async (dir) => {
    const ns = new DurableObjectNamespace(
      class Store extends DurableObject {
        async run() {
          const s = this.ctx.storage;
          await s.put({ 'a:1': 1, 'a:2': 2, 'b:1': 3 });
          const many = await s.get<number>(['a:2', 'zz', 'a:1']);
          const listed = [...(await s.list<number>({ prefix: 'a:', reverse: true, limit: 1 }))];
          const ranged = [...(await s.list<number>({ start: 'a:2', end: 'b:2' })).keys()];
          const deleted = [await s.delete('a:1'), await s.delete('a:1'), await s.delete(['a:2', 'b:1', 'x'])];
          s.sql.exec('CREATE TABLE t (x INTEGER)');
          let rolledBack = false;
          try {
            s.transactionSync(() => {
              s.sql.exec('INSERT INTO t VALUES (1)');
              s.kv.put('in-tx', true);
              throw new Error('undo');
            });
          } catch {
            rolledBack = s.sql.exec('SELECT count(*) AS n FROM t').one().n === 0 && s.kv.get('in-tx') === undefined;
          }
          const committed = s.transactionSync(() => s.sql.exec('INSERT INTO t VALUES (2) RETURNING x').one().x);
          await s.transaction(async (txn) => {
            await txn.put('kept', 1);
            await txn.put('dropped', 1);
            txn.rollback();
          });
          const afterRollback = await s.get('dropped');
          const refused = [
            () => s.sql.exec('SELECT * FROM _cf_KV'),
            () => s.sql.exec('BEGIN TRANSACTION'),
            () => s.sql.exec('SELECT * FROM t WHERE x = ?', undefined),
            () => s.sql.exec('SELECT 1 WHERE 0').one(),
          ].map((f) => {
            try {
              f();
              return 'ran';
            } catch (error) {
              return (error as Error).message.slice(0, 20);
            }
          });
          const multi = s.sql.exec('INSERT INTO t VALUES (3); SELECT count(*) AS n FROM t').one().n;
          await s.setAlarm(Date.now() + 60_000);
          await s.deleteAll();
          const tables = s.sql
            .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
            .toArray();
          const alarm = await s.getAlarm();
          await s.deleteAlarm();
          return {
            many: [...many],
            listed,
            ranged,
            deleted,
            rolledBack,
            committed,
            afterRollback,
            refused,
            multi,
            tables,
            keys: [...(await s.list()).keys()],
            alarmKept: alarm !== null,
            size: s.sql.databaseSize > 0,
          };
        }
      },
      { directory: dir, env: undefined },
    );
    const result = await ns.getByName('x').run();
    assert.deepEqual(result.many, [
      ['a:1', 1],
      ['a:2', 2],
    ]);
    assert.deepEqual(result.listed, [['a:2', 2]]);
    assert.deepEqual(result.ranged, ['a:2', 'b:1']);
    assert.deepEqual(result.deleted, [true, false, 2]);
    assert.equal(result.rolledBack, true);
    assert.equal(result.committed, 2);
    assert.equal(result.afterRollback, undefined);
    assert.deepEqual(result.refused, ['not authorized: acce', 'To execute a transac', 'Wrong type for bindi', 'Expected exactly one']);
    assert.equal(result.multi, 2);
    assert.deepEqual(result.tables, []);
    assert.deepEqual(result.keys, []);
    assert.equal(result.alarmKept, true);
    assert.equal(result.size, true);
    await ns.close();
  }));

Deno.test('DO: calls are let in one at a time, but not held up by another call waiting on I/O', () =>
  withDirectory(async (dir) => {
    const ns = open(dir);
    const stub = ns.getByName('counter');
    const counts = await Promise.all(Array.from({ length: 25 }, () => stub.increment()));
    assert.deepEqual(
      counts.sort((a, b) => a - b),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    const order: string[] = [];
    await Promise.all([stub.slow(60).then((r) => order.push(r)), sleep(5).then(() => stub.fast().then((r) => order.push(r)))]);
    assert.deepEqual(order, ['fast', 'slow']);

    const slowStart = new DurableObjectNamespace(SlowStart, { directory: `${dir}/slow`, env: undefined });
    assert.equal(await slowStart.getByName('s').isReady(), true);
    await slowStart.close();
    await ns.close();
  }));

Deno.test("DO: the project's PendingLogin expires through its alarm", () =>
  withDirectory(async (dir) => {
    const ns = new DurableObjectNamespace(PendingLogin, { directory: dir, env: undefined });
    const stub = ns.getByName('token-1');
    await stub.open({ userId: 7, email: 'a@example.com', siteId: null, siteName: 'Racing', ip: '127.0.0.1' }, 60_000);
    const claim = await stub.claim(3);
    assert.equal(claim.ok, true);
    assert.equal(claim.ok && claim.attemptsLeft, 2);
    const short = ns.getByName('token-2');
    await short.open({ userId: 8, email: 'b@example.com', siteId: 1, siteName: 'Racing', ip: '127.0.0.1' }, 30);
    // the alarm deletes it; a claim then finds nothing (not merely "expired")
    await until(async () => {
      const c = await short.claim(3);
      return !c.ok && c.reason === 'unknown';
    });
    await ns.close();
  }));

Deno.test('DO: an alarm fires at its time; getAlarm answers null while it runs', () =>
  withDirectory(async (dir) => {
    const ns = open(dir);
    const stub = ns.getByName('alarm');
    const at = Date.now() + 40;
    await stub.schedule(at, 0);
    assert.equal(await stub.alarmTime(), at);
    await until(async () => (await stub.alarmRuns()).length === 1);
    assert.deepEqual(await stub.alarmRuns(), [{ retry_count: 0, is_retry: 0 }]);
    assert.deepEqual(await stub.alarmsSeen(), [null]);
    assert.equal(await stub.alarmTime(), null);
    await ns.close();
  }));

Deno.test('DO: a pending alarm is re-armed by a new host over the same directory', () =>
  withDirectory(async (dir) => {
    const before = new DurableObjectNamespace(LiveSession, { directory: dir, env: undefined });
    await before.getByName('session-1').keep({ idHash: 'session-1' }, Date.now() + 150);
    const notebook = open(`${dir}/notes`);
    await notebook.getByName('later').schedule(Date.now() + 150, 0);
    await before.close();
    await notebook.close();

    const after = new DurableObjectNamespace(LiveSession, { directory: dir, env: undefined });
    const notesAfter = open(`${dir}/notes`);
    // nothing calls the objects: the restored alarms alone create them and run alarm()
    await until(async () => (await notesAfter.getByName('later').alarmRuns()).length === 1);
    await until(async () => (await after.getByName('session-1').row()) === undefined);
    const id = after.idFromName('session-1').toString();
    const { DatabaseSync } = await import('node:sqlite');
    await until(() => {
      const db = new DatabaseSync(`${dir}/${id}.sqlite`);
      const keys = (db.prepare('SELECT count(*) AS n FROM _cf_KV').get() as { n: number }).n;
      db.close();
      return keys === 0;
    });
    await after.close();
    await notesAfter.close();
  }));

Deno.test('DO: a throwing alarm is retried with backoff, a bounded number of times', () =>
  withDirectory(async (dir) => {
    const ns = open(dir, { baseMs: 10, maxRetries: 3 });
    const flaky = ns.getByName('flaky');
    await flaky.schedule(Date.now(), 2);
    await until(async () => (await flaky.alarmRuns()).length === 3);
    await sleep(50);
    assert.deepEqual(await flaky.alarmRuns(), [
      { retry_count: 0, is_retry: 0 },
      { retry_count: 1, is_retry: 1 },
      { retry_count: 2, is_retry: 1 },
    ]);
    assert.equal(await flaky.alarmTime(), null);

    const broken = ns.getByName('broken');
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      await broken.schedule(Date.now(), 100);
      await until(async () => (await broken.alarmRuns()).length === 4);
      await sleep(150);
      assert.equal((await broken.alarmRuns()).length, 4);
      assert.equal(errors.length, 1);
    } finally {
      console.error = log;
    }
    assert.equal(await broken.alarmTime(), null);
    await ns.close();
  }));

let releaseHang = () => {};

/** Its first alarm run never ends by itself (as if the host died during it); later runs finish. */
class Hanging extends DurableObject {
  async start(): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now());
  }

  runs(): number {
    return this.ctx.storage.kv.get<number>('runs') ?? 0;
  }

  override async alarm(): Promise<void> {
    const runs = this.runs() + 1;
    this.ctx.storage.kv.put('runs', runs);
    if (runs === 1) await new Promise<void>((resolve) => (releaseHang = resolve));
  }
}

Deno.test('DO: an alarm whose host died while it ran runs again on the next host', () =>
  withDirectory(async (dir) => {
    const first = new DurableObjectNamespace(Hanging, { directory: dir, env: undefined });
    await first.getByName('h').start();
    await until(async () => (await first.getByName('h').runs()) === 1);
    // the first host is stuck in alarm(); a second host over the same files takes the alarm up
    const second = new DurableObjectNamespace(Hanging, { directory: dir, env: undefined });
    await until(async () => (await second.getByName('h').runs()) === 2);
    releaseHang();
    await first.close();
    await second.close();
    const third = new DurableObjectNamespace(Hanging, { directory: dir, env: undefined });
    await sleep(30);
    assert.equal(await third.getByName('h').runs(), 2);
    await third.close();
  }));
