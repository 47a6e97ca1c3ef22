// Durable Objects in process: a namespace per class, one instance per id, each object's storage
// in its own SQLite file, alarms persisted and re-armed on start (see README.md). The namespace and
// its stubs are here; an object's host, storage and SQL API are in durable-objects/.

import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DurableObjectId } from './durable-objects/types.ts';
import { type AlarmRetryOptions, openObjectDatabase, readMetadata } from './durable-objects/storage.ts';
import { type DurableObjectConstructor, ObjectHost } from './durable-objects/host.ts';

export type { DurableObjectConstructor, DurableObjectState } from './durable-objects/host.ts';
export type { AlarmInvocationInfo } from './durable-objects/types.ts';

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
