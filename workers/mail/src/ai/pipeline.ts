import type { Message, Recipient } from '@microsoft/microsoft-graph-types';
import { and, eq } from 'drizzle-orm';
import { aiDrafts, aiEmails, aiSummaries } from '#d1/mail/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MailDb } from '../context.ts';
import { type GraphClient, unlessMissing } from '../graph/client.ts';
import { asHtml } from '../mail-views.ts';
import { type Category, categoriesOf, needsReply, unlessReplied } from './categories.ts';
import { cleanBody } from './clean.ts';
import { withReply } from './reply-html.ts';
import { type TaskContext, classify, replyDraft, summarise } from './task.ts';

/** Storage limits of the document store (longer text is cut, never refused: it came from Graph). */
const MAX_STORED_BODY = 200_000;

const addressOf = (r: Recipient | null | undefined) => ({ name: r?.emailAddress?.name ?? '', address: r?.emailAddress?.address ?? '' });

/** The text the model reads of a message: headers it needs, then the cleaned body. */
export function messageText(message: Message): { raw: string; clean: string } {
  const from = addressOf(message.from);
  const body = message.body?.content ?? message.bodyPreview ?? '';
  const cleaned = cleanBody(body, message.body?.contentType === 'html' ? 'html' : 'text');
  const header = `From: ${from.name} <${from.address}>\nSubject: ${message.subject ?? ''}\n\n`;
  return { raw: body.slice(0, MAX_STORED_BODY), clean: `${header}${cleaned.text}`.slice(0, MAX_STORED_BODY) };
}

export interface SummaryRow {
  message_id: string;
  conversation_id: string;
  subject: string;
  sender: string;
  recipients: { name: string; address: string }[];
  direction: string;
  category: string;
  summary: string;
  bullets: string[];
  pinned: boolean;
  needs_reply: boolean;
  received_at: string | null;
  updated_at: string;
}

