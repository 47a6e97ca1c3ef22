import { and, desc, eq, isNull, lt, lte, sql } from 'drizzle-orm';
import { aiReplySettings, aiSentReplies, aiSummaries } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** Replies tracked wherever they are sent: the queries (see ai/replies.ts for the flow). */

export const DEFAULT_FOLLOW_UP_DAYS = 3;
export const MAX_FOLLOW_UP_DAYS = 60;
const DAY_MS = 86_400_000;

export interface SentMessage {
  messageId: string;
  conversationId: string;
  subject: string;
  recipients: { name: string; address: string }[];
  sentAt: number;
}

/**
 * A message the owner sent: tracked as awaiting an answer (once per message), earlier ones of its
 * conversation superseded, and every received message of the conversation up to it no longer
 * needing a reply. Answers how many summaries it cleared.
 */
export async function recordSent(db: MailDb, userId: number, sent: SentMessage): Promise<{ cleared: number; tracked: boolean }> {
  const now = Date.now();
  const conversation = and(eq(aiSentReplies.userId, userId), eq(aiSentReplies.conversationId, sent.conversationId));
  // An answer already stored (the inbound message processed before this notification) answers it at once.
  const answered = await db
    .select({ messageId: aiSummaries.messageId, receivedAt: aiSummaries.receivedAt })
    .from(aiSummaries)
    .where(
      and(
        eq(aiSummaries.userId, userId),
        eq(aiSummaries.conversationId, sent.conversationId),
        eq(aiSummaries.direction, 'inbound'),
        sql`${aiSummaries.receivedAt} > ${sent.sentAt}`,
      ),
    )
    .orderBy(aiSummaries.receivedAt)
    .limit(1)
    .get();
  const [inserted, , cleared] = await db.batch([
    db
      .insert(aiSentReplies)
      .values({
        userId,
        messageId: sent.messageId,
        conversationId: sent.conversationId,
        subject: sent.subject.slice(0, 1000),
        recipients: JSON.stringify(sent.recipients.slice(0, 100)),
        sentAt: sent.sentAt,
        status: answered ? 'answered' : 'awaiting',
        answeredAt: answered?.receivedAt ?? null,
        answerMessageId: answered?.messageId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning({ messageId: aiSentReplies.messageId }),
    db
      .update(aiSentReplies)
      .set({ status: 'superseded', updatedAt: now })
      .where(and(conversation, eq(aiSentReplies.status, 'awaiting'), lt(aiSentReplies.sentAt, sent.sentAt))),
    db
      .update(aiSummaries)
      .set({ needsReply: 0, updatedAt: now })
      .where(
        and(
          eq(aiSummaries.userId, userId),
          eq(aiSummaries.conversationId, sent.conversationId),
          eq(aiSummaries.direction, 'inbound'),
          eq(aiSummaries.needsReply, 1),
          lte(aiSummaries.receivedAt, sent.sentAt),
        ),
      )
      .returning({ messageId: aiSummaries.messageId }),
  ]);
  return { cleared: cleared.length, tracked: inserted.length > 0 };
}

/** An answer arrived in a conversation: the owner's messages sent before it stop waiting. */
export async function recordAnswer(db: MailDb, userId: number, conversationId: string, messageId: string, receivedAt: number) {
  if (!conversationId) return 0;
  const rows = await db
    .update(aiSentReplies)
    .set({ status: 'answered', answeredAt: receivedAt, answerMessageId: messageId, updatedAt: Date.now() })
    .where(
      and(
        eq(aiSentReplies.userId, userId),
        eq(aiSentReplies.conversationId, conversationId),
        eq(aiSentReplies.status, 'awaiting'),
        // Graph's times are whole seconds: an answer in the same second as the sent message counts.
        lte(aiSentReplies.sentAt, receivedAt),
      ),
    )
    .returning({ messageId: aiSentReplies.messageId });
  return rows.length;
}

/** The owner's sent messages still waiting for an answer, newest first. */
export function awaitingReplies(db: MailDb, userId: number, limit: number) {
  return db
    .select()
    .from(aiSentReplies)
    .where(and(eq(aiSentReplies.userId, userId), eq(aiSentReplies.status, 'awaiting')))
    .orderBy(desc(aiSentReplies.sentAt))
    .limit(limit)
    .all();
}

export async function followUpDays(db: MailDb, userId: number): Promise<number> {
  const row = await db.select().from(aiReplySettings).where(eq(aiReplySettings.userId, userId)).get();
  return row?.followUpDays ?? DEFAULT_FOLLOW_UP_DAYS;
}

export async function setFollowUpDays(db: MailDb, userId: number, days: number): Promise<void> {
  const now = Date.now();
  await db
    .insert(aiReplySettings)
    .values({ userId, followUpDays: days, updatedAt: now })
    .onConflictDoUpdate({ target: aiReplySettings.userId, set: { followUpDays: days, updatedAt: now } });
}

/**
 * Sent messages that have waited longer than their owner's setting and have no follow-up yet
 * (every user's; the cron's work), oldest first.
 */
export async function followUpsDue(db: MailDb, now: number, limit = 100) {
  const days = sql<number>`COALESCE((SELECT ${aiReplySettings.followUpDays} FROM ${aiReplySettings} WHERE ${aiReplySettings.userId} = ${aiSentReplies.userId}), ${DEFAULT_FOLLOW_UP_DAYS})`;
  return db
    .select()
    .from(aiSentReplies)
    .where(
      and(
        eq(aiSentReplies.status, 'awaiting'),
        isNull(aiSentReplies.followUpAt),
        sql`${aiSentReplies.sentAt} <= ${now} - ${days} * ${DAY_MS}`,
      ),
    )
    .orderBy(aiSentReplies.sentAt)
    .limit(limit)
    .all();
}

/** Claims a follow-up (so two cron runs never make two drafts); false when another run has it. */
export async function claimFollowUp(db: MailDb, userId: number, messageId: string, now: number): Promise<boolean> {
  const rows = await db
    .update(aiSentReplies)
    .set({ followUpAt: now, updatedAt: now })
    .where(and(eq(aiSentReplies.userId, userId), eq(aiSentReplies.messageId, messageId), isNull(aiSentReplies.followUpAt)))
    .returning({ messageId: aiSentReplies.messageId });
  return rows.length > 0;
}

/** The follow-up's outcome: the draft made, or (undefined) released to be tried at the next run. */
export async function settleFollowUp(db: MailDb, userId: number, messageId: string, draftId: string | undefined): Promise<void> {
  await db
    .update(aiSentReplies)
    .set(draftId === undefined ? { followUpAt: null, updatedAt: Date.now() } : { followUpDraftId: draftId, updatedAt: Date.now() })
    .where(and(eq(aiSentReplies.userId, userId), eq(aiSentReplies.messageId, messageId)));
}
