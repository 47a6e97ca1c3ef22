import { and, eq, lt } from 'drizzle-orm';
import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { SessionRow, SessionStore } from './browser-session.ts';

/**
 * The one D1 store of browser sessions (workers/shared/browser-session.ts) for the services that
 * keep them in their own D1 database (CMS, mail). Each passes its drizzle `sessions` table, which
 * has these four columns under these names, and says how its other columns hold the person's
 * profile; the queries (claim a recheck by compare-and-set, delete returning the row, drop the
 * expired) are the same for all.
 */

/** The columns every session table has. */
export type SessionTable = SQLiteTable & {
  idHash: SQLiteColumn;
  refreshTokenSealed: SQLiteColumn;
  checkedAt: SQLiteColumn;
  expiresAt: SQLiteColumn;
};

/** How a service's table holds its rows: the values of a new row, and the profile of a stored one. */
export interface SessionColumns<P, T extends SessionTable> {
  /** All the columns of a new row (the shared four included). */
  values(row: SessionRow<P>): T['$inferInsert'];
  profile(row: T['$inferSelect']): P;
}

/** Any service's drizzle D1 database (its schema does not matter to these queries). */
type AnyD1 = DrizzleD1Database<any>;

/** The session rows of `table` in a service's D1 database. */
export function d1SessionStore<P, T extends SessionTable>(db: AnyD1, table: T, columns: SessionColumns<P, T>): SessionStore<P> {
  type Stored = T['$inferSelect'] & { idHash: string; refreshTokenSealed: string; checkedAt: number; expiresAt: number };
  const sessionOf = (row: Stored): SessionRow<P> => ({
    idHash: row.idHash,
    profile: columns.profile(row),
    refreshTokenSealed: row.refreshTokenSealed,
    checkedAt: row.checkedAt,
    expiresAt: row.expiresAt,
  });
  const byId = (idHash: string) => eq(table.idHash, idHash);
  return {
    async insert(row) {
      await db.insert(table).values(columns.values(row)).run();
    },
    async find(idHash) {
      const row = (await db.select().from(table).where(byId(idHash)).get()) as Stored | undefined;
      return row ? sessionOf(row) : undefined;
    },
    async claimRecheck(idHash, seen, now) {
      const claimed = await db
        .update(table)
        .set({ checkedAt: now } as Partial<T['$inferInsert']>)
        .where(and(byId(idHash), eq(table.checkedAt, seen)))
        .run();
      return claimed.meta.changes === 1;
    },
    async releaseRecheck(idHash, checkedAt) {
      await db
        .update(table)
        .set({ checkedAt } as Partial<T['$inferInsert']>)
        .where(byId(idHash))
        .run();
    },
    async reseal(idHash, refreshTokenSealed) {
      await db
        .update(table)
        .set({ refreshTokenSealed } as Partial<T['$inferInsert']>)
        .where(byId(idHash))
        .run();
    },
    async remove(idHash) {
      const row = (await db.delete(table).where(byId(idHash)).returning().get()) as Stored | undefined;
      return row ? sessionOf(row) : undefined;
    },
    async removeExpired(now) {
      await db.delete(table).where(lt(table.expiresAt, now)).run();
    },
  };
}
