/// <reference path="../deno/adapters/node-sqlite.d.ts" />
// Run by Deno (its built-in node:sqlite) for scripts/d1-local.ts: reads a request (JSON) from the
// file named by the first argument, runs it against the D1 SQLite file named in it, and prints
// the results (JSON) on stdout. Each batch is one transaction, as a D1 batch is in Miniflare.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import process from 'node:process';
import { DatabaseSync } from 'node:sqlite';
import { applyMigrations, D1Database } from '../deno/adapters/d1.ts';
import type { LocalD1Request, LocalD1Result } from './d1-local.ts';

const request = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LocalD1Request;

mkdirSync(dirname(request.file), { recursive: true });
// Foreign keys enforced and WAL, as workerd opens a Durable Object's (and so a local D1's) SQLite.
const db = new DatabaseSync(request.file, { enableForeignKeyConstraints: true, timeout: 10_000 });
db.exec('PRAGMA journal_mode = WAL');

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

// A value as `wrangler d1 execute --json` prints it: blobs as "[1, 2, 3]".
const printable = (value: unknown) => (value instanceof Uint8Array ? `[${Array.from(value).join(', ')}]` : value);

/** One batch in one transaction; rolled back whole when a statement fails. */
function batch(statements: string[]): LocalD1Result[] {
  // Miniflare's D1 leaves out statements that are only comments, and refuses a batch of none.
  const queries = statements.filter((sql) => sql.replace(/^\s+--.*/gm, '').trim().length > 0);
  if (queries.length === 0) throw new Error('No SQL statements detected.');
  db.exec('BEGIN');
  try {
    const results = queries.map((sql) => {
      const start = performance.now();
      const rows = db.prepare(sql).all() as Record<string, unknown>[];
      return {
        results: rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, printable(value)]))),
        success: true as const,
        meta: { duration: performance.now() - start },
      };
    });
    db.exec('COMMIT');
    return results;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

let output: { results?: LocalD1Result[][]; applied?: string[]; error?: string } = {};
try {
  // `wrangler d1 migrations apply`: the Deno D1 binding's applier records them as wrangler does.
  if (request.migrations) output.applied = await applyMigrations(new D1Database(db), request.migrations.dir, request.migrations.table);
  if (request.batches) output.results = request.batches.map(batch);
} catch (error) {
  output = { error: message(error) };
} finally {
  db.close();
}
process.stdout.write(JSON.stringify(output));
