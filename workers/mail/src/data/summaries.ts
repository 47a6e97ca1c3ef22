import { and, asc, desc, eq, or, sql } from 'drizzle-orm';
import { aiEmails, aiSummaries } from '#d1/mail/schema.ts';
import { sqliteContains } from '#shared/like.ts';
import { needsReplyColumn } from '../ai/categories.ts';
import type { MailDb } from '../context.ts';

/** The document store of e-mail summaries and the raw e-mails cache, per user. */

const own = (userId: number, messageId: string) => and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, messageId));

export interface SummaryFilter {
  search?: string;
  direction?: 'inbound' | 'outbound';
  category?: string;
  pinned?: boolean;
  needsReply?: boolean;
}

/** A page of the user's summaries (pinned first, then newest) and how many match in all. */
export async function summaryPage(db: MailDb, userId: number, filter: SummaryFilter, page: { offset: number; limit: number }) {
  const conditions = [eq(aiSummaries.userId, userId)];
  if (filter.direction) conditions.push(eq(aiSummaries.direction, filter.direction));
  if (filter.category) conditions.push(eq(aiSummaries.category, filter.category));
  if (filter.pinned !== undefined) conditions.push(eq(aiSummaries.pinned, filter.pinned ? 1 : 0));
  if (filter.needsReply !== undefined) conditions.push(eq(aiSummaries.needsReply, filter.needsReply ? 1 : 0));
  const search = filter.search?.trim();
  if (search)
    conditions.push(
      or(
        sqliteContains(aiSummaries.subject, search),
        sqliteContains(aiSummaries.summary, search),
        sqliteContains(aiSummaries.sender, search),
      )!,
    );
  const where = and(...conditions);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(aiSummaries)
      .where(where)
      .orderBy(desc(aiSummaries.pinned), desc(aiSummaries.receivedAt), asc(aiSummaries.messageId))
      .limit(page.limit)
      .offset(page.offset)
      .all(),
    db.select({ n: sql<number>`count(*)` }).from(aiSummaries).where(where).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The user's most recently updated summaries. */
export function latestSummaries(db: MailDb, userId: number, limit: number) {
  return db.select().from(aiSummaries).where(eq(aiSummaries.userId, userId)).orderBy(desc(aiSummaries.updatedAt)).limit(limit).all();
}

export interface SummaryChanges {
  summary?: string;
  bullets?: string[];
  /** With the category's reply mode, for `needs_reply` when it is not given. */
  category?: { name: string; replyMode: string | undefined };
  pinned?: boolean;
  needsReply?: boolean;
}

/** Updates a summary; `needs_reply` as given, else, when the category changes, as the new category's reply mode has it. */
export async function updateSummary(db: MailDb, userId: number, messageId: string, changes: SummaryChanges): Promise<void> {
  let needs: number | ReturnType<typeof needsReplyColumn> | undefined;
  if (changes.needsReply !== undefined) needs = changes.needsReply ? 1 : 0;
  else if (changes.category !== undefined) needs = needsReplyColumn(userId, changes.category.name, changes.category.replyMode);
  await db
    .update(aiSummaries)
    .set({
      ...(changes.summary !== undefined ? { summary: changes.summary } : {}),
      ...(changes.bullets !== undefined ? { bullets: JSON.stringify(changes.bullets) } : {}),
      ...(changes.category !== undefined ? { category: changes.category.name } : {}),
      ...(changes.pinned !== undefined ? { pinned: changes.pinned ? 1 : 0 } : {}),
      ...(needs !== undefined ? { needsReply: needs } : {}),
      updatedAt: Date.now(),
    })
    .where(own(userId, messageId));
}

/** Deletes a summary with its cached e-mail. */
export async function deleteSummary(db: MailDb, userId: number, messageId: string): Promise<void> {
  await db.batch([
    db.delete(aiSummaries).where(own(userId, messageId)),
    db.delete(aiEmails).where(and(eq(aiEmails.userId, userId), eq(aiEmails.messageId, messageId))),
  ]);
}

/** Toggles the pinned flag; answers the new one (undefined when there is no such summary). */
export async function togglePinned(db: MailDb, userId: number, messageId: string): Promise<boolean | undefined> {
  const [row] = await db
    .update(aiSummaries)
    .set({ pinned: sql`1 - ${aiSummaries.pinned}`, updatedAt: Date.now() })
    .where(own(userId, messageId))
    .returning({ pinned: aiSummaries.pinned });
  return row && row.pinned === 1;
}

/** A page of the raw e-mails cache, newest first, and its total. */
export async function cachedEmailPage(db: MailDb, userId: number, page: { offset: number; limit: number }) {
  const where = eq(aiEmails.userId, userId);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(aiEmails)
      .where(where)
      .orderBy(desc(aiEmails.cachedAt), asc(aiEmails.messageId))
      .limit(page.limit)
      .offset(page.offset)
      .all(),
    db.select({ n: sql<number>`count(*)` }).from(aiEmails).where(where).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Inbox Zero: received mail needing a reply, and the owner's messages with no answer since (newest first). */
export async function inboxZero(db: MailDb, userId: number, limit: number) {
  const [needs, awaiting] = await Promise.all([
    db
      .select()
      .from(aiSummaries)
      .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.needsReply, 1)))
      .orderBy(desc(aiSummaries.receivedAt))
      .limit(limit)
      .all(),
    // The owner's last word in a conversation: no inbound message after it.
    db
      .select()
      .from(aiSummaries)
      .where(
        and(
          eq(aiSummaries.userId, userId),
          eq(aiSummaries.direction, 'outbound'),
          sql`${aiSummaries.conversationId} <> ''`,
          sql`NOT EXISTS (SELECT 1 FROM ai_summaries later WHERE later.user_id = ${aiSummaries.userId} AND later.conversation_id = ${aiSummaries.conversationId} AND later.received_at > ${aiSummaries.receivedAt})`,
        ),
      )
      .orderBy(desc(aiSummaries.receivedAt))
      .limit(limit)
      .all(),
  ]);
  return { needs, awaiting };
}
