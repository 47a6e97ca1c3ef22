// An object's SQL API (`ctx.storage.sql`) and its synchronous key-value API (`ctx.storage.kv`).

import { deserialize, serialize } from 'node:v8';
import { cachedStatement, cell, type DatabaseSync, type SQLInputValue, splitStatements, type StatementSync } from '../sqlite.ts';
import type { ListOptions, SqlStorageValue } from './types.ts';

/** A result cell as the SQL API returns it: BLOBs as ArrayBuffer, integers as numbers. */
function sqlCell(value: unknown): SqlStorageValue {
  if (value instanceof Uint8Array) return value.slice().buffer;
  return cell(value) as SqlStorageValue;
}

function sqlBinding(value: unknown, index: number): SQLInputValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Wrong type for binding ${index + 1}: ${value === undefined ? 'undefined' : typeof value} is not supported`);
}

const RESERVED = /(^|[^A-Za-z0-9_])_cf_/i;
const TRANSACTION_STATEMENT = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

export class SqlStorageCursor<T extends Record<string, SqlStorageValue>> implements IterableIterator<T> {
  readonly columnNames: string[];
  readonly #rows: unknown[][];
  readonly #read: number;
  readonly #written: number;
  #next = 0;

  constructor(columnNames: string[], rows: unknown[][], written: number) {
    this.columnNames = columnNames;
    this.#rows = rows;
    this.#read = rows.length;
    this.#written = written;
  }

  /** Rows returned stand in for rows scanned (SQLite does not count them per statement). */
  get rowsRead(): number {
    return this.#read;
  }

  get rowsWritten(): number {
    return this.#written;
  }

  next(): IteratorResult<T> {
    const row = this.#rows[this.#next];
    if (!row) return { done: true, value: undefined };
    this.#next++;
    return { done: false, value: Object.fromEntries(this.columnNames.map((name, i) => [name, sqlCell(row[i])])) as T };
  }

  toArray(): T[] {
    return [...this];
  }

  one(): T {
    const rows = this.toArray();
    if (rows.length !== 1)
      throw new Error(`Expected exactly one result from SQL query, but got ${rows.length ? 'multiple' : 'no'} results.`);
    return rows[0]!;
  }

  *raw<U extends SqlStorageValue[]>(): IterableIterator<U> {
    while (this.#next < this.#rows.length) yield this.#rows[this.#next++]!.map(sqlCell) as U;
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}

export class SqlStorageStatement {}

export class SqlStorage {
  readonly Cursor = SqlStorageCursor;
  readonly Statement = SqlStorageStatement;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #changes: StatementSync | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Runs at once (every statement of `query`; bindings go to the last), returning the last one's rows. */
  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> {
    const statements = splitStatements(query);
    if (statements.length === 0) throw new Error('SQL query contains no statements');
    for (const statement of statements) {
      if (RESERVED.test(statement)) throw new Error('not authorized: access to _cf_ tables is prohibited: SQLITE_AUTH');
      if (TRANSACTION_STATEMENT.test(statement)) {
        throw new Error(
          'To execute a transaction, please use the state.storage.transaction() or state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or SAVEPOINT statements.',
        );
      }
    }
    for (const statement of statements.slice(0, -1)) this.#db.exec(statement);
    const before = this.#totalChanges();
    const stmt = this.#prepare(statements.at(-1)!);
    const columns = stmt.columns().map((c) => c.name);
    const params = bindings.map(sqlBinding);
    const rows = columns.length ? (stmt.all(...params) as unknown as unknown[][]) : (stmt.run(...params), []);
    return new SqlStorageCursor<T>(columns, rows, this.#totalChanges() - before);
  }

  get databaseSize(): number {
    const row = this.#db
      .prepare('SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS size')
      .get() as { size: number };
    return row.size;
  }

  #prepare(sql: string): StatementSync {
    return cachedStatement(this.#db, this.#statements, sql);
  }

  #totalChanges(): number {
    this.#changes ??= this.#db.prepare('SELECT total_changes() AS n');
    return (this.#changes.get() as { n: number }).n;
  }
}

/** Key-value pairs in the object's `_cf_KV` table, values structured-cloned (V8 serialisation) as on Cloudflare. */
export class SyncKvStorage {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get<T = unknown>(key: string): T | undefined {
    const row = this.#db.prepare('SELECT value FROM _cf_KV WHERE key = ?').get(key) as { value: Uint8Array } | undefined;
    return row ? (deserialize(row.value) as T) : undefined;
  }

  put<T>(key: string, value: T): void {
    if (value === undefined) throw new TypeError('Cannot store undefined: delete the key instead');
    this.#db
      .prepare('INSERT INTO _cf_KV (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, serialize(value));
  }

  delete(key: string): boolean {
    return Number(this.#db.prepare('DELETE FROM _cf_KV WHERE key = ?').run(key).changes) > 0;
  }

  *list<T = unknown>(options: ListOptions = {}): Iterable<[string, T]> {
    const where: string[] = [];
    const params: string[] = [];
    if (options.start !== undefined) where.push('key >= ?'), params.push(options.start);
    if (options.startAfter !== undefined) where.push('key > ?'), params.push(options.startAfter);
    if (options.end !== undefined) where.push('key < ?'), params.push(options.end);
    if (options.prefix !== undefined) where.push('substr(key, 1, length(?)) = ?'), params.push(options.prefix, options.prefix);
    const limit = options.limit === undefined ? -1 : Math.max(0, Math.floor(options.limit));
    const sql = `SELECT key, value FROM _cf_KV${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY key ${options.reverse ? 'DESC' : 'ASC'} LIMIT ${limit}`;
    for (const row of this.#db.prepare(sql).all(...params) as { key: string; value: Uint8Array }[])
      yield [row.key, deserialize(row.value) as T];
  }
}
