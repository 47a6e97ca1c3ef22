import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The database read code: reads typed by the racing schema (drizzle's query builder) or by the zod
// schema each hand-written statement declares (shared/pg.ts for the services, engine/db.ts `rows`
// for the migrate engine), never an unchecked cast of raw rows; and no DDL in what a request sends.
// A check of the source, beside the tests that run the reads. The casts are looked for in every
// TypeScript source of every Worker, the shared modules and the Durable Objects.

const ROOT = new URL('../..', import.meta.url).pathname;

/** The folders whose every TypeScript source is checked for casts: each Worker's src, the shared modules, the Durable Objects. */
const CHECKED_DIRS = [
  ...readdirSync(join(ROOT, 'workers'))
    .filter((name) => name !== 'shared' && statSync(join(ROOT, 'workers', name, 'src'), { throwIfNoEntry: false })?.isDirectory())
    .map((name) => `workers/${name}/src`),
  'workers/shared',
  'durable-objects',
];

/** What a cast of rows looks like. */
const CASTS: { name: string; pattern: RegExp }[] = [
  { name: 'a double cast', pattern: /as unknown as/ },
  { name: "a driver result's rows cast", pattern: /\.rows\s+as\b/ },
  { name: 'rows cast to a row type', pattern: /\bas\s+(T|Row|Record<string,\s*unknown>)(\[\])+/ },
  { name: 'a batch cast', pattern: /\bas\s+unknown\[\]\[\]/ },
  { name: 'rows cast to a named row type', pattern: /\bas\s+\w+Row(\[\])+/ },
  // A row type given to a raw query is a cast too (`dest.query<{ id: number }>(…)`).
  { name: 'a row type given to a raw query', pattern: /\.(query|queryAndCommit)<\s*[{A-Z]/ },
];

/**
 * The casts allowed, each exactly as written in its file, with why: none reads database rows of
 * the Postgres databases. Any other cast in these files fails as anywhere else.
 */
const EXCEPTIONS: { path: string; cast: string; reason: string }[] = [
  {
    path: 'workers/shared/table-schemas.ts',
    cast: 'schema.extend(integers) as unknown as S',
    reason: "a table's answer schema with its integer fields replaced by plain integers of the same type (no database rows)",
  },
  {
    path: 'workers/shared/workers-runtime.ts',
    cast: '(caches as unknown as { default: Cache })',
    reason: "the Workers runtime's `caches.default`, which the DOM typings of `caches` do not declare",
  },
  {
    path: 'workers/shared/workers-runtime.ts',
    cast: 'new FixedLengthStream(length) as unknown as {',
    reason: "the runtime's FixedLengthStream typed as the transform stream it is",
  },
  {
    path: 'workers/migrate/src/input.ts',
    cast: 'root as unknown as Record<string | number, unknown>',
    reason: "a form body's indexed fields built into nested lists and objects (no database rows)",
  },
  {
    path: 'workers/migrate/src/routes/migration.ts',
    cast: "indexedList(body, 'Mappings') as Record<string, unknown>[]",
    reason: "a form body's mapping list, each entry checked to be an object before it is read (no database rows)",
  },
  {
    path: 'workers/cms/src/stories.ts',
    cast: '(result?.results ?? []) as T[]',
    reason: "D1 (SQLite) results of the CMS's own story tables, not a Postgres read",
  },
];

/** Every TypeScript source under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The casts in `text`, after the file's allowed ones are taken out: `name: line` each. */
function castsIn(path: string, text: string): string[] {
  let rest = text;
  for (const e of EXCEPTIONS) if (e.path === path) rest = rest.replaceAll(e.cast, '');
  return rest
    .split('\n')
    .flatMap((line, i) => CASTS.filter((c) => c.pattern.test(line)).map((c) => `${path}:${i + 1}: ${c.name}: ${line.trim()}`));
}

/** The modules whose statements a request sends to the racing database (the DDL check's scope). */
const REQUEST_READ_MODULES = [
  'workers/shared/pg.ts',
  'workers/migrate/src/imports/areas.ts',
  'workers/migrate/src/imports/areas/lookups.ts',
  'workers/migrate/src/imports/areas/barrier-trials.ts',
  'workers/migrate/src/imports/areas/sectional.ts',
  'workers/migrate/src/routes/imports.ts',
  'workers/migrate/src/routes/imports/pages.ts',
  'workers/migrate/src/routes/imports/json.ts',
];

describe('typed Postgres reads', () => {
  const files = CHECKED_DIRS.flatMap(sources);

  it('every source of every Worker, the shared modules and the Durable Objects casts no rows', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('workers/migrate/src/engine/db.ts');
    expect(files.some((f) => f.startsWith('durable-objects/'))).toBe(true);
    expect(files.flatMap((path) => castsIn(path, read(path)))).toEqual([]);
  });

  it('each exception is still in its file, once, and small', () => {
    for (const e of EXCEPTIONS) {
      expect(read(e.path).split(e.cast).length - 1, `${e.path}: ${e.cast}`).toBe(1);
      expect(e.cast.length).toBeLessThan(80);
      expect(e.reason.length).toBeGreaterThan(20);
    }
  });

  it('the check finds the casts it is for', () => {
    const found = (text: string) => castsIn('workers/x/src/reads.ts', text);
    expect(found('const rows = await dest.query<{ id: number }>(text, [1]);')).toHaveLength(1);
    expect(found('const [row] = await tx.queryAndCommit<CopyCounts>(text);')).toHaveLength(1);
    expect(found('return (await client.query(text, values)).rows as T[];')).not.toHaveLength(0);
    expect(found('return schemaFrom(columns as ColumnRow[], constraints as ConstraintRow[]);')).toHaveLength(1);
    expect(found('const all = results as unknown as { rows: unknown[] }[];')).toHaveLength(1);
    expect(found('const results = batch as unknown[][];')).toHaveLength(1);
    // A cast allowed in one file is not allowed in another.
    expect(found("const list = indexedList(body, 'Mappings') as Record<string, unknown>[];")).toHaveLength(1);
    expect(found('const rows = await readRows(dest, z.object({ n: z.number() }), text);')).toEqual([]);
  });

  it('raw rows are read only by the typed helpers in workers/shared/pg.ts', () => {
    const offenders = ['workers/form/src', 'workers/stats/src', 'workers/cms/src']
      .flatMap(sources)
      .filter((path) => {
        // A health check's `select 1` reads no rows.
        const text = read(path).replace(/\.execute\(sql`select 1`\)/g, '');
        return /\.execute\(|\$client\b|\.rows\b/.test(text);
      })
      .map((path) => relative(ROOT, join(ROOT, path)));
    expect(offenders).toEqual([]);
  });

  it('no request path carries DDL or session settings for PostgreSQL', () => {
    const ddl =
      /\b(create|alter|drop)\s+(table|index|extension|view|materialized|function|trigger|schema|type|sequence|temp|temporary|unique)\b|\bset\s+(local|session)\b|\bset\s+\w+\s*(=|to)\s*\w+\s*[;`'"]/i;
    const offenders = [
      ...new Set([...REQUEST_READ_MODULES, ...['workers/form/src', 'workers/stats/src', 'workers/cms/src'].flatMap(sources)]),
    ]
      // The CMS keeps its stories in D1 (SQLite), whose statements are not the racing database's.
      .filter((path) => !path.startsWith('workers/cms/src/') || path === 'workers/cms/src/racing-lookups.ts')
      .filter((path) => ddl.test(read(path)));
    expect(offenders).toEqual([]);
  });
});
