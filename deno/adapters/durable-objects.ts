// Durable Objects in process: a namespace per class, one instance per id, each object's storage
// in its own SQLite file, alarms persisted and re-armed on start (see README.md).
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setImmediate } from 'node:timers';
import { deserialize, serialize } from 'node:v8';
import {
  cachedStatement,
  cell,
  type DatabaseSync,
  openDatabase,
  type SQLInputValue,
  splitStatements,
  type StatementSync,
} from './sqlite.ts';

export interface DurableObjectId {
  toString(): string;
  equals(other: DurableObjectId): boolean;
  readonly name?: string;
}

export interface AlarmInvocationInfo {
  readonly isRetry: boolean;
  readonly retryCount: number;
  readonly scheduledTime: number;
}

export type SqlStorageValue = ArrayBuffer | string | number | null;

export interface ListOptions {
  start?: string;
  startAfter?: string;
  end?: string;
  prefix?: string;
  reverse?: boolean;
  limit?: number;
}

class ObjectId implements DurableObjectId {
  readonly #hex: string;
  readonly name?: string;

  constructor(hex: string, name?: string) {
    this.#hex = hex;
    if (name !== undefined) this.name = name;
  }

  toString(): string {
    return this.#hex;
  }

  equals(other: DurableObjectId): boolean {
    return other.toString() === this.#hex;
  }
}

/**
 * The input gate, as far as these objects can tell it apart: events (RPC calls, fetches, alarms)
 * are let in one per macrotask, so each runs until it waits on real I/O (storage answers at once,
 * so a read-modify-write through storage is never interleaved); `blockConcurrencyWhile` keeps
 * every other event out until its callback settles.
 */
class InputGate {
  #closers = 0;
  #scheduled = false;
  readonly #waiting: (() => void)[] = [];

  enter(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#pump();
    });
  }

  close(): () => void {
    this.#closers++;
    let open = false;
    return () => {
      if (open) return;
      open = true;
      this.#closers--;
      this.#pump();
    };
  }

  #pump(): void {
    if (this.#scheduled || this.#closers > 0 || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#closers > 0) return;
      this.#waiting.shift()?.();
      this.#pump();
    });
  }
}

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

/** Where an object's alarm stands; the row in `_cf_METADATA` survives a restart. */
interface AlarmRecord {
  time: number;
  retryCount: number;
}

export interface AlarmRetryOptions {
  /** The first retry's delay; each next one doubles it (Cloudflare starts at 2 s). */
  baseMs?: number;
  /** Retries after the first failure before the alarm is given up (Cloudflare allows 6). */
  maxRetries?: number;
}

