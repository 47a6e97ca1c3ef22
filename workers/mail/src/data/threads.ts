import { and, eq } from 'drizzle-orm';
import { aiThreadSummaries } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** Rolling conversation summaries, per user and conversation. */

export function threadSummary(db: MailDb, userId: number, threadId: string) {
  return db
    .select()
    .from(aiThreadSummaries)
    .where(and(eq(aiThreadSummaries.userId, userId), eq(aiThreadSummaries.threadId, threadId)))
    .get();
}

export async function saveThreadSummary(
  db: MailDb,
  userId: number,
  threadId: string,
  values: { summary: string; bullets: string; messageCount: number; seen: string; updatedAt: number },
): Promise<void> {
  await db
    .insert(aiThreadSummaries)
    .values({ userId, threadId, ...values })
    .onConflictDoUpdate({ target: [aiThreadSummaries.userId, aiThreadSummaries.threadId], set: values });
}
