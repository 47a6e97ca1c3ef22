// D1Database over node:sqlite, with D1's value mapping, results and errors (see README.md).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cachedStatement,
  cell,
  type DatabaseSync,
  openDatabase,
  type SQLInputValue,
  sqliteMessage,
  splitStatements,
  type StatementSync,
} from './sqlite.ts';

export interface D1Meta {
  duration: number;
  size_after: number;
  rows_read: number;
  rows_written: number;
  last_row_id: number;
  changed_db: boolean;
  changes: number;
  served_by: string;
  served_by_region?: string;
  served_by_primary?: boolean;
  timings?: { sql_duration_ms: number };
}
export interface D1Response {
  success: true;
  meta: D1Meta & Record<string, unknown>;
  error?: never;
}
export type D1Result<T = unknown> = D1Response & { results: T[] };
export interface D1ExecResult {
  count: number;
  duration: number;
}

/** A value as D1 sends it to SQLite: bytes travel as an array of numbers. */
type BoundValue = string | number | null | number[];

interface Executed {
  columns: string[];
  rows: unknown[][];
  meta: D1Meta;
}

function d1Error(prefix: string, message: string): Error {
  return new Error(`${prefix}: ${message}`, { cause: new Error(message) });
}

/** D1's bind-time conversion: booleans to 1/0, bytes to arrays; anything else is refused at once. */
function toBound(value: unknown): BoundValue {
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null) return null;
  if (typeof value === 'object') {
    if (Array.isArray(value) && value.every((b) => typeof b === 'number' && b >= 0 && b < 256)) return value;
    if (value instanceof ArrayBuffer) return Array.from(new Uint8Array(value));
    if (ArrayBuffer.isView(value)) return Array.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  }
  throw d1Error('D1_TYPE_ERROR', `Type '${typeof value}' not supported for value '${String(value)}'`);
}

const toSqlite = (value: BoundValue): SQLInputValue => (Array.isArray(value) ? Uint8Array.from(value) : value);

/** A result cell as D1 returns it (over JSON): integers as numbers, BLOBs as arrays of bytes. */
function fromSqlite(value: unknown): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  return cell(value);
}

export class D1PreparedStatement {
  readonly #db: D1Database;
  readonly statement: string;
  readonly params: readonly BoundValue[];

  constructor(db: D1Database, statement: string, params: readonly BoundValue[] = []) {
    this.#db = db;
    this.statement = statement;
    this.params = params;
  }

