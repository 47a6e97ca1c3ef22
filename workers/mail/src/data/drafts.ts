import { and, eq } from 'drizzle-orm';
import { aiDrafts, aiSummaries } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** A user's AI reply draft by its Graph draft id, or undefined. */
export const draftById = (db: MailDb, userId: number, draftId: string) =>
  db
    .select()
    .from(aiDrafts)
    .where(and(eq(aiDrafts.userId, userId), eq(aiDrafts.draftId, draftId)))
    .get();

/** A user's AI reply draft of an e-mail, or undefined. */
export const draftOfEmail = (db: MailDb, userId: number, emailId: string) =>
  db
    .select()
    .from(aiDrafts)
    .where(and(eq(aiDrafts.userId, userId), eq(aiDrafts.emailId, emailId)))
    .get();

/** Records the reply text a user gave a draft. */
export async function setDraftBody(db: MailDb, userId: number, draftId: string, bodyHtml: string): Promise<void> {
  await db
    .update(aiDrafts)
    .set({ bodyHtml, updatedAt: Date.now() })
    .where(and(eq(aiDrafts.userId, userId), eq(aiDrafts.draftId, draftId)));
}

/** Records a draft as sent and its e-mail as no longer needing a reply, in one batch. */
export async function markDraftSent(db: MailDb, userId: number, draftId: string, emailId: string): Promise<void> {
  const now = Date.now();
  await db.batch([
    db
      .update(aiDrafts)
      .set({ sentAt: now, updatedAt: now })
      .where(and(eq(aiDrafts.userId, userId), eq(aiDrafts.draftId, draftId))),
    db
      .update(aiSummaries)
      .set({ needsReply: 0, updatedAt: now })
      .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, emailId))),
  ]);
}
