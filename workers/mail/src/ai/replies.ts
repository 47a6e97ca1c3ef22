import type { Message, Recipient } from '@microsoft/microsoft-graph-types';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/mail/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import { mailboxStub } from '../context.ts';
import type { MailDb } from '../context.ts';
import { claimFollowUp, followUpsDue, recordAnswer, recordSent, settleFollowUp } from '../data/replies.ts';
import { GraphClient, type GraphTransport, inBackground } from '../graph/client.ts';
import { MessageQueue, backoffMs } from '../mailbox/message-queue.ts';
import type { SummaryRow } from './pipeline.ts';
import { withReply } from './reply-html.ts';

/**
 * Replies tracked wherever they are sent. The mailbox's Sent Items are subscribed beside the
 * Inbox; each message that lands there (sent by this client, /api/reply, Outlook or a phone)
 * is read once from Graph and recorded (data/replies.ts): its conversation no longer needs a
 * reply, and it waits for an answer. An inbound message of the conversation answers it. A message
 * that waits longer than its owner's setting gets a follow-up reminder: a reply-all draft of it
 * in Drafts (never sent), made once by the cron.
 */

/** The Sent Items subscription's resource (created beside the Inbox one, renewed the same way). */
export const SENT_RESOURCE = "me/mailFolders('sentitems')/messages";

/** Sent messages read per alarm run; a failure is retried after 2 s, 8 s, 32 s. */
const SENT_BATCH = 20;
const SENT_MAX_ATTEMPTS = 4;

const addressOf = (r: Recipient) => ({ name: r.emailAddress?.name ?? '', address: r.emailAddress?.address ?? '' });

/** The mailbox object's queue of sent messages to record (its own SQLite). */
export class SentQueue extends MessageQueue {
  constructor(sql: SqlStorage) {
    super(sql, 'sent_queue', SENT_BATCH);
  }

  /** Records the due sent messages; processed rows older than `cutoff` are dropped. */
  async drain(db: MailDb, graph: GraphClient, userId: number, cutoff: number): Promise<void> {
    for (const item of this.due(Date.now())) {
      try {
        const message = await graph.message(item.message_id);
        this.settle(item.message_id, await recordSentMessage(db, userId, message));
      } catch (err) {
        this.retry(item, err, SENT_MAX_ATTEMPTS, backoffMs(item.attempts));
      }
    }
    this.prune(cutoff);
  }
}

/** One message read from Sent Items: recorded when it was sent in a conversation ('done'), else 'skipped'. */
export async function recordSentMessage(db: MailDb, userId: number, message: Message): Promise<'done' | 'skipped'> {
  if (message.isDraft || !message.id || !message.conversationId) return 'skipped';
  const sentAt = Date.parse(message.sentDateTime ?? message.receivedDateTime ?? '') || Date.now();
  await recordSent(db, userId, {
    messageId: message.id,
    conversationId: message.conversationId,
    subject: message.subject ?? '',
    recipients: [...(message.toRecipients ?? []), ...(message.ccRecipients ?? [])].map(addressOf),
    sentAt,
  });
  return 'done';
}

/** A new inbound message: an answer to the owner's messages of its conversation sent before it. */
export async function recordInbound(db: MailDb, userId: number, message: Message, ownAddress: string | undefined): Promise<void> {
  const from = message.from?.emailAddress?.address?.toLowerCase() ?? '';
  if (message.isDraft || !message.id || !message.conversationId || (ownAddress && from === ownAddress.toLowerCase())) return;
  const receivedAt = Date.parse(message.receivedDateTime ?? '') || Date.now();
  await recordAnswer(db, userId, message.conversationId, message.id, receivedAt);
}

export interface FollowUpReport {
  made: number;
  failed: number;
}

const NUDGE_HTML = '<p>Hello,</p><p>I wanted to follow up on my message below — have you had a chance to look at it?</p><p>Thanks</p>';

/**
 * The cron's follow-ups (`now` = its scheduled time): each sent message still awaiting an answer
 * past its owner's setting gets a reply-all draft (addressed to its recipients, in its
 * conversation, quoting it), claimed first so it is made once. A Graph failure leaves it for the
 * next run; a sent message Graph no longer has is given up.
 */
export async function makeFollowUps(env: Env, graphBaseUrl: string, now: number, transport?: (userId: number) => GraphTransport) {
  const db = drizzle(env.DB, { schema });
  const report: FollowUpReport = { made: 0, failed: 0 };
  for (const row of await followUpsDue(db, now)) {
    if (!(await claimFollowUp(db, row.userId, row.messageId, now))) continue;
    const graph = new GraphClient(transport?.(row.userId) ?? inBackground(mailboxStub(env, row.userId)), graphBaseUrl);
    try {
      const draft = await graph.createReply(row.messageId, true);
      if (!draft.id) throw new Error('Graph answered a reply draft without an id');
      await graph.update(draft.id, { body: { contentType: 'html', content: withReply(draft.body?.content ?? '', NUDGE_HTML) } });
      await settleFollowUp(db, row.userId, row.messageId, draft.id);
      report.made += 1;
    } catch (err) {
      const gone = err instanceof HttpError && err.status === 404;
      await settleFollowUp(db, row.userId, row.messageId, gone ? '' : undefined);
      report.failed += 1;
    }
  }
  return report;
}

type Tracked = typeof schema.aiSentReplies.$inferSelect;

/**
 * The awaiting-reply list: tracked sent messages (as summary documents: outbound, the summary
 * empty unless one was made) and the summarised outbound mail, by message, newest first.
 */
export function mergeAwaiting(tracked: Tracked[], summarised: SummaryRow[], limit: number): SummaryRow[] {
  const byId = new Map(summarised.map((s) => [s.message_id, s]));
  for (const t of tracked) {
    if (byId.has(t.messageId)) continue;
    const at = new Date(t.sentAt).toISOString();
    byId.set(t.messageId, {
      message_id: t.messageId,
      conversation_id: t.conversationId,
      subject: t.subject,
      sender: '',
      recipients: JSON.parse(t.recipients) as SummaryRow['recipients'],
      direction: 'outbound',
      category: 'unknown',
      summary: '',
      bullets: [],
      pinned: false,
      needs_reply: false,
      received_at: at,
      updated_at: new Date(t.updatedAt).toISOString(),
    });
  }
  return [...byId.values()].sort((a, b) => (b.received_at ?? '').localeCompare(a.received_at ?? '')).slice(0, limit);
}
