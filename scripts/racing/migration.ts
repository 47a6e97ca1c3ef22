import { readFile } from 'node:fs/promises';

// The racing schema as drizzle-kit wrote it, split so a bulk load can create the tables first
// and build indexes and foreign keys once the rows are in (several times faster than keeping
// them up to date row by row).

const MIGRATIONS = new URL('../../workers/shared/racing/migrations/', import.meta.url);

export interface RacingMigration {
  /** CREATE TABLE (and anything else that must exist before rows arrive). */
  tables: string[];
  /** CREATE INDEX, DROP INDEX, ALTER TABLE … ADD CONSTRAINT and SELECT (a fill from the loaded rows): applied after the load, in order. */
  afterLoad: string[];
  /** Every table a migration creates, those a later one drops included (a reload drops them all). */
  createdTables: string[];
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

function isJournal(value: unknown): value is Journal {
  return (
    typeof value === 'object' &&
    value !== null &&
    'entries' in value &&
    Array.isArray(value.entries) &&
    value.entries.every((e: unknown) => typeof e === 'object' && e !== null && 'tag' in e && typeof e.tag === 'string')
  );
}

async function journalTags(): Promise<string[]> {
  const journal: unknown = JSON.parse(await readFile(new URL('meta/_journal.json', MIGRATIONS), 'utf8'));
  if (!isJournal(journal)) throw new Error('racing migrations: meta/_journal.json is not a drizzle-kit journal');
  return [...journal.entries].sort((a, b) => a.idx - b.idx).map((e) => e.tag);
}

/**
 * The statements of one racing migration, by its journal tag (`0004_stats_daily_aggregates`) or
 * its file name (`0004_stats_daily_aggregates.sql`), in order, as drizzle-kit split them.
 */
export async function migrationStatements(tagOrFile: string): Promise<string[]> {
  const tag = tagOrFile.replace(/\.sql$/, '');
  if (!(await journalTags()).includes(tag)) throw new Error(`racing migrations: no migration ${tag} in meta/_journal.json`);
  return statementsOf(tag);
}

/** The statements of the migration file of a tag known to be in the journal. */
async function statementsOf(tag: string): Promise<string[]> {
  const sql = await readFile(new URL(`${tag}.sql`, MIGRATIONS), 'utf8');
  return sql
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function readRacingMigration(): Promise<RacingMigration> {
  const migration: RacingMigration = { tables: [], afterLoad: [], createdTables: [] };
  for (const tag of await journalTags()) {
    for (const statement of await statementsOf(tag)) {
      const code = statement.replace(/^(--[^\n]*\n\s*)*/, '');
      // A later migration's DROP INDEX follows the CREATE INDEX of an earlier one.
      const deferred = /^(CREATE (UNIQUE )?INDEX|DROP INDEX|ALTER TABLE \S+ ADD CONSTRAINT|SELECT )/i.test(code);
      const created = /^CREATE TABLE (IF NOT EXISTS )?"?([\w]+)"?/i.exec(code)?.[2];
      if (created && !migration.createdTables.includes(created)) migration.createdTables.push(created);
      (deferred ? migration.afterLoad : migration.tables).push(statement);
    }
  }
  return migration;
}

/**
 * The migration engine's bookkeeping tables (racing migrations 0002, 0005 and 0006) on a database
 * loaded without them (a bench or test database on a real server): the migrations' statements, made
 * idempotent (the database may have them already), without the index of 0002 that 0005 drops.
 */
export async function ensureEngineBookkeeping(query: (text: string) => Promise<unknown>): Promise<void> {
  const statements = [
    ...(await migrationStatements('0002_migration_bookkeeping')),
    ...(await migrationStatements('0005_id_ranges')),
    ...(await migrationStatements('0006_migration_rejects')),
  ];
  const dropped = statements.flatMap((s) => /^DROP INDEX (?:IF EXISTS )?("?\w+"?)/i.exec(s)?.[1] ?? []);
  for (const statement of statements) {
    const index = /^CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?("?\w+"?)/i.exec(statement)?.[1];
    if (index && dropped.includes(index)) continue;
    await query(
      statement
        .replace(/^CREATE TABLE (?!IF NOT EXISTS)/i, 'CREATE TABLE IF NOT EXISTS ')
        .replace(/^DROP INDEX (?!IF EXISTS)/i, 'DROP INDEX IF EXISTS '),
    );
  }
}
