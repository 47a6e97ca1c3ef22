import { readFile } from 'node:fs/promises';

// The racing schema as drizzle-kit wrote it, split so a bulk load can create the tables first
// and build indexes and foreign keys once the rows are in (several times faster than keeping
// them up to date row by row).

const MIGRATIONS = new URL('../../workers/shared/racing/migrations/', import.meta.url);

export interface RacingMigration {
  /** CREATE TABLE (and anything else that must exist before rows arrive). */
  tables: string[];
  /** CREATE INDEX and ALTER TABLE … ADD CONSTRAINT: applied after the load. */
  afterLoad: string[];
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

function isJournal(value: unknown): value is Journal {
  return (
    typeof value === 'object' && value !== null && 'entries' in value && Array.isArray(value.entries) &&
    value.entries.every((e: unknown) => typeof e === 'object' && e !== null && 'tag' in e && typeof e.tag === 'string')
  );
}

export async function readRacingMigration(): Promise<RacingMigration> {
  const journal: unknown = JSON.parse(await readFile(new URL('meta/_journal.json', MIGRATIONS), 'utf8'));
  if (!isJournal(journal)) throw new Error('racing migrations: meta/_journal.json is not a drizzle-kit journal');
  const migration: RacingMigration = { tables: [], afterLoad: [] };
  for (const { tag } of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
    const sql = await readFile(new URL(`${tag}.sql`, MIGRATIONS), 'utf8');
    for (const statement of sql.split('--> statement-breakpoint').map((s) => s.trim()).filter(Boolean)) {
      const deferred = /^(CREATE (UNIQUE )?INDEX|ALTER TABLE \S+ ADD CONSTRAINT)/i.test(statement);
      (deferred ? migration.afterLoad : migration.tables).push(statement);
    }
  }
  return migration;
}
