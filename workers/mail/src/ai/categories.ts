import { type SQL, eq, sql } from 'drizzle-orm';
import { aiCategories, aiSummaries } from '../../../../d1/mail/schema';
import type { MailDb } from '../context';
import type { CategoryRule } from './task';

export type ReplyMode = 'draft' | 'no_reply' | 'manual';

export interface Category extends CategoryRule {
  replyMode: ReplyMode;
  createdAt: number;
  updatedAt: number;
}

/** The user's categories, by name. */
export async function categoriesOf(db: MailDb, userId: number): Promise<Category[]> {
  const rows = await db.select().from(aiCategories).where(eq(aiCategories.userId, userId)).orderBy(aiCategories.name).all();
  return rows.map((r) => ({ name: r.name, rule: r.rule, replyMode: r.replyMode as ReplyMode, createdAt: r.createdAt, updatedAt: r.updatedAt }));
}

/**
 * The "needs reply" rule: a received (inbound) message of a known category whose reply mode is
 * not `no_reply` (a category without a mode counts as `manual`).
 */
export const needsReply = (direction: string, category: string, replyMode: string | undefined): boolean => direction === 'inbound' && category !== 'unknown' && replyMode !== 'no_reply';

/** The rule as the value of `needs_reply` in an update of a stored summary (its direction read in SQL). */
export function needsReplySql(category: string, replyMode: string | undefined): SQL {
  return sql`CASE WHEN ${aiSummaries.direction} = 'inbound' THEN ${needsReply('inbound', category, replyMode) ? 1 : 0} ELSE 0 END`;
}
