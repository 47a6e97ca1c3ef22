// What the D1 and Durable Object adapters share over node:sqlite.
/// <reference path="./node-sqlite.d.ts" />
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

export { DatabaseSync };
export type { SQLInputValue, StatementSync };

/** SQLite's primary result codes by number, for error messages shaped like Cloudflare's. */
const RESULT_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  25: 'SQLITE_RANGE',
};

/** The message of a node:sqlite error with its result code appended, as D1 reports it. */
export function sqliteMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const errcode = (error as { errcode?: unknown }).errcode;
  const name = typeof errcode === 'number' ? RESULT_CODES[errcode & 0xff] : undefined;
  return name ? `${error.message}: ${name}` : error.message;
}

/** Opens a database file (or `:memory:`) with foreign keys enforced, as D1 and Durable Objects do. */
export function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
  // Another connection to the same file (a second host) waits for a writer instead of failing at once.
  db.exec('PRAGMA busy_timeout = 5000');
  return db;
}

/** A result cell as Workers code sees it: 64-bit integers as numbers (as D1 and DO SQL return them). */
export function cell(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

/**
 * Splits SQL text into statements at top-level semicolons (outside quotes, comments and a
 * trigger's BEGIN … END), dropping empty ones.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let depth = 0;
  let i = 0;
  const word = /[A-Za-z_]+/y;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      i = sql.indexOf(close, i + 1);
      if (i < 0) break;
      i++;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (/[A-Za-z_]/.test(ch)) {
      word.lastIndex = i;
      const token = word.exec(sql)![0].toUpperCase();
      if (token === 'BEGIN' && /^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\b/i.test(stripComments(sql.slice(start, i)))) depth++;
      else if (token === 'END' && depth > 0) depth--;
      i += token.length;
    } else if (ch === ';' && depth === 0) {
      statements.push(sql.slice(start, i));
      start = ++i;
    } else {
      i++;
    }
  }
  statements.push(sql.slice(start));
  return statements.filter((s) => stripComments(s).trim() !== '');
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*(\n|$)/g, ' ').replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ');
}

/** The prepared statement for `sql` from `cache` (prepared on first use, integers as BigInt and rows as arrays; the cache empties past 500). */
export function cachedStatement(db: DatabaseSync, cache: Map<string, StatementSync>, sql: string): StatementSync {
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    stmt.setReadBigInts(true);
    stmt.setReturnArrays(true);
    if (cache.size >= 500) cache.clear();
    cache.set(sql, stmt);
  }
  return stmt;
}
