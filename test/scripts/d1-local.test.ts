import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyLocalD1MigrationsDirect, executeLocalD1, localD1Database, queryLocalD1, splitSqlQuery } from '../../scripts/d1-local';
import { ROOT, executeD1, wranglerBin } from '../../scripts/workers';

// scripts/d1-local.ts stands in for `wrangler d1 migrations apply --local` and `wrangler d1 execute
// --local`: what it writes, real wrangler must read (and the other way round), and a database it
// migrated must look to wrangler like one wrangler migrated.
const CONFIG = 'workers/cms/wrangler.toml';
const dir = mkdtempSync(join(tmpdir(), 'd1-local-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function wrangler(args: string[], persistTo: string) {
  const run = spawnSync(wranglerBin(), [...args, '--local', '--persist-to', persistTo, '-c', CONFIG], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' },
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  return run.stdout;
}

const schema = "select type, name, tbl_name, sql from sqlite_master where name not like '\\_cf\\_%' escape '\\' order by name";

describe('local D1 without wrangler', () => {
  it('finds the SQLite file Miniflare keeps the database in', () => {
    // Miniflare's durableObjectNamespaceIdFromName('miniflare-D1DatabaseObject', 'DB'): no database_id, so the binding.
    expect(localD1Database(CONFIG, 'DB', 'state').file).toBe(
      join(ROOT, 'state/v3/d1/miniflare-D1DatabaseObject/e7352547963de7050bd7d94658afc4fe78b61811b7815da12d90be8e863abf4d.sqlite'),
    );
    expect(localD1Database(CONFIG, 'cms', '/tmp/x')).toMatchObject({
      id: 'DB',
      migrationsDir: join(ROOT, 'd1/cms/migrations'),
      migrationsTable: 'd1_migrations',
    });
    expect(() => localD1Database(CONFIG, 'NOPE', '/tmp/x')).toThrow(/Couldn't find a D1 DB/);
  });

  it('splits SQL as wrangler does', () => {
    expect(
      splitSqlQuery("select 1; -- one\nselect ';' /* two; */; create trigger t after insert on a begin select 1; select 2; end; "),
    ).toEqual(['select 1', "select ';'", 'create trigger t after insert on a begin select 1; select 2; end;']);
    expect(splitSqlQuery('select 1;')).toEqual(['select 1;']);
  });

  it('migrates and writes what wrangler reads, and reads what wrangler writes', { timeout: 120_000 }, () => {
    const ours = join(dir, 'ours');
    expect(applyLocalD1MigrationsDirect(CONFIG, 'DB', ours)).toEqual([
      '0000_init.sql',
      '0001_story_search.sql',
      '0002_story_search_exact.sql',
    ]);
    expect(applyLocalD1MigrationsDirect(CONFIG, 'DB', ours)).toEqual([]);
    executeD1(CONFIG, 'DB', ["insert into sites (name, url) values ('Ours', 'https://ours.example')"], { persistTo: ours });

    // wrangler finds every migration applied, and reads the row; then writes one of its own.
    expect(wrangler(['d1', 'migrations', 'apply', 'DB'], ours)).toContain('No migrations to apply');
    const read = JSON.parse(
      wrangler(
        [
          'd1',
          'execute',
          'DB',
          '--json',
          '--command',
          "select name, url from sites; insert into sites (name) values ('Theirs'); select name from d1_migrations order by id",
        ],
        ours,
      ),
    ) as { results: Record<string, unknown>[] }[];
    expect(read[0]!.results).toEqual([{ name: 'Ours', url: 'https://ours.example' }]);
    expect(read[2]!.results).toEqual([
      { name: '0000_init.sql' },
      { name: '0001_story_search.sql' },
      { name: '0002_story_search_exact.sql' },
    ]);
    expect(queryLocalD1(CONFIG, 'DB', ours, 'select name, url from sites order by id')).toEqual([
      { name: 'Ours', url: 'https://ours.example' },
      { name: 'Theirs', url: '' },
    ]);

    // A database wrangler migrated: the same schema and the same d1_migrations rows.
    const theirs = join(dir, 'theirs');
    wrangler(['d1', 'migrations', 'apply', 'DB'], theirs);
    expect(existsSync(localD1Database(CONFIG, 'DB', theirs).file)).toBe(true);
    expect(queryLocalD1(CONFIG, 'DB', theirs, schema)).toEqual(queryLocalD1(CONFIG, 'DB', ours, schema));
    const migrations = 'select id, name, typeof(applied_at) as type, length(applied_at) as length from d1_migrations order by id';
    expect(queryLocalD1(CONFIG, 'DB', theirs, migrations)).toEqual(queryLocalD1(CONFIG, 'DB', ours, migrations));
    expect(applyLocalD1MigrationsDirect(CONFIG, 'DB', theirs)).toEqual([]);
  });

  it('runs a batch in one transaction, foreign keys enforced, and says why it failed', () => {
    const state = join(dir, 'ours');
    expect(() =>
      executeD1(CONFIG, 'DB', ["insert into sites (name) values ('Lost')", 'insert into nowhere values (1)'], { persistTo: state }),
    ).toThrow(/no such table: nowhere/);
    expect(queryLocalD1(CONFIG, 'DB', state, "select count(*) as n from sites where name = 'Lost'")).toEqual([{ n: 0 }]);
    expect(() =>
      executeD1(CONFIG, 'DB', ['insert into story_sites (story_id, site_id) values (999999, 999999)'], { persistTo: state }),
    ).toThrow(/FOREIGN KEY/);
    expect(executeLocalD1(CONFIG, 'DB', "select x'0102' as b, 1.5 as f, null as n", state)[0]!.results).toEqual([
      { b: '[1, 2]', f: 1.5, n: null },
    ]);
    expect(() => executeLocalD1(CONFIG, 'DB', ' -- nothing', state)).toThrow(/No SQL statements detected/);
  });
});
