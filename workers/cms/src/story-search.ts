import { sql, type SQL } from 'drizzle-orm';
import { sqliteContains } from '#shared/like.ts';

// Story text search through `stories_search`, an FTS5 index with the trigram tokenizer over the
// stories' title and summary (d1/cms/migrations/0002_story_search_exact.sql). Every batch that
// writes a story writes the index in the same batch (story-writes.ts).
//
// The matching rule is `instr(lower(text), lower(term)) > 0`: a substring test with ASCII case
// folded, as SQLite's `lower` folds (non-ASCII letters stay as they are: É is not é). The index
// decides it alone: it holds the text as `lower` gives it (its external content is the view
// `stories_search_text`), its tokenizer is case-sensitive, and a trigram phrase matches exactly the
// texts that contain the phrase. So the phrase of the lowered term finds every story and only those,
// and no story row is read to check. A term under three characters has no trigram: it is tested on
// every row.

export type StoryTextColumn = 'title' | 'summary';

/** Characters, not bytes: the tokenizer reads characters. */
const TRIGRAM = 3;

/** The term as one FTS5 phrase (a double quote inside is doubled), limited to the given columns. */
export function ftsPhrase(columns: readonly StoryTextColumn[], text: string): string {
  return `{${columns.join(' ')}} : "${text.replace(/"/g, '""')}"`;
}

/** `s` (the stories row) contains `text` in one of `columns`, ASCII case folded. */
export function storyTextContains(columns: readonly StoryTextColumn[], text: string): SQL {
  if ([...text].length < TRIGRAM) {
    return sql`(${sql.join(
      columns.map((column) => sqliteContains(sql.raw(`s.${column}`), text)),
      sql` or `,
    )})`;
  }
  // lower() of the whole phrase: the column names are lower case already, the quotes unchanged.
  return sql`s.id in (select rowid from stories_search where stories_search match lower(${ftsPhrase(columns, text)}))`;
}

/** Takes a story out of the index (before its row changes or goes): FTS5 needs the indexed text. */
export const unindexStory = (id: SQL) =>
  sql`insert into stories_search (stories_search, rowid, title, summary) select 'delete', id, title, summary from stories_search_text where id = ${id}`;

/** Puts a story into the index (after its row is written). */
export const indexStory = (id: SQL) =>
  sql`insert into stories_search (rowid, title, summary) select id, title, summary from stories_search_text where id = ${id}`;