export function summaryRow(r: typeof aiSummaries.$inferSelect): SummaryRow {
  return {
    message_id: r.messageId,
    conversation_id: r.conversationId,
    subject: r.subject,
    sender: r.sender,
    recipients: JSON.parse(r.recipients) as SummaryRow['recipients'],
    direction: r.direction,
    category: r.category,
    summary: r.summary,
    bullets: JSON.parse(r.bullets) as string[],
    pinned: r.pinned === 1,
    needs_reply: r.needsReply === 1,
    received_at: r.receivedAt ? new Date(r.receivedAt).toISOString() : null,
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

export interface Processed {
  summary: SummaryRow;
  category: string;
  /** The message's text without quotations and signature, as the prompts saw it. */
  clean: string;
}

/**
 * Summarises and categorises one message and stores its summary document and its raw text
 * (the e-mails cache); with `draft`, makes the reply draft its category asks for (once).
 * Everything is keyed by the user: another mailbox's data never reaches these prompts.
 */
export async function processMessage(
  ctx: TaskContext,
  graph: GraphClient | undefined,
  message: Message,
  options: { ownAddress?: string; draft: boolean; categories?: Category[] },
): Promise<Processed> {
  const db = ctx.db;
  const id = message.id!;
  const { raw, clean } = messageText(message);
  const categories = options.categories ?? (await categoriesOf(db, ctx.userId));
  const [summary, category] = await Promise.all([summarise(ctx, clean), classify(ctx, clean, categories)]);
  const from = addressOf(message.from);
  const direction = options.ownAddress && from.address.toLowerCase() === options.ownAddress.toLowerCase() ? 'outbound' : 'inbound';
  const recipients = [...(message.toRecipients ?? []), ...(message.ccRecipients ?? [])].map(addressOf).slice(0, 100);
  const replyMode = categories.find((c) => c.name === category)?.replyMode ?? 'manual';
  const now = Date.now();
  const receivedAt = Date.parse(message.receivedDateTime ?? '') || now;
  const values = {
    userId: ctx.userId,
    messageId: id,
    conversationId: message.conversationId ?? '',
    subject: (message.subject ?? '').slice(0, 1000),
    sender: from.address ? `${from.name} <${from.address}>`.slice(0, 500) : '',
    recipients: JSON.stringify(recipients),
    direction,
    category,
    summary: summary.summary,
    bullets: JSON.stringify(summary.bullets),
    // summarised again after a reply was sent, it stays answered
    needsReply: needsReply(direction, category, replyMode)
      ? unlessReplied(ctx.userId, id, { id: message.conversationId ?? '', receivedAt })
      : 0,
    receivedAt,
    createdAt: now,
    updatedAt: now,
  };
  const { userId: _u, messageId: _m, createdAt: _c, ...changes } = values;
  const [[stored]] = await db.batch([
    db
      .insert(aiSummaries)
      .values(values)
      .onConflictDoUpdate({ target: [aiSummaries.userId, aiSummaries.messageId], set: changes })
      .returning(),
    db
      .insert(aiEmails)
      .values({
        userId: ctx.userId,
        messageId: id,
        subject: values.subject,
        sender: values.sender,
        bodyText: raw,
        cleanText: clean,
        receivedAt,
        cachedAt: now,
      })
      .onConflictDoUpdate({
        target: [aiEmails.userId, aiEmails.messageId],
        set: { subject: values.subject, sender: values.sender, bodyText: raw, cleanText: clean, cachedAt: now },
      }),
  ]);
  if (options.draft && graph && direction === 'inbound' && replyMode === 'draft') {
    // A template never writes into the mailbox on its own: its reply is kept as a suggestion.
    if (ctx.model.kind === 'template') await suggestReply(ctx, id, clean, category);
    else await ensureDraft(ctx, graph, message, clean, category);
  }
  return { summary: summaryRow(stored!), category, clean };
}

/** A reply draft row's id while its draft is being made (a claim): no Graph id has that prefix. */
const PENDING = 'pending:';
/** A reply row the offline model suggested (no draft in the mailbox); /api/draft/generate makes the draft. */
const SUGGESTION = 'suggestion:';
export const isSuggestion = (draftId: string) => draftId.startsWith(SUGGESTION);

/** The offline model's reply to a new message, stored as a suggestion (a draft or suggestion made before stays). */
export async function suggestReply(ctx: TaskContext, emailId: string, clean: string, category: string): Promise<void> {
  const bodyHtml = asHtml(await replyDraft(ctx, clean, category));
  const now = Date.now();
  await ctx.db
    .insert(aiDrafts)
    .values({
      userId: ctx.userId,
      emailId,
      draftId: `${SUGGESTION}${ctx.tracer.id}`,
      bodyHtml,
      category,
      traceId: ctx.tracer.id,
      createdAt: now,
      updatedAt: now,
      sentAt: null,
    })
    .onConflictDoNothing();
}
/** A claim older than this is taken as abandoned (its maker failed without clearing it). */
const CLAIM_MS = 2 * 60_000;

/**
 * The reply draft of a message: the one made before when Graph still has it as a draft
 * (`reused`), else a new one (createReply, the model's body above the quoted original). The
 * (user, e-mail) row is claimed first, so two requests at once make one provider draft: the
 * other answers 409 draft_in_progress (or reuses the draft once it is there).
 */
export async function ensureDraft(
  ctx: TaskContext,
  graph: GraphClient,
  message: Message,
  clean: string,
  category: string,
): Promise<{ draftId: string; bodyHtml: string; reused: boolean }> {
  const db = ctx.db;
  const emailId = message.id!;
  const mine = `${PENDING}${ctx.tracer.id}`;
  const where = and(eq(aiDrafts.userId, ctx.userId), eq(aiDrafts.emailId, emailId));
  const busy = () => new HttpError(409, 'draft_in_progress', 'A reply draft of that e-mail is being made; try again in a moment.');
  const started = Date.now();
  const claim = {
    userId: ctx.userId,
    emailId,
    draftId: mine,
    bodyHtml: '',
    category,
    traceId: ctx.tracer.id,
    createdAt: started,
    updatedAt: started,
    sentAt: null,
  };
  const claimed = await db.insert(aiDrafts).values(claim).onConflictDoNothing().returning({ draftId: aiDrafts.draftId });
  if (!claimed.length) {
    const existing = await db.select().from(aiDrafts).where(where).get();
    if (!existing) throw busy();
    if (existing.draftId.startsWith(PENDING)) {
      if (existing.updatedAt > started - CLAIM_MS) throw busy();
    } else if (!existing.sentAt && !isSuggestion(existing.draftId)) {
      const still = await unlessMissing(graph.message(existing.draftId));
      if (still?.isDraft) return { draftId: existing.draftId, bodyHtml: existing.bodyHtml, reused: true };
    }
    // the draft was sent or is gone, or a stale claim: take the row over, if nobody did meanwhile
    const taken = await db
      .update(aiDrafts)
      .set({ draftId: mine, traceId: ctx.tracer.id, updatedAt: started })
      .where(and(where, eq(aiDrafts.draftId, existing.draftId)))
      .returning({ draftId: aiDrafts.draftId });
    if (!taken.length) throw busy();
  }
  const release = () => db.delete(aiDrafts).where(and(where, eq(aiDrafts.draftId, mine)));
  let draftId: string;
  let bodyHtml: string;
  try {
    bodyHtml = asHtml(await replyDraft(ctx, clean, category));
    const draft = await graph.createReply(emailId, false);
    if (!draft.id) throw new Error('Graph answered a reply draft without an id');
    draftId = draft.id;
    try {
      await graph.update(draft.id, { body: { contentType: 'html', content: withReply(draft.body?.content ?? '', bodyHtml) } });
    } catch (err) {
      await graph.deleteMessage(draft.id).catch(() => undefined);
      throw err;
    }
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
  const now = Date.now();
  await db
    .update(aiDrafts)
    .set({ draftId, bodyHtml, category, traceId: ctx.tracer.id, updatedAt: now, sentAt: null })
    .where(and(where, eq(aiDrafts.draftId, mine)));
  return { draftId, bodyHtml, reused: false };
}

export async function summaryOf(db: MailDb, userId: number, messageId: string) {
  return db
    .select()
    .from(aiSummaries)
    .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, messageId)))
    .get();
}
