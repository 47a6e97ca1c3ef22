import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// One layout inside every service (README, Layout inside a service): the entry files index.ts,
// app.ts(x), context.ts and guards.ts; no source file of 400 lines or more; routes/ hold no SQL and
// no drizzle (data/ and the domain modules do); JSX only in views/. A check of the source. Each
// service's exceptions are shrink-only: a listed file that no longer breaks its rule fails the test,
// so the list is cut when the file is converted, and a new file breaking a rule fails it too.

const ROOT = join(import.meta.dirname, '..', '..');

/** The entry files every service has; `app` may be app.ts or app.tsx. */
const ENTRIES = ['index.ts', 'app.ts|app.tsx', 'context.ts', 'guards.ts'] as const;

type Exceptions = {
  /** Entry files a service still names otherwise (the name it uses instead). */
  entries: Record<string, string>;
  /** Source files of 400 lines or more. */
  long: string[];
  /** Route files that still send SQL or use drizzle themselves. */
  sqlInRoutes: string[];
  /** Files outside views/ that still hold JSX. */
  jsxOutsideViews: string[];
};

const SERVICES: Record<string, Exceptions> = {
  auth: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
  cms: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
  stats: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
  form: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
  migrate: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
  mail: {
    entries: {},
    long: [],
    sqlInRoutes: [],
    jsxOutsideViews: [],
  },
};

/** Source files under `dir` of a service's src/, relative to that src/. */
function sources(src: string, dir = ''): string[] {
  return readdirSync(join(ROOT, src, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sources(src, path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Lines of a text, a final newline not counting as the start of another. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Why a route file's text breaks the rule: SQL or drizzle of its own. */
function routeViolations(text: string): string[] {
  const found: string[] = [];
  if (/from\s+['"]drizzle-orm/.test(text)) found.push('imports drizzle-orm');
  if (/\bdb\s*\.\s*(select|selectDistinct|insert|update|delete|batch|run|all|get|prepare|exec)\s*\(/i.test(text))
    found.push('queries the database itself');
  if (/\.query\s*(<[^>]*>)?\s*\(\s*[`'"]\s*(SELECT|INSERT|UPDATE|DELETE|WITH|TRUNCATE)\b/i.test(text)) found.push('sends SQL itself');
  else if (/[`'"]\s*(SELECT\s[^`'"]*?\bFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|TRUNCATE\s)/.test(text))
    found.push('writes SQL itself');
  return found;
}

describe.each(Object.entries(SERVICES))('the %s service layout', (name, exceptions) => {
  const src = `workers/${name}/src`;
  const files = sources(src);
  const read = (path: string) => readFileSync(join(ROOT, src, path), 'utf8');
  const exists = (path: string) => existsSync(join(ROOT, src, path));

  it('reads the sources', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('has the entry files, apart from those it still names otherwise', () => {
    const missing = ENTRIES.filter((entry) => !entry.split('|').some(exists) && !(entry in exceptions.entries));
    expect(missing).toEqual([]);
    const stale = Object.entries(exceptions.entries).filter(([entry, instead]) => entry.split('|').some(exists) || !exists(instead));
    expect(stale).toEqual([]);
  });

  it('no source file is 400 lines or more, apart from the files listed, each of which still is', () => {
    const long = files.filter((file) => !exceptions.long.includes(file) && lineCount(read(file)) >= 400);
    expect(long.map((file) => `${file}: ${lineCount(read(file))}`)).toEqual([]);
    expect(exceptions.long.filter((file) => !exists(file) || lineCount(read(file)) < 400)).toEqual([]);
  });

  it('routes hold no SQL and no drizzle, apart from the files listed, each of which still does', () => {
    const found = files
      .filter((file) => file.startsWith('routes/') && !exceptions.sqlInRoutes.includes(file))
      .flatMap((file) => routeViolations(read(file)).map((v) => `${file}: ${v}`));
    expect(found).toEqual([]);
    expect(exceptions.sqlInRoutes.filter((file) => !exists(file) || routeViolations(read(file)).length === 0)).toEqual([]);
  });

  it('JSX only in views/, apart from the files listed, each of which still exists', () => {
    const outside = files.filter((file) => file.endsWith('.tsx') && !file.startsWith('views/'));
    expect(outside.filter((file) => !exceptions.jsxOutsideViews.includes(file))).toEqual([]);
    expect(exceptions.jsxOutsideViews.filter((file) => !exists(file))).toEqual([]);
  });
});

describe('the layout checks', () => {
  it('cover every service under workers/ that has routes', () => {
    const services = readdirSync(join(ROOT, 'workers'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'workers', entry.name, 'src', 'routes')))
      .map((entry) => entry.name);
    expect(services.sort()).toEqual(Object.keys(SERVICES).sort());
  });

  it('count lines as an editor does', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
  });

  it('the route check finds SQL and drizzle', () => {
    expect(routeViolations("import { eq } from 'drizzle-orm';")).toHaveLength(1);
    expect(routeViolations('const rows = await c.var.db.select().from(syncJobs).all();')).toHaveLength(1);
    expect(routeViolations('await db.insert(drafts).values(row);')).toHaveLength(1);
    expect(routeViolations("await c.env.DB.prepare('SELECT 1').first();")).toHaveLength(1);
    expect(routeViolations('await dest.query<{ n: number }>(`SELECT count(*) FROM t`);')).toHaveLength(1);
    expect(routeViolations("await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);")).toHaveLength(1);
    expect(routeViolations('const text = `DELETE FROM sessions WHERE id = ?`;')).toHaveLength(1);
    expect(routeViolations('const jobs = await listSyncJobs(c.var.db);')).toEqual([]);
    expect(routeViolations("return c.json({ error: 'Select a site from the list' });")).toEqual([]);
  });
});
