import { and, eq, lt } from 'drizzle-orm';
import { sessions } from '#d1/mail/schema.ts';
import type { SessionRow, SessionStore } from '#shared/browser-session.ts';
import type { MailDb, SessionUser } from '../context.ts';

type Row = typeof sessions.$inferSelect;

const sessionOf = (row: Row): SessionRow<SessionUser> => ({
  idHash: row.idHash,
  profile: { id: row.userId, email: row.email, name: row.name },
  refreshTokenSealed: row.refreshTokenSealed,
  checkedAt: row.checkedAt,
  expiresAt: row.expiresAt,
});

/** The mail assistant's session rows (D1 `sessions`), as the shared browser session keeps them. */
export function sessionStore(db: MailDb): SessionStore<SessionUser> {
  return {
    async insert({ idHash, profile, refreshTokenSealed, checkedAt, expiresAt }) {
      await db.insert(sessions).values({
        idHash,
        userId: profile.id,
        email: profile.email,
        name: profile.name,
        refreshTokenSealed,
        createdAt: checkedAt,
        expiresAt,
        checkedAt,
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
