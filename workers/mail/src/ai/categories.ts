import { type SQLWrapper, and, eq, sql } from 'drizzle-orm';
import { aiCategories, aiDrafts, aiSentReplies, aiSummaries } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';
import type { CategoryRule } from './task.ts';

export type ReplyMode = 'draft' | 'no_reply' | 'manual';

export interface Category extends CategoryRule {
  replyMode: ReplyMode;
  createdAt: number;
  updatedAt: number;
}

/** The user's categories, by name. */
export async function categoriesOf(db: MailDb, userId: number): Promise<Category[]> {
  const rows = await db.select().from(aiCategories).where(eq(aiCategories.userId, userId)).orderBy(aiCategories.name).all();
  return rows.map((r) => ({
    name: r.name,
    rule: r.rule,
    replyMode: r.replyMode as ReplyMode,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

/**
 * The "needs reply" rule: a received (inbound) message of a known category whose reply mode is
 * not `no_reply` (a category without a mode counts as `manual`).
 */
export const needsReply = (direction: string, category: string, replyMode: string | undefined): boolean =>
  direction === 'inbound' && category !== 'unknown' && replyMode !== 'no_reply';

/**
 * `needs_reply` in SQL for the user's e-mail `messageId` (a value or a column) that wants a reply:
 * 1, unless a reply drafted here was sent, or the owner sent a message in its conversation since
 * it arrived (from anywhere: tracked from Sent Items, ai_sent_replies).
 */
export const unlessReplied = (
  userId: number,
  messageId: SQLWrapper | string,
  conversation: { id: SQLWrapper | string; receivedAt: SQLWrapper | number },
) =>
  sql<number>`CASE WHEN EXISTS (SELECT 1 FROM ${aiDrafts} WHERE ${aiDrafts.userId} = ${userId} AND ${aiDrafts.emailId} = ${messageId} AND ${aiDrafts.sentAt} IS NOT NULL) OR EXISTS (SELECT 1 FROM ${aiSentReplies} WHERE ${aiSentReplies.userId} = ${userId} AND ${aiSentReplies.conversationId} = ${conversation.id} AND ${aiSentReplies.conversationId} <> '' AND ${aiSentReplies.sentAt} >= ${conversation.receivedAt}) THEN 0 ELSE 1 END`;

/**
 * `needs_reply` in SQL for stored summaries of a category with this reply mode: received ones,
 * unless the mode is `no_reply`, or the category is `unknown`, or a reply drafted here was sent.
 */
export function needsReplyColumn(userId: number, category: string, replyMode: string | undefined) {
  if (!needsReply('inbound', category, replyMode)) return sql<number>`0`;
  return sql<number>`CASE WHEN ${aiSummaries.direction} = 'inbound' THEN ${unlessReplied(userId, aiSummaries.messageId, { id: aiSummaries.conversationId, receivedAt: aiSummaries.receivedAt })} ELSE 0 END`;
}

/**
 * The update that sets a stored summary's category and recomputes its `needs_reply` from the
 * category's reply mode (`needsReplyColumn`); run it, or batch it.
 */
export function setCategory(db: MailDb, userId: number, messageId: string, category: string, categories: Category[]) {
  const replyMode = categories.find((c) => c.name === category)?.replyMode;
  return db
    .update(aiSummaries)
    .set({ category, needsReply: needsReplyColumn(userId, category, replyMode), updatedAt: Date.now() })
    .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, messageId)));
}
