import { and, eq, sql } from 'drizzle-orm';
import { aiCategories, aiRuleActions } from '#d1/mail/schema.ts';
import { type RuleAction, parseActions } from '../ai/rule-actions.ts';
import type { MailDb } from '../context.ts';

/** A claim older than this is taken as abandoned (its run ended without recording the outcome). */
const CLAIM_MS = 2 * 60_000;

export interface CategoryRules {
  category: string;
  reply_mode: string;
  actions: RuleAction[];
}

/** Every category of the user with its actions, by name. */
export async function rulesOf(db: MailDb, userId: number): Promise<CategoryRules[]> {
  const rows = await db
    .select({ name: aiCategories.name, replyMode: aiCategories.replyMode, actions: aiCategories.actions })
    .from(aiCategories)
    .where(eq(aiCategories.userId, userId))
    .orderBy(aiCategories.name)
    .all();
  return rows.map((r) => ({ category: r.name, reply_mode: r.replyMode, actions: parseActions(r.actions) }));
}

/** The actions of one category (none for `unknown` or a category that does not exist). */
export async function actionsOf(db: MailDb, userId: number, category: string): Promise<RuleAction[]> {
  const row = await db
    .select({ actions: aiCategories.actions })
    .from(aiCategories)
    .where(and(eq(aiCategories.userId, userId), eq(aiCategories.name, category)))
    .get();
  return row ? parseActions(row.actions) : [];
}

/** Replaces a category's actions; false when the user has no such category. */
export async function setActions(db: MailDb, userId: number, category: string, actions: RuleAction[]): Promise<boolean> {
  const updated = await db
    .update(aiCategories)
    .set({ actions: JSON.stringify(actions), updatedAt: Date.now() })
    .where(and(eq(aiCategories.userId, userId), eq(aiCategories.name, category)))
    .returning({ name: aiCategories.name });
  return updated.length > 0;
}

/**
 * Claims action `index` of a message for a run, in one statement: a new row, or one whose last
 * run failed, ran another action at that index, or was abandoned. `done`: that very action
 * succeeded on the message before (never repeated); `busy`: another run holds it now.
 */
export async function claimAction(
  db: MailDb,
  input: { userId: number; messageId: string; index: number; action: RuleAction; traceId: string },
): Promise<'claimed' | 'done' | 'busy'> {
  const now = Date.now();
  const action = JSON.stringify(input.action);
  const claimed = await db
    .insert(aiRuleActions)
    .values({
      userId: input.userId,
      messageId: input.messageId,
      actionIndex: input.index,
      action,
      status: 'running',
      attempts: 1,
      traceId: input.traceId,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [aiRuleActions.userId, aiRuleActions.messageId, aiRuleActions.actionIndex],
      set: { action, status: 'running', attempts: sql`${aiRuleActions.attempts} + 1`, traceId: input.traceId, updatedAt: now, detail: '' },
      setWhere: sql`NOT (${aiRuleActions.status} = 'ok' AND ${aiRuleActions.action} = ${action}) AND NOT (${aiRuleActions.status} = 'running' AND ${aiRuleActions.updatedAt} > ${now - CLAIM_MS})`,
    })
    .returning({ status: aiRuleActions.status });
  if (claimed.length) return 'claimed';
  const row = await db
    .select({ status: aiRuleActions.status })
    .from(aiRuleActions)
    .where(
      and(eq(aiRuleActions.userId, input.userId), eq(aiRuleActions.messageId, input.messageId), eq(aiRuleActions.actionIndex, input.index)),
    )
    .get();
  return row?.status === 'ok' ? 'done' : 'busy';
}

/** Records the outcome of a claimed action. */
export async function finishAction(
  db: MailDb,
  userId: number,
  messageId: string,
  index: number,
  status: 'ok' | 'failed',
  detail: string,
): Promise<void> {
  await db
    .update(aiRuleActions)
    .set({ status, detail: detail.slice(0, 500), updatedAt: Date.now() })
    .where(and(eq(aiRuleActions.userId, userId), eq(aiRuleActions.messageId, messageId), eq(aiRuleActions.actionIndex, index)));
}

/** The recorded actions of a message, by index (for the tests and the trace page's readers). */
export async function actionRecords(db: MailDb, userId: number, messageId: string) {
  return db
    .select()
    .from(aiRuleActions)
    .where(and(eq(aiRuleActions.userId, userId), eq(aiRuleActions.messageId, messageId)))
    .orderBy(aiRuleActions.actionIndex)
    .all();
}
