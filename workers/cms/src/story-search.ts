import { sql, type SQL } from 'drizzle-orm';
import { sqliteContains } from '../../shared/like';

// Story text search through `stories_search`, an FTS5 index with the trigram tokenizer over the
// stories' title and summary (external content: the index keeps no copy of the text). Every batch
// that writes a story writes the index in the same batch (story-writes.ts, indexStatements).
//
// The index only narrows the candidates: a trigram phrase finds every story whose text contains the
// term with case folded, and the same `instr(lower(…), lower(…))` test as before then decides, so
// the matching is exactly what it was (trigram folding also covers non-ASCII letters, which
// SQLite's `lower` leaves alone). A term under three characters has no trigram: it is tested on
// every row, as before.

export type StoryTextColumn = 'title' | 'summary';

/** Characters, not bytes: the tokenizer reads characters. */
const TRIGRAM = 3;

/** The term as one FTS5 phrase (a double quote inside is doubled), limited to the given columns. */
export function ftsPhrase(columns: readonly StoryTextColumn[], text: string): string {
  return `{${columns.join(' ')}} : "${text.replace(/"/g, '""')}"`;
}

/** `s` (the stories row) contains `text` in one of `columns`, ASCII case folded. */
export function storyTextContains(columns: readonly StoryTextColumn[], text: string): SQL {
  const exact = sql.join(columns.map((column) => sqliteContains(sql.raw(`s.${column}`), text)), sql` or `);
  if ([...text].length < TRIGRAM) return sql`(${exact})`;
  return sql`(s.id in (select rowid from stories_search where stories_search match ${ftsPhrase(columns, text)}) and (${exact}))`;
}

/** The statements that take a story out of the index (before its row changes or goes). */
export const unindexStory = (id: SQL) =>
  sql`insert into stories_search (stories_search, rowid, title, summary) select 'delete', id, title, summary from stories where id = ${id}`;

/** The statements that put a story into the index (after its row is written). */
export const indexStory = (id: SQL) => sql`insert into stories_search (rowid, title, summary) select id, title, summary from stories where id = ${id}`;
