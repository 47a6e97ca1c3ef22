import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The Postgres read code: reads typed by the racing schema (drizzle's query builder) or by the zod
// schema each hand-written statement declares (shared/pg.ts), never an unchecked cast of raw rows;
// and no DDL in what a request sends. A check of the source, beside the tests that run the reads.

const ROOT = new URL('../..', import.meta.url).pathname;

/** The modules that read the racing database for requests (and the migration app's sheet imports into it). */
const READ_MODULES = [
  'workers/shared/pg.ts',
  'workers/form/src/queries.ts',
  'workers/form/src/data.ts',
  'workers/form/src/runs.ts',
  'workers/form/src/stats.ts',
  'workers/stats/src/statistics.ts',
  'workers/stats/src/meetings.ts',
  'workers/stats/src/meeting-records.ts',
  'workers/stats/src/saved-stats.ts',
  'workers/cms/src/racing-lookups.ts',
  'workers/migrate/src/imports/areas.ts',
  'workers/migrate/src/imports/areas/lookups.ts',
  'workers/migrate/src/imports/areas/barrier-trials.ts',
  'workers/migrate/src/imports/areas/sectional.ts',
  'workers/migrate/src/routes/imports.tsx',
  'workers/migrate/src/routes/imports/pages.tsx',
  'workers/migrate/src/routes/imports/json.ts',
];

/** Every TypeScript source of the Workers whose requests read the racing database. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('typed Postgres reads', () => {
  it.each(READ_MODULES)('%s casts no rows', (path) => {
    const text = read(path);
    expect(text).not.toMatch(/as unknown as/);
    expect(text).not.toMatch(/\.rows\s+as\b/);
    expect(text).not.toMatch(/\bas\s+(T|Row|Record<string,\s*unknown>)(\[\])+/);
    expect(text).not.toMatch(/\bas\s+unknown\[\]\[\]/);
    // A row type given to a raw query is a cast too (`dest.query<{ id: number }>(…)`).
    expect(text).not.toMatch(/\.query<\s*[{A-Z]/);
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
    const offenders = [...new Set([...READ_MODULES, ...['workers/form/src', 'workers/stats/src', 'workers/cms/src'].flatMap(sources)])]
      // The CMS keeps its stories in D1 (SQLite), whose statements are not the racing database's.
      .filter((path) => !path.startsWith('workers/cms/src/') || path === 'workers/cms/src/racing-lookups.ts')
      .filter((path) => ddl.test(read(path)));
    expect(offenders).toEqual([]);
  });
});