  bind(...values: unknown[]): D1PreparedStatement {
    return new D1PreparedStatement(this.#db, this.statement, values.map(toBound));
  }

  first<T = unknown>(colName: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  // deno-lint-ignore require-await
  async first(colName?: string): Promise<unknown> {
    const row = toObjects(this.#db.execute(this))[0];
    if (!row) return null;
    if (colName === undefined) return row;
    if (row[colName] === undefined) throw d1Error('D1_COLUMN_NOTFOUND', `Column not found (${colName})`);
    return row[colName];
  }

  // deno-lint-ignore require-await
  async run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return result<T>(this.#db.execute(this));
  }

  // deno-lint-ignore require-await
  async all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return result<T>(this.#db.execute(this));
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  // deno-lint-ignore require-await
  async raw(options?: { columnNames?: boolean }): Promise<unknown[]> {
    const { columns, rows } = this.#db.execute(this);
    return options?.columnNames ? [columns, ...rows] : rows;
  }
}

function toObjects({ columns, rows }: Executed): Record<string, unknown>[] {
  return rows.map((row) => Object.fromEntries(columns.map((name, i) => [name, row[i]])));
}

function result<T>(executed: Executed): D1Result<T> {
  return { success: true, meta: { ...executed.meta }, results: toObjects(executed) as T[] };
}

/**
 * A D1 database in one SQLite file (or in memory). Each call runs at once and alone: node:sqlite
 * is synchronous, so no two statements of one process interleave, as on D1's single writer.
 */
export class D1Database {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #state: StatementSync | undefined;

  /** `path` is a SQLite file (created if missing) or `:memory:`; an open node:sqlite database is used as it is. */
  constructor(path: string | DatabaseSync = ':memory:') {
    this.#db = typeof path === 'string' ? openDatabase(path) : path;
  }

  prepare(query: string): D1PreparedStatement {
    return new D1PreparedStatement(this, query);
  }

  /** All statements in one transaction: any failure rolls every one back and rejects. */
  // deno-lint-ignore require-await
  async batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    this.#db.exec('BEGIN');
    try {
      const results = statements.map((statement) => result<T>(this.execute(statement)));
      this.#db.exec('COMMIT');
      return results;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Runs SQL without bindings one line at a time, as D1's exec does (a statement may not span lines). */
  // deno-lint-ignore require-await
  async exec(query: string): Promise<D1ExecResult> {
    const lines = query.trim().split('\n');
    const started = performance.now();
    for (const [i, line] of lines.entries()) {
      try {
        this.#db.exec(line);
      } catch (error) {
        const message = `Error in line ${i + 1}: ${line}: ${sqliteMessage(error)}`;
        throw d1Error('D1_EXEC_ERROR', message);
      }
    }
    return { count: lines.length, duration: performance.now() - started };
  }

  /** Sessions (read replication) collapse to the one database: every bookmark is null. */
  withSession(_constraintOrBookmark?: string): {
    prepare(query: string): D1PreparedStatement;
    batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
    getBookmark(): string | null;
  } {
    return { prepare: (query) => this.prepare(query), batch: (statements) => this.batch(statements), getBookmark: () => null };
  }

  /** Deprecated on D1 (alpha databases only), so not offered. */
  // deno-lint-ignore require-await
  async dump(): Promise<ArrayBuffer> {
    throw new Error('D1_DUMP_ERROR: dump() is not supported');
  }

  /** The node:sqlite database underneath (for migrations and tests). */
  get sqlite(): DatabaseSync {
    return this.#db;
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }

  /** Runs one bound statement; failures become D1_ERROR with SQLite's message. */
  execute(statement: D1PreparedStatement): Executed {
    const started = performance.now();
    try {
      const before = this.#counters();
      const stmt = this.#statement(statement.statement);
      const columns = stmt.columns().map((c) => c.name);
      const params = statement.params.map(toSqlite);
      const rows = columns.length
        ? (stmt.all(...params) as unknown as unknown[][]).map((row) => row.map(fromSqlite))
        : (stmt.run(...params), []);
      const after = this.#counters();
      const changes = after.changes - before.changes;
      const duration = performance.now() - started;
      return {
        columns,
        rows,
        meta: {
          served_by: 'deno-d1',
          served_by_primary: true,
          duration,
          timings: { sql_duration_ms: duration },
          changes,
          last_row_id: after.lastRowId,
          changed_db: changes > 0,
          size_after: after.size,
          // SQLite counts neither rows scanned nor rows written per statement: rows returned and rows changed stand in.
          rows_read: rows.length,
          rows_written: changes,
        },
      };
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('D1_')) throw error;
      throw d1Error('D1_ERROR', sqliteMessage(error));
    }
  }

  #statement(sql: string): StatementSync {
    if (!this.#statements.has(sql) && splitStatements(sql).length > 1)
      throw new Error('A prepared statement must be a single SQL statement');
    return cachedStatement(this.#db, this.#statements, sql);
  }

  #counters(): { changes: number; lastRowId: number; size: number } {
    this.#state ??= this.#db.prepare(
      'SELECT total_changes(), last_insert_rowid(), (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size())',
    );
    this.#state.setReturnArrays(true);
    const [changes, lastRowId, size] = this.#state.get() as unknown as [number, number, number];
    return { changes, lastRowId, size };
  }
}

/**
 * Applies `dir`'s `NNNN_name.sql` files in number order, each once, recording each in
 * `d1_migrations` as `wrangler d1 migrations apply` does; each file and its record commit together.
 * Returns the names applied now.
 */
export async function applyMigrations(db: D1Database, dir: string | URL, table = 'd1_migrations'): Promise<string[]> {
  const sqlite = db.sqlite;
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${table}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`);
  const applied = new Set((sqlite.prepare(`SELECT name FROM ${table}`).all() as { name: string }[]).map((r) => r.name));
  const folder = dir instanceof URL ? fileURLToPath(dir) : dir;
  const names = (await readdir(folder, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.sql'))
    .map((entry) => entry.name);
  const number = (name: string) => parseInt(name.split('_')[0]!, 10);
  names.sort((a, b) => number(a) - number(b) || (a < b ? -1 : a > b ? 1 : 0));
  const done: string[] = [];
  for (const name of names.filter((n) => !applied.has(n))) {
    const sql = await readFile(join(folder, name), 'utf8');
    sqlite.exec('BEGIN');
    try {
      sqlite.exec(sql);
      sqlite.prepare(`INSERT INTO ${table} (name) VALUES (?)`).run(name);
      sqlite.exec('COMMIT');
    } catch (error) {
      if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
      throw new Error(`Migration ${name} failed: ${sqliteMessage(error)}`, { cause: error });
    }
    done.push(name);
  }
  return done;
}
