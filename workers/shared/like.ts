/**
 * A user's text for a LIKE pattern: `%`, `_` and the escape character itself match literally.
 * Backslash is Postgres's default escape; SQLite needs `escape '\'` on the LIKE.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
