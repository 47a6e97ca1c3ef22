// What the host needs from a Worker's wrangler.toml: its entry module, [vars], required secrets,
// bindings (D1, R2, Durable Objects, services), static assets, Text module rules and Cron Triggers.
import { parse } from 'smol-toml';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface WorkerConfig {
  name: string;
  /** the wrangler.toml, absolute */
  configPath: string;
  /** the entry module, absolute */
  main: string;
  vars: Record<string, string>;
  requiredSecrets: string[];
  d1: { binding: string; databaseName: string; migrationsDir: string }[];
  r2: { binding: string; bucketName: string }[];
  durableObjects: { binding: string; className: string }[];
  services: { binding: string; service: string }[];
  assets?: { directory: string; binding?: string; runWorkerFirst: boolean };
  /** globs of `[[rules]] type = "Text"` */
  textRules: string[];
  crons: string[];
}

type Table = Record<string, unknown>;
const table = (value: unknown): Table => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Table) : {});
const tables = (value: unknown): Table[] => (Array.isArray(value) ? value.map(table) : []);
const str = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function parseWorkerConfig(configPath: string, text: string): WorkerConfig {
  const config = table(parse(text));
  const dir = dirname(configPath);
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(table(config.vars))) vars[key] = typeof value === 'string' ? value : JSON.stringify(value);
  const assets = config.assets === undefined ? undefined : table(config.assets);
  return {
    name: str(config.name),
    configPath,
    main: resolve(dir, str(config.main, 'src/index.ts')),
    vars,
    requiredSecrets: strings(table(config.secrets).required),
    d1: tables(config.d1_databases).map((db) => ({
      binding: str(db.binding),
      databaseName: str(db.database_name, str(db.binding)),
      migrationsDir: resolve(dir, str(db.migrations_dir, 'migrations')),
    })),
    r2: tables(config.r2_buckets).map((bucket) => ({
      binding: str(bucket.binding),
      bucketName: str(bucket.bucket_name, str(bucket.binding)),
    })),
    durableObjects: tables(table(config.durable_objects).bindings).map((b) => ({ binding: str(b.name), className: str(b.class_name) })),
    services: tables(config.services).map((s) => ({ binding: str(s.binding), service: str(s.service) })),
    assets: assets && {
      directory: resolve(dir, str(assets.directory)),
      binding: typeof assets.binding === 'string' ? assets.binding : undefined,
      runWorkerFirst: assets.run_worker_first === true,
    },
    textRules: tables(config.rules)
      .filter((rule) => rule.type === 'Text')
      .flatMap((rule) => strings(rule.globs)),
    crons: strings(table(config.triggers).crons),
  };
}

export function readWorkerConfig(configPath: string): WorkerConfig {
  return parseWorkerConfig(configPath, Deno.readTextFileSync(configPath));
}

/** The service's wrangler.toml (`workers/<name>/wrangler.toml`), or the router's (the root one). */
export function workerConfigPath(name: string): string {
  return name === 'router' ? join(ROOT, 'wrangler.toml') : join(ROOT, 'workers', name, 'wrangler.toml');
}
