// One object in process: its state (`ctx`), its input gate, its alarm timer and its instance.

import { setImmediate } from 'node:timers';
import type { DatabaseSync } from '../sqlite.ts';
import type { AlarmInvocationInfo, DurableObjectId } from './types.ts';
import {
  type AlarmRecord,
  type AlarmRetryOptions,
  DurableObjectStorage,
  openObjectDatabase,
  readMetadata,
  writeMetadata,
} from './storage.ts';

/** An error as it arrives from the other side of an RPC call: structured-cloned (its class reduced to a built-in one). */
function cloneError(error: unknown): unknown {
  try {
    return structuredClone(error);
  } catch {
    return new Error(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The input gate, as far as these objects can tell it apart: events (RPC calls, fetches, alarms)
 * are let in one per macrotask, so each runs until it waits on real I/O (storage answers at once,
 * so a read-modify-write through storage is never interleaved); `blockConcurrencyWhile` keeps
 * every other event out until its callback settles.
 */
export class InputGate {
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
export class AlarmScheduler {
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
export class ObjectHost<T extends object, Env> {
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
