import { and, desc, eq, sql } from 'drizzle-orm';
import { aiSenderJobs } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** "Unsubscribe and archive" jobs of one sender each (the archive runs in the mailbox object: sender-jobs.ts). */

export type SenderJob = typeof aiSenderJobs.$inferSelect;

export async function createSenderJob(
  db: MailDb,
  userId: number,
  input: { sender: string; method: string; outcome: string; detail: string },
): Promise<SenderJob> {
  const now = Date.now();
  const [row] = await db
    .insert(aiSenderJobs)
    .values({
      id: crypto.randomUUID(),
      userId,
      ...input,
      detail: input.detail.slice(0, 2000),
      status: 'queued',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

export function senderJob(db: MailDb, userId: number, id: string) {
  return db
    .select()
    .from(aiSenderJobs)
    .where(and(eq(aiSenderJobs.userId, userId), eq(aiSenderJobs.id, id)))
    .get();
}

/** The user's latest jobs, newest first. */
export function latestSenderJobs(db: MailDb, userId: number, limit = 10) {
  return db.select().from(aiSenderJobs).where(eq(aiSenderJobs.userId, userId)).orderBy(desc(aiSenderJobs.createdAt)).limit(limit).all();
}

/** A step's progress: `archived` and `failed` are added to the counts so far. */
export async function senderJobProgress(
  db: MailDb,
  id: string,
  step: { archived: number; failed: number; status: string; resumed?: boolean; error?: string | null; finished?: boolean },
): Promise<void> {
  const now = Date.now();
  await db
    .update(aiSenderJobs)
    .set({
      archived: sql`${aiSenderJobs.archived} + ${step.archived}`,
      failed: sql`${aiSenderJobs.failed} + ${step.failed}`,
      resumed: step.resumed ? sql`${aiSenderJobs.resumed} + 1` : aiSenderJobs.resumed,
      status: step.status,
      error: step.error ?? null,
      updatedAt: now,
      ...(step.finished ? { finishedAt: now } : {}),
    })
    .where(eq(aiSenderJobs.id, id));
}
