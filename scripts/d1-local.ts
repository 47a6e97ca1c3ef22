import { spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

// Local D1 (what `wrangler d1 execute --local` and `wrangler d1 migrations apply --local` read and
// write, and `wrangler dev` serves) without starting wrangler: the same SQLite file, written by
// SQLite itself (Deno's node:sqlite; the Node this project supports has no SQLite). A wrangler
// spawn costs seconds of CPU (its bundle, Miniflare, workerd); this costs a tenth of one.
// What wrangler 4 does, from its source (src/d1/execute.ts, migrations/apply.ts, splitter.ts):
// - the database is the config's D1 entry whose database_name or binding matches; its id is
//   preview_database_id, else database_id, else the binding;
// - Miniflare keeps it as a Durable Object of `miniflare-D1DatabaseObject` named by that id, in
//   <persist-to>/v3/d1/miniflare-D1DatabaseObject/<object id>.sqlite (persist-to resolved against
//   the working directory; without it, .wrangler/state next to the config);
// - SQL is split into statements (splitSqlQuery) and run as one batch: one transaction;
// - migrations: CREATE TABLE IF NOT EXISTS d1_migrations, the applied names, then each unapplied
//   file (names sorted, then by number) with `INSERT INTO d1_migrations (name) values ('…')`
//   appended, one batch per file.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DENO = join(ROOT, 'node_modules', '.bin', 'deno');
const RUNNER = join(ROOT, 'scripts', 'd1-local-sqlite.ts');
const D1_OBJECT = 'miniflare-D1DatabaseObject';

export type LocalD1Result = { results: Record<string, unknown>[]; success: true; meta: { duration: number } };

/** What scripts/d1-local-sqlite.ts is asked to do: migrations first, then each batch. */
export type LocalD1Request = {
  file: string;
  /** Applied by deno/adapters/d1.ts `applyMigrations`, which records them as wrangler does. */
  migrations?: { table: string; dir: string };
  batches?: string[][];
};

export type LocalD1Database = {
  id: string;
  /** the SQLite file Miniflare keeps the database in */
  file: string;
  migrationsDir: string;
  migrationsTable: string;
};

/** Miniflare's `durableObjectNamespaceIdFromName`: the id (and file name) of a named Durable Object. */
export function durableObjectIdFromName(uniqueKey: string, name: string): string {
  const key = createHash('sha256').update(uniqueKey).digest();
  const nameHmac = createHmac('sha256', key).update(name).digest().subarray(0, 16);
  const hmac = createHmac('sha256', key).update(nameHmac).digest().subarray(0, 16);
  return Buffer.concat([nameHmac, hmac]).toString('hex');
}

/** The local database `wrangler d1 … <name> --local [--persist-to persistTo] -c config` would use. */
export function localD1Database(config: string, name: string, persistTo?: string): LocalD1Database {
  const configPath = resolve(ROOT, config);
  const parsed = parse(readFileSync(configPath, 'utf8')) as { d1_databases?: Record<string, unknown>[] };
  const entry = (parsed.d1_databases ?? []).find((db) => db.database_name === name || db.binding === name);
  if (!entry) throw new Error(`Couldn't find a D1 DB with the name or binding '${name}' in ${config}`);
  // As wrangler's getDatabaseInfoFromConfig: `??` for the id, `||` for the migration settings.
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const id = text(entry.preview_database_id) ?? text(entry.database_id) ?? String(entry.binding);
  const state = persistTo ? resolve(ROOT, persistTo) : resolve(dirname(configPath), '.wrangler/state');
  return {
    id,
    file: join(state, 'v3', 'd1', D1_OBJECT, `${durableObjectIdFromName(D1_OBJECT, id)}.sqlite`),
    migrationsDir: resolve(dirname(configPath), text(entry.migrations_dir) || 'migrations'),
    migrationsTable: text(entry.migrations_table) || 'd1_migrations',
  };
}

function run(request: LocalD1Request): { results?: LocalD1Result[][]; applied?: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'd1-local-'));
  const file = join(dir, 'request.json');
  writeFileSync(file, JSON.stringify(request));
  try {
    const child = spawnSync(
      DENO,
      ['run', '--no-config', '--no-lock', '--quiet', '--no-prompt', '--allow-read', '--allow-write', RUNNER, file],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' },
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (child.error) throw child.error;
    let output: { results?: LocalD1Result[][]; applied?: string[]; error?: string } | undefined;
    try {
      output = JSON.parse(child.stdout);
    } catch {
      // Deno failed before printing its answer: the exit status and stderr say why.
    }
    if (child.status !== 0 || !output) throw new Error(`local D1 (${request.file}) failed:\n${child.stdout}${child.stderr}`);
    if (output.error !== undefined) throw new Error(output.error);
    return output;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Applies the config's D1 migrations for `name` to local storage, as `wrangler d1 migrations apply --local`. */
export function applyLocalD1MigrationsDirect(config: string, name: string, persistTo?: string): string[] {
  const db = localD1Database(config, name, persistTo);
  if (!existsSync(db.migrationsDir)) throw new Error(`No migrations present at ${db.migrationsDir}.`);
  return run({ file: db.file, migrations: { table: db.migrationsTable, dir: db.migrationsDir } }).applied ?? [];
}

/**
 * Runs SQL (one string, split as wrangler splits it, or statements) in one transaction against
 * local D1, as `wrangler d1 execute --local`; returns what its `--json` prints.
 */
export function executeLocalD1(config: string, name: string, sql: string | string[], persistTo?: string): LocalD1Result[] {
  const db = localD1Database(config, name, persistTo);
  const text = typeof sql === 'string' ? sql : sql.map((s) => `${s};`).join('\n');
  return run({ file: db.file, batches: [splitSqlQuery(text)] }).results![0]!;
}

/** The rows of one query against local D1 (`wrangler d1 execute --local --json --command sql`'s first results). */
export function queryLocalD1<T = Record<string, unknown>>(config: string, name: string, persistTo: string | undefined, sql: string): T[] {
  return executeLocalD1(config, name, sql, persistTo)[0]!.results as T[];
}

// wrangler's src/d1/trimmer.ts and splitter.ts (4.86), as they are.

function trimSqlQuery(sql: string): string {
  if (!sql.includes('BEGIN TRANSACTION')) return sql;
  const trimmed = sql.replace('BEGIN TRANSACTION;', '').replace('COMMIT;', '');
  if (trimmed.includes('BEGIN TRANSACTION')) {
    throw new Error(
      'Wrangler could not process the provided SQL file, as it contains several transactions.\nD1 runs your SQL in a transaction for you.',
    );
  }
  return trimmed;
}

function mayContainMultipleStatements(sql: string): boolean {
  const trimmed = sql.trimEnd();
  const semiColonIndex = trimmed.indexOf(';');
  return semiColonIndex !== -1 && semiColonIndex !== trimmed.length - 1;
}

export function splitSqlQuery(sql: string): string[] {
  const trimmedSql = trimSqlQuery(sql);
  if (!mayContainMultipleStatements(trimmedSql)) return [trimmedSql];
  const split = splitSqlIntoStatements(trimmedSql);
  return split.length === 0 ? [trimmedSql] : split;
}

function splitSqlIntoStatements(sql: string): string[] {
  const statements: string[] = [];
  let str = '';
  const compoundStatementStack: ((s: string) => boolean)[] = [];
  const iterator = sql[Symbol.iterator]();
  let next = iterator.next();
  while (!next.done) {
    const char = next.value;
    if (compoundStatementStack[0]?.(str + char)) compoundStatementStack.shift();
    switch (char) {
      case `'`:
      case `"`:
      case '`':
        str += char + consumeUntilMarker(iterator, char);
        break;
      case '$': {
        const dollarQuote = '$' + consumeWhile(iterator, isDollarQuoteIdentifier);
        str += dollarQuote;
        if (dollarQuote.endsWith('$')) str += consumeUntilMarker(iterator, dollarQuote);
        break;
      }
      case '-':
        next = iterator.next();
        if (!next.done && next.value === '-') {
          consumeUntilMarker(iterator, '\n');
          str += '\n';
          break;
        } else {
          str += char;
          continue;
        }
      case '/':
        next = iterator.next();
        if (!next.done && next.value === '*') {
          consumeUntilMarker(iterator, '*/');
          break;
        } else {
          str += char;
          continue;
        }
      case ';':
        if (compoundStatementStack.length === 0) {
          statements.push(str);
          str = '';
        } else {
          str += char;
        }
        break;
      default:
        str += char;
        break;
    }
    if (isCompoundStatementStart(str)) compoundStatementStack.unshift(isCompoundStatementEnd);
    next = iterator.next();
  }
  statements.push(str);
  return statements.map((statement) => statement.trim()).filter((statement) => statement.length > 0);
}

function consumeWhile(iterator: Iterator<string>, predicate: (s: string) => boolean): string {
  let next = iterator.next();
  let str = '';
  while (!next.done) {
    str += next.value;
    if (!predicate(str)) break;
    next = iterator.next();
  }
  return str;
}

function consumeUntilMarker(iterator: Iterator<string>, endMarker: string): string {
  return consumeWhile(iterator, (str) => !str.endsWith(endMarker));
}

function isDollarQuoteIdentifier(str: string): boolean {
  const lastChar = str.slice(-1);
  return lastChar !== '$' && (/[0-9_]/i.test(lastChar) || lastChar.toLowerCase() !== lastChar.toUpperCase());
}

function isCompoundStatementStart(str: string): boolean {
  return /\s(BEGIN|CASE)\s$/i.test(str);
}

function isCompoundStatementEnd(str: string): boolean {
  return /\sEND[;\s]$/.test(str);
}
