// A Worker's `env`, made from its wrangler.toml with the adapters: [vars], the development
// secrets it requires, D1 (migrations applied), R2 buckets, Durable Object namespaces (classes
// from the Worker's own module exports), service bindings (in-process calls to the other service)
// and the static assets binding. State lives under `<stateDir>/<service>/`.
import { join } from 'node:path';
import { applyMigrations, D1Database } from '../adapters/d1.ts';
import { type DurableObjectConstructor, DurableObjectNamespace } from '../adapters/durable-objects.ts';
import { R2Bucket } from '../adapters/r2.ts';
import type { StaticAssets } from './assets.ts';
import type { WorkerConfig } from './wrangler-config.ts';

/** What a service binding reaches: the other service's request path (assets first, then its fetch). */
export type Fetch = (request: Request) => Promise<Response>;

export interface BindingOptions {
  stateDir: string;
  /** development secrets (.dev.vars); only the ones `[secrets] required` names are bound, as wrangler does */
  devVars: Record<string, string>;
  /** set last, over [vars] and secrets (`--var` on the command line) */
  overrides: Record<string, string>;
  module: Record<string, unknown>;
  assets?: StaticAssets;
  /** the running service of that name, or undefined when it is not served (the binding is left out) */
  service(name: string): Fetch | undefined;
}

export interface WorkerBindings {
  env: Record<string, unknown>;
  /** D1 databases by binding, for the seeds */
  d1: Map<string, D1Database>;
  close(): Promise<void>;
}

export async function createBindings(config: WorkerConfig, options: BindingOptions): Promise<WorkerBindings> {
  const dir = join(options.stateDir, config.name);
  const env: Record<string, unknown> = { ...config.vars };
  const secretNames = config.requiredSecrets.length ? config.requiredSecrets : Object.keys(options.devVars);
  for (const name of secretNames) if (options.devVars[name] !== undefined) env[name] = options.devVars[name];
  Object.assign(env, options.overrides);

  const d1 = new Map<string, D1Database>();
  for (const database of config.d1) {
    await Deno.mkdir(join(dir, 'd1'), { recursive: true });
    const db = new D1Database(join(dir, 'd1', `${database.databaseName}.sqlite`));
    await applyMigrations(db, database.migrationsDir);
    d1.set(database.binding, db);
    env[database.binding] = db;
  }
  for (const bucket of config.r2) env[bucket.binding] = new R2Bucket(join(dir, 'r2', bucket.bucketName));

  const namespaces: { close(): Promise<void> }[] = [];
  for (const binding of config.durableObjects) {
    const objectClass = options.module[binding.className];
    if (typeof objectClass !== 'function')
      throw new Error(`${config.name}: ${binding.binding} names class ${binding.className}, which ${config.main} does not export`);
    const namespace = new DurableObjectNamespace(objectClass as DurableObjectConstructor<object, unknown>, {
      directory: join(dir, 'do', binding.className),
      env,
    });
    namespaces.push(namespace);
    env[binding.binding] = namespace;
  }

  for (const binding of config.services) {
    const target = options.service(binding.service);
    if (!target) continue;
    env[binding.binding] = { fetch: (input: RequestInfo | URL, init?: RequestInit) => target(new Request(input, init)) };
  }

  if (config.assets?.binding && options.assets) {
    const assets = options.assets;
    env[config.assets.binding] = { fetch: (input: RequestInfo | URL, init?: RequestInit) => assets.fetch(input, init) };
  }

  return {
    env,
    d1,
    async close() {
      await Promise.all(namespaces.map((namespace) => namespace.close()));
      for (const db of d1.values()) db.close();
    },
  };
}
