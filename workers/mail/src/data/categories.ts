import { and, eq, sql } from 'drizzle-orm';
import { aiCategories, aiJobs, aiPrompts, aiSummaries } from '#d1/mail/schema.ts';
import { type Category, type ReplyMode, categoriesOf, needsReplyColumn } from '../ai/categories.ts';
import { categoryPromptName } from '../ai/prompts.ts';
import type { MailDb } from '../context.ts';

/** A user has at most this many categories. */
const MAX_CATEGORIES = 100;

export interface CategoryView {
  name: string;
  rule: string;
  reply_mode: string;
  emails: number;
  created_at: string;
  updated_at: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

const own = (userId: number, name: string) => and(eq(aiCategories.userId, userId), eq(aiCategories.name, name));

/** The user's category of that name, or undefined. */
export async function categoryRow(db: MailDb, userId: number, name: string) {
  return db.select().from(aiCategories).where(own(userId, name)).get();
}

/** The category with how many of the user's summaries carry it, or undefined. */
export async function categoryView(db: MailDb, userId: number, name: string): Promise<CategoryView | undefined> {
  const row = await categoryRow(db, userId, name);
  if (!row) return undefined;
  const count = await db
    .select({ n: sql<number>`count(*)` })
    .from(aiSummaries)
    .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name)))
    .get();
  return {
    name: row.name,
    rule: row.rule,
    reply_mode: row.replyMode,
    emails: count?.n ?? 0,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** Every category of the user, by name, each with its e-mail count. */
export async function categoryViews(db: MailDb, userId: number): Promise<CategoryView[]> {
  const [list, counts] = await Promise.all([
    categoriesOf(db, userId),
    db
      .select({ category: aiSummaries.category, n: sql<number>`count(*)` })
      .from(aiSummaries)
      .where(eq(aiSummaries.userId, userId))
      .groupBy(aiSummaries.category)
      .all(),
  ]);
  const n = new Map(counts.map((r) => [r.category, r.n]));
  return list.map((x: Category) => ({
    name: x.name,
    rule: x.rule,
    reply_mode: x.replyMode,
    emails: n.get(x.name) ?? 0,
    created_at: iso(x.createdAt),
    updated_at: iso(x.updatedAt),
  }));
}

export type CreateOutcome = 'created' | 'exists' | 'too_many';

/** Adds a category (the caller has checked the name); `exists` when the user has one of that name. */
export async function createCategory(
  db: MailDb,
  userId: number,
  input: { name: string; rule: string; replyMode: ReplyMode },
): Promise<CreateOutcome> {
  const count = await db.select({ n: sql<number>`count(*)` }).from(aiCategories).where(eq(aiCategories.userId, userId)).get();
  if ((count?.n ?? 0) >= MAX_CATEGORIES) return 'too_many';
  const now = Date.now();
  const inserted = await db
    .insert(aiCategories)
    .values({ userId, name: input.name, rule: input.rule, replyMode: input.replyMode, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ name: aiCategories.name });
  return inserted.length ? 'created' : 'exists';
}

export type UpdateOutcome =
  | { outcome: 'not_found' }
  | { outcome: 'name_taken' }
  | { outcome: 'updated'; renamed: boolean; ruleChanged: boolean };

/**
 * Renames a category and/or changes its rule or reply mode, in one batch: its summaries follow a
 * new name, a new reply mode is applied to them, and its reply prompt moves with it.
 */
export async function updateCategory(
  db: MailDb,
  userId: number,
  name: string,
  input: { name?: string; rule?: string; replyMode?: ReplyMode },
): Promise<UpdateOutcome> {
  const current = await categoryRow(db, userId, name);
  if (!current) return { outcome: 'not_found' };
  const newName = input.name ?? name;
  if (newName !== name && (await categoryRow(db, userId, newName))) return { outcome: 'name_taken' };
  const now = Date.now();
  await db.batch([
    db
      .update(aiCategories)
      .set({ name: newName, rule: input.rule ?? current.rule, replyMode: input.replyMode ?? current.replyMode, updatedAt: now })
      .where(own(userId, name)),
    db
      .update(aiSummaries)
      .set({ category: newName })
      .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name))),
    // a new reply mode applies to the e-mails already in the category
    ...(input.replyMode !== undefined && input.replyMode !== current.replyMode
      ? [
          db
            .update(aiSummaries)
            .set({ needsReply: needsReplyColumn(userId, newName, input.replyMode), updatedAt: now })
            .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, newName))),
        ]
      : []),
    // a prompt row left under the new name (no category of that name owns it) gives way to the renamed one
    ...(newName !== name
      ? [db.delete(aiPrompts).where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(newName))))]
      : []),
    db
      .update(aiPrompts)
      .set({ name: categoryPromptName(newName) })
      .where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(name)))),
  ]);
  return { outcome: 'updated', renamed: newName !== name, ruleChanged: input.rule !== undefined && input.rule !== current.rule };
}

/** Deletes a category with its reply prompt; its e-mails go back to `unknown`. Answers how many were reset, or undefined when there was no such category. */
export async function deleteCategory(db: MailDb, userId: number, name: string): Promise<number | undefined> {
  if (!(await categoryRow(db, userId, name))) return undefined;
  const [, reset] = await db.batch([
    db.delete(aiCategories).where(own(userId, name)),
    db
      .update(aiSummaries)
      .set({ category: 'unknown', needsReply: 0, updatedAt: Date.now() })
      .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name))),
    db.delete(aiPrompts).where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(name)))),
  ]);
  return reset.meta.changes ?? 0;
}

/** Writes a category's classification rule; false when there is no such category. */
export async function setCategoryRule(db: MailDb, userId: number, name: string, rule: string): Promise<boolean> {
  const updated = await db
    .update(aiCategories)
    .set({ rule, updatedAt: Date.now() })
    .where(own(userId, name))
    .returning({ name: aiCategories.name });
  return updated.length > 0;
}

/** The user's job of that id, or undefined. */
export async function jobRow(db: MailDb, userId: number, jobId: string) {
  return db
    .select()
    .from(aiJobs)
    .where(and(eq(aiJobs.id, jobId), eq(aiJobs.userId, userId)))
    .get();
}

/** The message ids, of those given, that the user has a summary of. */
export async function summarisedIds(db: MailDb, userId: number, messageIds: string[]): Promise<Set<string>> {
  if (!messageIds.length) return new Set();
  const rows = await db
    .select({ id: aiSummaries.messageId })
    .from(aiSummaries)
    .where(
      and(eq(aiSummaries.userId, userId), sql`${aiSummaries.messageId} IN (SELECT value FROM json_each(${JSON.stringify(messageIds)}))`),
    )
    .all();
  return new Set(rows.map((r) => r.id));
}
