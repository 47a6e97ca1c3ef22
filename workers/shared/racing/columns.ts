import { sql } from 'drizzle-orm';
import { type AnyPgColumn, date, index, integer, timestamp } from 'drizzle-orm/pg-core';

// Builders for the kinds of column the racing tables share (schema.ts); each call makes a new column.

/** A generated row's key. */
export const identity = () => integer('id').primaryKey().generatedByDefaultAsIdentity();
/** A required reference to another table's row. */
export const reference = <N extends string>(name: N, target: () => AnyPgColumn) => integer(name).notNull().references(target);
/** A calendar date, as `YYYY-MM-DD` text. */
export const day = <N extends string>(name: N) => date(name, { mode: 'string' });
/** An instant with its time zone, as ISO text. */
export const instant = <N extends string>(name: N) => timestamp(name, { withTimezone: true, mode: 'string' });
/** When the row was written: now, unless the writer says otherwise. */
export const writtenAt = <N extends string>(name: N) => instant(name).notNull().defaultNow();
/** A count that starts at zero. */
export const counter = <N extends string>(name: N) => integer(name).notNull().default(0);
/** A name searched by prefix, whatever its case (`lower(name) LIKE 'abc%'`). */
export const nameSearchIndex = (table: string, name: AnyPgColumn) =>
  index(`${table}_name_lower_idx`).on(sql`lower(${name}) text_pattern_ops`);
