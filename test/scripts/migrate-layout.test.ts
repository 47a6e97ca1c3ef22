import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The migration app's layout (ARCHITECTURE.md, Layout): no source file over 400 lines; routes hold
// no SQL and no drizzle (data/ and the domain modules do); JSX only in views/. A check of the source.

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = 'workers/migrate/src';

/**
 * Files outside views/ that still render with JSX of their own (the app and routes written before
 * the rule): each one converted leaves this list, and a new one fails the test.
 */
const JSX_OUTSIDE_VIEWS = new Set([
  'app.tsx',
  'routes/account.tsx',
  'routes/configuration.tsx',
  'routes/discipline-repair.tsx',
  'routes/dry-run.tsx',
  'routes/field-mapping.tsx',
  'routes/home.tsx',
  'routes/imports.tsx',
  'routes/imports/auto-sync.tsx',
  'routes/imports/pages.tsx',
  'routes/meetings.tsx',
  'routes/rejects.tsx',
  'routes/session.tsx',
]);

/** Routes that still send SQL themselves (a sheet import's lock and truncate): each one moved to data/ leaves this list. */
const SQL_IN_ROUTES = new Set(['routes/imports/pages.tsx']);

/** Source files under `dir`, relative to the service's src/. */
function sources(dir = ''): string[] {
  return readdirSync(join(ROOT, SRC, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const read = (path: string) => readFileSync(join(ROOT, SRC, path), 'utf8');

/** Why a route file's text breaks the rule: SQL or drizzle of its own. */
function routeViolations(text: string): string[] {
  const found: string[] = [];
  if (/from\s+['"]drizzle-orm/.test(text)) found.push('imports drizzle-orm');
  if (/\.var\.db\s*\.\s*(select|selectDistinct|insert|update|delete|batch|run|all|get)\s*\(/.test(text)) found.push('queries D1 itself');
  if (/\benv\.DB\.(prepare|exec|batch)\s*\(/.test(text)) found.push('queries D1 itself');
  if (/\.query\s*(<[^>]*>)?\s*\(\s*[`'"]\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(text)) found.push('sends SQL itself');
  return found;
}

describe('the migration app layout', () => {
  const files = sources();

  it('reads the sources', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no source file is 400 lines or more', () => {
    const long = files.filter((file) => read(file).split('\n').length > 400).map((file) => `${file}: ${read(file).split('\n').length}`);
    expect(long).toEqual([]);
  });

  it('routes hold no SQL and no drizzle, apart from the files listed, each of which still does', () => {
    const found = files
      .filter((file) => file.startsWith('routes/') && !SQL_IN_ROUTES.has(file))
      .flatMap((file) => routeViolations(read(file)).map((v) => `${file}: ${v}`));
    expect(found).toEqual([]);
    expect([...SQL_IN_ROUTES].filter((file) => !existsSync(join(ROOT, SRC, file)) || routeViolations(read(file)).length === 0)).toEqual([]);
  });

  it('JSX only in views/, apart from the files listed, each of which still exists', () => {
    const outside = files.filter((file) => file.endsWith('.tsx') && !file.startsWith('views/'));
    expect(outside.filter((file) => !JSX_OUTSIDE_VIEWS.has(file))).toEqual([]);
    expect([...JSX_OUTSIDE_VIEWS].filter((file) => !existsSync(join(ROOT, SRC, file)))).toEqual([]);
  });

  it('the route check finds SQL and drizzle', () => {
    expect(routeViolations("import { eq } from 'drizzle-orm';")).toHaveLength(1);
    expect(routeViolations('const rows = await c.var.db.select().from(syncJobs).all();')).toHaveLength(1);
    expect(routeViolations("await c.env.DB.prepare('SELECT 1').first();")).toHaveLength(1);
    expect(routeViolations('await dest.query<{ n: number }>(`SELECT count(*) FROM t`);')).toHaveLength(1);
    expect(routeViolations('const jobs = await listSyncJobs(c.var.db);')).toEqual([]);
  });
});
