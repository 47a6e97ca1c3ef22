import { and, eq, inArray, sql } from 'drizzle-orm';
import { aiJobs, aiUsers, mailboxes, sessions } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** The accounts allowed to use the assistant beyond its admins (MAIL_ASSISTANT_ADMINS). */
export interface AssistantUser {
  email: string;
  name: string;
  admin: boolean;
  added_by: string | null;
  created_at: string | null;
}

const view = (r: typeof aiUsers.$inferSelect): AssistantUser => ({
  email: r.email,
  name: r.name,
  admin: false,
  added_by: r.addedBy,
  created_at: new Date(r.createdAt).toISOString(),
});

/** The listed accounts, by address. */
export async function listedUsers(db: MailDb): Promise<AssistantUser[]> {
  return (await db.select().from(aiUsers).orderBy(aiUsers.email).all()).map(view);
}

/** Lists an account (its address in lower case); `added` is false when it was listed already. */
export async function addUser(
  db: MailDb,
  input: { email: string; name: string; addedBy: string },
): Promise<{ user: AssistantUser; added: boolean }> {
  const email = input.email.toLowerCase();
  const added = await db
    .insert(aiUsers)
    .values({ email, name: input.name, addedBy: input.addedBy, createdAt: Date.now() })
    .onConflictDoNothing()
    .returning();
  const row = added[0] ?? (await db.select().from(aiUsers).where(eq(aiUsers.email, email)).get())!;
  return { user: view(row), added: added.length > 0 };
}

export async function listedUser(db: MailDb, email: string): Promise<AssistantUser | undefined> {
  const row = await db.select().from(aiUsers).where(eq(aiUsers.email, email.toLowerCase())).get();
  return row && view(row);
}

/** What the status of a job stopped because its owner may no longer use the assistant reads. */
const CANCELLED = 'cancelled';

/**
 * Takes an account off the list. Its access ends at once (the assistant guard reads the list on
 * every request); its re-categorisation jobs still queued or running are cancelled (they stop at
 * their next step). Its sign-in session and mailbox connection stay — the list is unrelated to
 * signing in — and so do its categories, prompts and summaries (the user's data). Answers false
 * when the address was not listed.
 */
export async function removeUser(db: MailDb, email: string): Promise<{ removed: boolean; jobsCancelled: number }> {
  const address = email.toLowerCase();
  if (!(await listedUser(db, address))) return { removed: false, jobsCancelled: 0 };
  // the account's user ids: its sessions' (the address signed in with) and its mailbox's
  const ids = await db
    .select({ id: sessions.userId })
    .from(sessions)
    .where(sql`lower(${sessions.email}) = ${address}`)
    .union(db.select({ id: mailboxes.userId }).from(mailboxes).where(sql`lower(${mailboxes.mail}) = ${address}`))
    .all();
  const userIds = ids.map((r) => r.id);
  const [deleted, cancelled] = await db.batch([
    db.delete(aiUsers).where(eq(aiUsers.email, address)).returning({ email: aiUsers.email }),
    db
      .update(aiJobs)
      .set({ status: CANCELLED, error: 'The account may no longer use the assistant.', finishedAt: Date.now() })
      .where(and(inArray(aiJobs.userId, userIds.length ? userIds : [-1]), inArray(aiJobs.status, ['queued', 'running']))),
  ]);
  if (!deleted.length) return { removed: false, jobsCancelled: 0 };
  return { removed: true, jobsCancelled: cancelled.meta.changes ?? 0 };
}
