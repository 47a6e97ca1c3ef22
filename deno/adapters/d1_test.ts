import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import * as cms from '#d1/cms/schema.ts';
import { applyMigrations, D1Database } from './d1.ts';

const CMS_MIGRATIONS = new URL('../../d1/cms/migrations/', import.meta.url);

function scratch(): D1Database {
  const db = new D1Database(':memory:');
  db.sqlite.exec('CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, n INTEGER, r REAL, b BLOB)');
  return db;
}

Deno.test('D1: a failing statement in a batch leaves nothing of the batch written', async () => {
  const db = scratch();
  await db.prepare('INSERT INTO items (name) VALUES (?)').bind('kept').run();
  const insert = db.prepare('INSERT INTO items (name) VALUES (?1)');
  await assert.rejects(
    db.batch([insert.bind('a'), db.prepare('UPDATE items SET n = 1'), insert.bind('kept'), insert.bind('b')]),
    (error: Error) => error.message.startsWith('D1_ERROR: UNIQUE constraint failed: items.name'),
  );
  const names = await db.prepare('SELECT name, n FROM items ORDER BY id').all();
  assert.deepEqual(names.results, [{ name: 'kept', n: null }]);
  const results = await db.batch([insert.bind('a'), db.prepare('SELECT count(*) AS c FROM items')]);
  assert.equal(results[0]!.meta.changes, 1);
  assert.deepEqual(results[1]!.results, [{ c: 2 }]);
  db.close();
});

Deno.test('D1: values map as D1 maps them', async () => {
  const db = scratch();
  const run = await db
    .prepare('INSERT INTO items (name, n, r, b) VALUES (?, ?, ?, ?)')
    .bind('x', true, 1.5, new Uint8Array([1, 2, 255]).buffer)
    .run();
  assert.equal(run.success, true);
  assert.equal(run.meta.changes, 1);
  assert.equal(run.meta.last_row_id, 1);
  assert.equal(run.meta.changed_db, true);
  assert.equal(typeof run.meta.duration, 'number');
  await db
    .prepare('INSERT INTO items (name, n, b) VALUES (?, ?, ?)')
    .bind('y', false, new Uint8Array([9]))
    .run();
  const row = await db.prepare('SELECT * FROM items WHERE id = ?').bind(1).first();
  // integers as numbers, booleans stored as 1/0, BLOBs returned as arrays of bytes
  assert.deepEqual(row, { id: 1, name: 'x', n: 1, r: 1.5, b: [1, 2, 255] });
  assert.equal(await db.prepare('SELECT n FROM items WHERE name = ?').bind('y').first('n'), 0);
  assert.equal(await db.prepare('SELECT 9007199254740991 AS big').first('big'), 9007199254740991);
  assert.equal(await db.prepare('SELECT n FROM items WHERE id = 99').first('n'), null);
  await assert.rejects(db.prepare('SELECT n FROM items').first('nope'), /D1_COLUMN_NOTFOUND/);
  assert.throws(() => db.prepare('SELECT ?').bind(undefined), /D1_TYPE_ERROR: Type 'undefined' not supported/);
  assert.throws(() => db.prepare('SELECT ?').bind(10n), /D1_TYPE_ERROR/);
  assert.deepEqual(await db.prepare('SELECT id, name FROM items ORDER BY id').raw({ columnNames: true }), [
    ['id', 'name'],
    [1, 'x'],
    [2, 'y'],
  ]);
  assert.deepEqual(await db.prepare('SELECT id, name FROM items WHERE id = 0').raw({ columnNames: true }), [['id', 'name']]);
  assert.deepEqual(await db.prepare('SELECT id FROM items ORDER BY id').raw(), [[1], [2]]);
  const returning = await db.prepare('UPDATE items SET n = n + 1 RETURNING id').all();
  assert.equal(returning.meta.changes, 2);
  assert.deepEqual(returning.results, [{ id: 1 }, { id: 2 }]);
  await assert.rejects(
    db.prepare('SELECT * FROM missing').all(),
    (error: Error) => /^D1_ERROR: no such table: missing: SQLITE_ERROR$/.test(error.message) && error.cause instanceof Error,
  );
  db.close();
});

