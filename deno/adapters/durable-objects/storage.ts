// An object's storage (`ctx.storage`): the asynchronous key-value API, transactions and the alarm, over
// its SQLite file.

import { type DatabaseSync, openDatabase } from '../sqlite.ts';
import type { ListOptions } from './types.ts';
import { SqlStorage, SyncKvStorage } from './sql.ts';
import type { AlarmScheduler, InputGate } from './host.ts';

/** Where an object's alarm stands; the row in `_cf_METADATA` survives a restart. */
export interface AlarmRecord {
  time: number;
  retryCount: number;
}

export interface AlarmRetryOptions {
  /** The first retry's delay; each next one doubles it (Cloudflare starts at 2 s). */
  baseMs?: number;
  /** Retries after the first failure before the alarm is given up (Cloudflare allows 6). */
  maxRetries?: number;
}

export function readMetadata(db: DatabaseSync, key: string): unknown {
  const row = db.prepare('SELECT value FROM _cf_METADATA WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? JSON.parse(row.value) : undefined;
}

export function writeMetadata(db: DatabaseSync, key: string, value: unknown): void {
  if (value === undefined) db.prepare('DELETE FROM _cf_METADATA WHERE key = ?').run(key);
  else
    db.prepare('INSERT INTO _cf_METADATA (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      JSON.stringify(value),
    );
}

export function openObjectDatabase(path: string): DatabaseSync {
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
