import { z } from '@hono/zod-openapi';
import { createModel } from './ai/model.ts';
import type { MailContext } from './context.ts';
import { userAssistantAllowed } from './guards.ts';

/**
 * What the assistant knows of a message, for the mail client: added to the mailbox's own answers
 * (the list, a message, a thread) for an account allowed the assistant. Read from the stored
 * summaries, drafts and thread summaries only: nothing here calls the model or Graph.
 */

export const DraftOrigin = z
  .enum(['model draft', 'template reply'])
  .openapi({ description: 'Who wrote a reply draft of the assistant: a language model, or the offline model’s fixed template (not AI)' });
export const MessageAssistantSchema = z
  .object({
    category: z.string().openapi({ description: 'The stored category (`unknown` when none fits)' }),
    summary: z.string(),
    bullets: z.array(z.string()),
    needsReply: z.boolean().openapi({ description: 'Received, its category wants replies, none sent through the assistant' }),
    awaitingReply: z.boolean().openapi({ description: 'Sent by the owner, and nothing has come in on its conversation since' }),
  })
  .openapi('MessageAssistant');
export const ThreadSummarySchema = z
  .object({ summary: z.string(), bullets: z.array(z.string()), message_count: z.number().int(), updated_at: z.string() })
  .openapi('StoredThreadSummary');

export type MessageAssistant = z.infer<typeof MessageAssistantSchema>;
export type DraftOriginName = z.infer<typeof DraftOrigin>;
export interface AssistantFields {
  /** Whether the account may use the assistant (the other fields are empty when not). */
  allowed: boolean;
  /** By message id: the stored summary's fields. */
  messages: Map<string, MessageAssistant>;
  /** By draft id: who wrote each reply draft of the assistant. */
  drafts: Map<string, DraftOriginName>;
}

const NONE: AssistantFields = { allowed: false, messages: new Map(), drafts: new Map() };

const bulletList = (text: string): string[] => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((b): b is string => typeof b === 'string') : [];
  } catch {
    return [];
  }
};

/** Whether the signed-in account may use the assistant (its admins, or listed). */
export const assistantAllowed = (c: MailContext): Promise<boolean> =>
  userAssistantAllowed(c.env.DB, c.var.config.MAIL_ASSISTANT_ADMINS, c.var.user.id);

/**
 * The assistant's fields of these messages (ids of one page, at most 1000) for an account allowed
 * the assistant (`assistantAllowed`, asked beside the Graph calls): one batch of two indexed reads
 * (the ids go over as one JSON parameter, never one parameter each).
 */
export async function assistantFields(c: MailContext, ids: string[], allowed: boolean): Promise<AssistantFields> {
  if (!allowed) return NONE;
  const unique = [...new Set(ids)].filter(Boolean).slice(0, 1000);
  if (!unique.length) return { allowed: true, messages: new Map(), drafts: new Map() };
  const userId = c.var.user.id;
  const list = JSON.stringify(unique);
  const [summaries, drafts] = await c.env.DB.batch([
    c.env.DB.prepare(
      `SELECT s.message_id, s.category, s.summary, s.bullets, s.needs_reply,
        (s.direction = 'outbound' AND s.conversation_id <> '' AND NOT EXISTS (
          SELECT 1 FROM ai_summaries later WHERE later.user_id = s.user_id AND later.conversation_id = s.conversation_id AND later.received_at > s.received_at)) AS awaiting
       FROM ai_summaries s WHERE s.user_id = ?1 AND s.message_id IN (SELECT value FROM json_each(?2))`,
    ).bind(userId, list),
    c.env.DB.prepare(
      `SELECT d.draft_id,
        (SELECT CASE WHEN t.detail LIKE 'template reply%' THEN 'template reply' ELSE 'model draft' END
           FROM ai_trace_steps t WHERE t.trace_id = d.trace_id AND t.kind = 'model' AND t.outcome = 'ok' ORDER BY t.seq DESC LIMIT 1) AS origin
       FROM ai_drafts d WHERE d.user_id = ?1 AND d.draft_id IN (SELECT value FROM json_each(?2))`,
    ).bind(userId, list),
  ]);
  const messages = new Map<string, MessageAssistant>();
  for (const row of (summaries?.results ?? []) as {
    message_id: string;
    category: string;
    summary: string;
    bullets: string;
    needs_reply: number;
    awaiting: number;
  }[]) {
    messages.set(row.message_id, {
      category: row.category,
      summary: row.summary,
      bullets: bulletList(row.bullets),
      needsReply: row.needs_reply === 1,
      awaitingReply: row.awaiting === 1,
    });
  }
  // A draft whose trace is gone (older than the traces kept) is named by the model that runs now.
  const current: DraftOriginName = createModel(c.var.config, c.env).kind === 'template' ? 'template reply' : 'model draft';
  const origins = new Map<string, DraftOriginName>();
  for (const row of (drafts?.results ?? []) as { draft_id: string; origin: DraftOriginName | null }[])
    origins.set(row.draft_id, row.origin ?? current);
  return { allowed: true, messages, drafts: origins };
}

/** The conversation's stored rolling summary, or null (none made yet, or not allowed). */
export async function storedThreadSummary(
  c: MailContext,
  allowed: boolean,
  threadId: string,
): Promise<z.infer<typeof ThreadSummarySchema> | null> {
  if (!allowed || !threadId) return null;
  const row = await c.env.DB.prepare(
    'SELECT summary, bullets, message_count, updated_at FROM ai_thread_summaries WHERE user_id = ? AND thread_id = ?',
  )
    .bind(c.var.user.id, threadId)
    .first<{ summary: string; bullets: string; message_count: number; updated_at: number }>();
  return row
    ? {
        summary: row.summary,
        bullets: bulletList(row.bullets),
        message_count: row.message_count,
        updated_at: new Date(row.updated_at).toISOString(),
      }
    : null;
}
