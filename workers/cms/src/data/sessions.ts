import { and, eq, lt } from 'drizzle-orm';
import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type * as schema from '#d1/cms/schema.ts';
import { sessions } from '#d1/cms/schema.ts';
import type { SessionRow, SessionStore } from '#shared/browser-session.ts';
import type { SessionUser } from '../context.ts';

type Row = typeof sessions.$inferSelect;

const profileOf = (row: Row): SessionUser => ({
  id: row.userId,
  email: row.email,
  firstName: row.firstName,
  lastName: row.lastName,
  role: row.role,
});

const sessionOf = (row: Row): SessionRow<SessionUser> => ({
  idHash: row.idHash,
  profile: profileOf(row),
  refreshTokenSealed: row.refreshTokenSealed,
  checkedAt: row.checkedAt,
  expiresAt: row.expiresAt,
});

/** The CMS's session rows (D1 `sessions`), as the shared browser session keeps them. */
export function sessionStore(db: DrizzleD1Database<typeof schema>): SessionStore<SessionUser> {
  return {
    async insert({ idHash, profile, refreshTokenSealed, checkedAt, expiresAt }) {
      await db.insert(sessions).values({
        idHash,
        userId: profile.id,
        email: profile.email,
        firstName: profile.firstName,
        lastName: profile.lastName,
        role: profile.role,
        refreshTokenSealed,
        checkedAt,
        expiresAt,
      });
    },
    async find(idHash) {
      const row = await db.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
      return row ? sessionOf(row) : undefined;
    },
    async claimRecheck(idHash, seen, now) {
      const claimed = await db
        .update(sessions)
        .set({ checkedAt: now })
        .where(and(eq(sessions.idHash, idHash), eq(sessions.checkedAt, seen)))
        .run();
      return claimed.meta.changes === 1;
    },
    async releaseRecheck(idHash, checkedAt) {
      await db.update(sessions).set({ checkedAt }).where(eq(sessions.idHash, idHash)).run();
    },
    async reseal(idHash, refreshTokenSealed) {
      await db.update(sessions).set({ refreshTokenSealed }).where(eq(sessions.idHash, idHash)).run();
    },
    async remove(idHash) {
      const row = await db.delete(sessions).where(eq(sessions.idHash, idHash)).returning().get();
      return row ? sessionOf(row) : undefined;
    },
    async removeExpired(now) {
      await db.delete(sessions).where(lt(sessions.expiresAt, now)).run();
    },
  };
}
