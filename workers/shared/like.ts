import { sql, type SQL } from 'drizzle-orm';

/**
 * A user's text for a LIKE pattern: `%`, `_` and the escape character itself match literally.
 * Backslash is Postgres's default escape; SQLite needs `escape '\'` on the LIKE.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/**
 * A case-insensitive substring match in SQLite (D1) for a text of any length. D1 refuses LIKE
 * patterns over 50 bytes, so `instr` is used instead of `LIKE '%…%'`: no wildcards to escape, no
 * pattern limit, and `lower` on both sides folds ASCII case exactly as SQLite's LIKE does.
 */
export const sqliteContains = (column: unknown, text: string): SQL => sql`instr(lower(${column}), lower(${text})) > 0`;