function readMetadata(db: DatabaseSync, key: string): unknown {
  const row = db.prepare('SELECT value FROM _cf_METADATA WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? JSON.parse(row.value) : undefined;
}

function writeMetadata(db: DatabaseSync, key: string, value: unknown): void {
  if (value === undefined) db.prepare('DELETE FROM _cf_METADATA WHERE key = ?').run(key);
  else
    db.prepare('INSERT INTO _cf_METADATA (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      JSON.stringify(value),
    );
}

function openObjectDatabase(path: string): DatabaseSync {
  const db = openDatabase(path);
  db.exec('CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID');
  db.exec('CREATE TABLE IF NOT EXISTS _cf_METADATA (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  return db;
}

export class DurableObjectStorage {
  readonly sql: SqlStorage;
  readonly kv: SyncKvStorage;
  readonly #db: DatabaseSync;
  readonly #alarms: AlarmScheduler;
  readonly #gate: InputGate;
  #savepoints = 0;

  constructor(db: DatabaseSync, alarms: AlarmScheduler, gate: InputGate) {
    this.#db = db;
    this.#alarms = alarms;
    this.#gate = gate;
    this.sql = new SqlStorage(db);
    this.kv = new SyncKvStorage(db);
  }

  get<T = unknown>(key: string): Promise<T | undefined>;
  get<T = unknown>(keys: string[]): Promise<Map<string, T>>;
  get(keys: string | string[]): Promise<unknown> {
    return settle(() => {
      if (!Array.isArray(keys)) return this.kv.get(keys);
      const found = new Map<string, unknown>();
      for (const key of [...keys].sort()) {
        const value = this.kv.get(key);
        if (value !== undefined) found.set(key, value);
      }
      return found;
    });
  }

  put<T>(key: string, value: T): Promise<void>;
  put<T>(entries: Record<string, T>): Promise<void>;
  put(keyOrEntries: string | Record<string, unknown>, value?: unknown): Promise<void> {
    return settle(() => {
      if (typeof keyOrEntries === 'string') return this.kv.put(keyOrEntries, value);
      this.transactionSync(() => {
        for (const [key, entry] of Object.entries(keyOrEntries)) this.kv.put(key, entry);
      });
    });
  }

  delete(key: string): Promise<boolean>;
  delete(keys: string[]): Promise<number>;
  delete(keys: string | string[]): Promise<boolean | number> {
    return settle(() =>
      Array.isArray(keys) ? this.transactionSync(() => keys.filter((key) => this.kv.delete(key)).length) : this.kv.delete(keys),
    );
  }

  list<T = unknown>(options?: ListOptions): Promise<Map<string, T>> {
    return settle(() => new Map(this.kv.list<T>(options)));
  }

  /** Deletes every key and every SQL table, index, view and trigger; the alarm stays (delete it with deleteAlarm). */
  deleteAll(): Promise<void> {
    return settle(() => {
      const objects = this.#db
        .prepare(
          "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )
        .all() as { type: string; name: string }[];
      this.#db.exec('PRAGMA foreign_keys = OFF');
      try {
        this.transactionSync(() => {
          for (const { type, name } of objects)
            this.#db.exec(`DROP ${type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS "${name.replaceAll('"', '""')}"`);
          this.#db.exec('DELETE FROM _cf_KV');
        });
      } finally {
        this.#db.exec('PRAGMA foreign_keys = ON');
      }
    });
  }

  /** Runs `closure` in a transaction: all its writes or, if it throws, none. */
  transactionSync<T>(closure: () => T): T {
    const name = `cf_tx_${++this.#savepoints}`;
    this.#db.exec(`SAVEPOINT ${name}`);
    try {
      const result = closure();
      this.#db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.#db.exec(`ROLLBACK TO ${name}`);
      this.#db.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
    }
  }

  /** An async transaction; no other event of the object runs until it settles. `txn.rollback()` discards it. */
  async transaction<T>(closure: (txn: DurableObjectTransaction) => Promise<T>): Promise<T> {
    const open = this.#gate.close();
    const name = `cf_tx_${++this.#savepoints}`;
    this.#db.exec(`SAVEPOINT ${name}`);
    let rolledBack = false;
    const txn: DurableObjectTransaction = {
      get: ((keys: string & string[]) => this.get(keys)) as DurableObjectStorage['get'],
      put: ((key: string & Record<string, unknown>, value?: unknown) => this.put(key, value)) as DurableObjectStorage['put'],
      delete: ((keys: string & string[]) => this.delete(keys)) as DurableObjectStorage['delete'],
      list: (options) => this.list(options),
      getAlarm: () => this.getAlarm(),
      setAlarm: (time) => this.setAlarm(time),
      deleteAlarm: () => this.deleteAlarm(),
      rollback: () => {
        if (rolledBack) return;
        rolledBack = true;
        this.#db.exec(`ROLLBACK TO ${name}`);
      },
    };
    try {
      const result = await closure(txn);
      this.#db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (!rolledBack) this.#db.exec(`ROLLBACK TO ${name}`);
      this.#db.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
      open();
    }
  }

  getAlarm(): Promise<number | null> {
    return settle(() => this.#alarms.get());
  }

  setAlarm(scheduledTime: number | Date): Promise<void> {
    return settle(() => this.#alarms.set(scheduledTime instanceof Date ? scheduledTime.getTime() : scheduledTime));
  }

  deleteAlarm(): Promise<void> {
    return settle(() => this.#alarms.delete());
  }

  /** Writes are durable when they return (SQLite commits at once). */
  sync(): Promise<void> {
    return Promise.resolve();
  }
}

export type DurableObjectTransaction = Pick<
  DurableObjectStorage,
  'get' | 'put' | 'delete' | 'list' | 'getAlarm' | 'setAlarm' | 'deleteAlarm'
> & { rollback(): void };

/** A storage call's answer as a promise: the work is done now, errors reject. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

export interface DurableObjectState {
  readonly id: DurableObjectId;
  readonly storage: DurableObjectStorage;
  readonly props: unknown;
  waitUntil(promise: Promise<unknown>): void;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  abort(reason?: string): void;
}

/** What a namespace can host: a class constructed as the runtime constructs Durable Objects. */
export type DurableObjectConstructor<T, Env> = new (ctx: DurableObjectState, env: Env) => T;

interface Handlers {
  fetch?(request: Request): Response | Promise<Response>;
  alarm?(alarmInfo?: AlarmInvocationInfo): void | Promise<void>;
}

/** One object's alarm: persisted, timed, retried with exponential backoff when `alarm()` throws. */
class AlarmScheduler {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #version = 0;
  #running = false;
  #runVersion = 0;
  #closed = false;

  constructor(
    private readonly db: () => DatabaseSync,
    private readonly fire: (info: AlarmInvocationInfo) => Promise<void>,
    private readonly retry: Required<AlarmRetryOptions>,
  ) {}

  get(): number | null {
    // While it runs the alarm counts as spent, unless a new one was set meanwhile.
    if (this.#running && this.#version === this.#runVersion) return null;
    return (readMetadata(this.db(), 'alarm') as AlarmRecord | undefined)?.time ?? null;
  }

  set(time: number): void {
    if (!Number.isFinite(time)) throw new TypeError('setAlarm() requires a finite time in milliseconds');
    writeMetadata(this.db(), 'alarm', { time, retryCount: 0 } satisfies AlarmRecord);
    this.#version++;
    this.arm();
  }

  delete(): void {
    writeMetadata(this.db(), 'alarm', undefined);
    this.#version++;
    this.#clear();
  }

  /** Times the stored alarm (after a restart too); one alarm runs at a time. */
  arm(): void {
    this.#clear();
    if (this.#running || this.#closed) return;
    const record = readMetadata(this.db(), 'alarm') as AlarmRecord | undefined;
    if (!record) return;
    // setTimeout holds at most 2^31-1 ms; a later alarm is re-timed when that one ends.
    const delay = Math.min(Math.max(0, record.time - Date.now()), 2 ** 31 - 1);
    const timer = setTimeout(() => {
      this.#timer = undefined;
      if (Date.now() < record.time) this.arm();
      else void this.#run(record);
    }, delay);
    // A pending alarm alone does not keep the process alive (a host's server does).
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  close(): void {
    this.#closed = true;
    this.#clear();
  }

  async #run(record: AlarmRecord): Promise<void> {
    this.#running = true;
    // The record stays stored until alarm() has run, so a host that dies meanwhile runs it again
    // (at least once, as on Cloudflare); a setAlarm() or deleteAlarm() during the run supersedes it.
    const version = (this.#runVersion = this.#version);
    try {
      await this.fire({ isRetry: record.retryCount > 0, retryCount: record.retryCount, scheduledTime: record.time });
      if (this.#version === version) writeMetadata(this.db(), 'alarm', undefined);
    } catch (error) {
      const retry = this.#version === version && !this.#closed && record.retryCount < this.retry.maxRetries;
      if (retry) {
        const time = Date.now() + this.retry.baseMs * 2 ** record.retryCount;
        writeMetadata(this.db(), 'alarm', { time, retryCount: record.retryCount + 1 } satisfies AlarmRecord);
      } else {
        if (this.#version === version && !this.#closed) writeMetadata(this.db(), 'alarm', undefined);
        console.error(`alarm() failed${record.retryCount ? ` after ${record.retryCount} retries` : ''}:`, error);
      }
    } finally {
      this.#running = false;
      if (!this.#closed) this.arm();
    }
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** One object: its storage, its gate, its alarm and (created on first use) its instance. */
class ObjectHost<T extends object, Env> {
  readonly gate = new InputGate();
  readonly alarms: AlarmScheduler;
  readonly storage: DurableObjectStorage;
  readonly state: DurableObjectState;
  readonly #db: DatabaseSync;
  #instance: T | undefined;

  constructor(
    readonly id: DurableObjectId,
    path: string,
    private readonly create: (state: DurableObjectState) => T,
    retry: Required<AlarmRetryOptions>,
    private readonly pending: Set<Promise<unknown>>,
  ) {
    this.#db = openObjectDatabase(path);
    if (id.name !== undefined && readMetadata(this.#db, 'name') === undefined) writeMetadata(this.#db, 'name', id.name);
    this.alarms = new AlarmScheduler(
      () => this.#db,
      (info) => this.#alarm(info),
      retry,
    );
    this.storage = new DurableObjectStorage(this.#db, this.alarms, this.gate);
    this.state = {
      id,
      storage: this.storage,
      props: undefined,
      waitUntil: (promise) => this.#track(Promise.resolve(promise).catch((error) => console.error('waitUntil() promise rejected:', error))),
      blockConcurrencyWhile: async <R>(callback: () => Promise<R>): Promise<R> => {
        const open = this.gate.close();
        try {
          return await callback();
        } catch (error) {
          // As on Cloudflare, an object whose blockConcurrencyWhile callback throws is reset.
          this.#instance = undefined;
          throw error;
        } finally {
          open();
        }
      },
      abort: () => {
        this.#instance = undefined;
      },
    };
  }

  /** Work close() waits for. */
  #track(work: Promise<unknown>): void {
    const tracked = work.catch(() => {});
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  instance(): T {
    this.#instance ??= this.create(this.state);
    return this.#instance;
  }

  /** An RPC call: arguments and result are structured-cloned, as they are serialised between isolates. */
  async call(method: string, args: unknown[]): Promise<unknown> {
    const cloned = structuredClone(args);
    const instance = this.instance();
    await this.gate.enter();
    const target = (instance as Record<string, unknown>)[method];
    if (typeof target !== 'function') throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
    let result: unknown;
    try {
      result = await (target as (...a: unknown[]) => unknown).apply(instance, cloned);
    } catch (error) {
      throw cloneError(error);
    }
    return structuredClone(result);
  }

  async fetch(request: Request): Promise<Response> {
    const instance = this.instance() as Handlers;
    await this.gate.enter();
    if (typeof instance.fetch !== 'function') throw new TypeError('Handler does not export a fetch() function.');
    return await instance.fetch(request);
  }

  #alarm(info: AlarmInvocationInfo): Promise<void> {
    const run = (async () => {
      const instance = this.instance() as Handlers;
      await this.gate.enter();
      await instance.alarm?.(info);
    })();
    // close() waits for a running alarm as for waitUntil() work
    this.#track(run);
    return run;
  }

  close(): void {
    this.alarms.close();
    this.#db.close();
  }
}

/** An error as it arrives from the other side of an RPC call: structured-cloned (its class reduced to a built-in one). */
function cloneError(error: unknown): unknown {
  try {
    return structuredClone(error);
  } catch {
    return new Error(error instanceof Error ? error.message : String(error));
  }
}

const NOT_RPC = new Set(['alarm', 'connect', 'webSocketMessage', 'webSocketClose', 'webSocketError', 'constructor', 'then']);

type RpcMethods<T> = {
  [K in keyof T as K extends string
    ? T[K] extends (...args: never[]) => unknown
      ? K extends 'alarm' | 'fetch' | 'connect' | `webSocket${string}`
        ? never
        : K
      : never
    : never]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export type DurableObjectStub<T> = RpcMethods<T> & {
  readonly id: DurableObjectId;
  readonly name?: string;
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
};

export interface DurableObjectNamespaceOptions<Env> {
  /** Where each object's SQLite file lives (created if missing). */
  directory: string;
  env: Env;
  /** Mixed into idFromName's hash, so two namespaces give one name different ids (default: the class name). */
  name?: string;
  alarmRetry?: AlarmRetryOptions;
}

const ID = /^[0-9a-f]{64}$/;

export class DurableObjectNamespace<T extends object, Env = unknown> {
  readonly #hosts = new Map<string, ObjectHost<T, Env>>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #class: DurableObjectConstructor<T, Env>;
  readonly #options: DurableObjectNamespaceOptions<Env>;
  readonly #retry: Required<AlarmRetryOptions>;
  #closed = false;

  /** Opens the namespace and re-arms every stored alarm (the objects are created when theirs fire). */
  constructor(objectClass: DurableObjectConstructor<T, Env>, options: DurableObjectNamespaceOptions<Env>) {
    this.#class = objectClass;
    this.#options = options;
    this.#retry = { baseMs: options.alarmRetry?.baseMs ?? 2_000, maxRetries: options.alarmRetry?.maxRetries ?? 6 };
    Deno.mkdirSync(options.directory, { recursive: true });
    for (const entry of Deno.readDirSync(options.directory)) {
      const hex = entry.name.slice(0, -'.sqlite'.length);
      if (!entry.isFile || !entry.name.endsWith('.sqlite') || !ID.test(hex)) continue;
      const db = openObjectDatabase(join(options.directory, entry.name));
      const alarm = readMetadata(db, 'alarm');
      const name = readMetadata(db, 'name') as string | undefined;
      db.close();
      if (alarm !== undefined) this.#host(new ObjectId(hex, name)).alarms.arm();
    }
  }

  idFromName(name: string): DurableObjectId {
    const key = this.#options.name ?? this.#class.name;
    return new ObjectId(createHash('sha256').update(`${key}\0${name}`).digest('hex'), name);
  }

  idFromString(id: string): DurableObjectId {
    if (!ID.test(id)) throw new TypeError('Invalid Durable Object ID: must be 64 hex digits');
    return new ObjectId(id, this.#hosts.get(id)?.id.name);
  }

  newUniqueId(_options?: { jurisdiction?: string }): DurableObjectId {
    return new ObjectId(randomBytes(32).toString('hex'));
  }

  get(id: DurableObjectId, _options?: { locationHint?: string }): DurableObjectStub<T> {
    if (this.#closed) throw new Error('The Durable Object namespace is closed');
    const host = this.#host(id);
    const stub = {
      id: host.id,
      name: host.id.name,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => host.fetch(new Request(input, init)),
    };
    return new Proxy(stub, {
      get(target, property) {
        if (typeof property === 'symbol') return undefined;
        if (property in target) return target[property as keyof typeof target];
        if (NOT_RPC.has(property)) return undefined;
        return (...args: unknown[]) => host.call(property, args);
      },
    }) as unknown as DurableObjectStub<T>;
  }

  getByName(name: string, options?: { locationHint?: string }): DurableObjectStub<T> {
    return this.get(this.idFromName(name), options);
  }

  jurisdiction(_jurisdiction: string): this {
    return this;
  }

  /** Stops every alarm, waits for running alarms and waitUntil() work, and closes the objects' databases. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const host of this.#hosts.values()) host.alarms.close();
    while (this.#pending.size) await Promise.all(this.#pending);
    for (const host of this.#hosts.values()) host.close();
    this.#hosts.clear();
  }

  #host(id: DurableObjectId): ObjectHost<T, Env> {
    const hex = id.toString();
    let host = this.#hosts.get(hex);
    if (!host) {
      host = new ObjectHost<T, Env>(
        id,
        join(this.#options.directory, `${hex}.sqlite`),
        (state) => new this.#class(state, this.#options.env),
        this.#retry,
        this.#pending,
      );
      this.#hosts.set(hex, host);
    }
    return host;
  }
}