Deno.test('D1: exec runs line by line and reports the failing line', async () => {
  const db = new D1Database();
  const done = await db.exec("CREATE TABLE t (a TEXT);\nINSERT INTO t VALUES ('x');\nINSERT INTO t VALUES ('y')");
  assert.equal(done.count, 3);
  assert.equal(await db.prepare('SELECT count(*) AS c FROM t').first('c'), 2);
  await assert.rejects(
    db.exec('INSERT INTO t VALUES (1);\nINSERT INTO nope VALUES (1)'),
    /^Error: D1_EXEC_ERROR: Error in line 2: INSERT INTO nope/,
  );
  db.close();
});

Deno.test('D1: migrations apply in order, once, recorded in d1_migrations; drizzle works over the adapter', async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/cms.sqlite`;
    const first = new D1Database(path);
    const files: string[] = [];
    for await (const entry of Deno.readDir(CMS_MIGRATIONS)) if (entry.name.endsWith('.sql')) files.push(entry.name);
    files.sort();
    assert.deepEqual(files.slice(0, 2), ['0000_init.sql', '0001_story_search.sql']);
    const applied = await applyMigrations(first, CMS_MIGRATIONS);
    assert.deepEqual(applied, files);
    assert.deepEqual(await applyMigrations(first, CMS_MIGRATIONS), []);
    first.close();

    const db = new D1Database(path);
    assert.deepEqual(await applyMigrations(db, CMS_MIGRATIONS), []);
    const recorded = await db.prepare('SELECT id, name FROM d1_migrations ORDER BY id').all();
    assert.deepEqual(
      recorded.results,
      files.map((name, i) => ({ id: i + 1, name })),
    );

    const orm = drizzle(db, { schema: cms });
    const [site] = await orm.insert(cms.sites).values({ name: 'Racing Daily', url: 'https://example.com' }).returning();
    assert.equal(site!.id, 1);
    await orm.batch([
      orm.insert(cms.sites).values({ name: 'Second' }),
      orm.update(cms.sites).set({ url: 'https://second.example' }).where(eq(cms.sites.name, 'Second')),
    ]);
    const found = await orm.query.sites.findFirst({ where: eq(cms.sites.name, 'Second') });
    assert.deepEqual(found, { id: 2, name: 'Second', url: 'https://second.example' });
    const all = await orm.select({ name: cms.sites.name }).from(cms.sites).orderBy(cms.sites.id);
    assert.deepEqual(all, [{ name: 'Racing Daily' }, { name: 'Second' }]);
    // foreign keys are enforced, as on D1
    await assert.rejects(orm.insert(cms.newsTypes).values({ siteId: 99, name: 'x' }), (error: Error) =>
      /FOREIGN KEY constraint failed/.test(`${error.message} ${(error.cause as Error)?.message}`),
    );
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('D1: a failing migration leaves neither its changes nor its record', async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/0000_init.sql`, 'CREATE TABLE a (x INTEGER);');
    await Deno.writeTextFile(
      `${dir}/0001_broken.sql`,
      'CREATE TABLE b (x INTEGER);\n--> statement-breakpoint\nINSERT INTO nope VALUES (1);',
    );
    await Deno.writeTextFile(`${dir}/notes.txt`, 'not a migration');
    const db = new D1Database();
    await assert.rejects(applyMigrations(db, dir), /Migration 0001_broken.sql failed: no such table: nope/);
    assert.deepEqual((await db.prepare('SELECT name FROM d1_migrations').all()).results, [{ name: '0000_init.sql' }]);
    assert.equal(await db.prepare("SELECT count(*) AS c FROM sqlite_master WHERE name = 'b'").first('c'), 0);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
