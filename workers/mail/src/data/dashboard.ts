import { and, desc, eq, sql } from 'drizzle-orm';
import { aiDrafts, aiSummaries, aiTraceSteps, aiTraces } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** A user's summarised e-mails: counted, pinned, needing a reply, in and out. */
export const summaryTotals = (db: MailDb, userId: number) =>
  db
    .select({
      emails: sql<number>`count(*)`,
      pinned: sql<number>`coalesce(sum(${aiSummaries.pinned}), 0)`,
      needs_reply: sql<number>`coalesce(sum(${aiSummaries.needsReply}), 0)`,
      inbound: sql<number>`coalesce(sum(${aiSummaries.direction} = 'inbound'), 0)`,
      outbound: sql<number>`coalesce(sum(${aiSummaries.direction} = 'outbound'), 0)`,
    })
    .from(aiSummaries)
    .where(eq(aiSummaries.userId, userId))
    .get();

/** A user's summarised e-mails by category, the largest first. */
export const categoryCounts = (db: MailDb, userId: number) =>
  db
    .select({ category: aiSummaries.category, emails: sql<number>`count(*)` })
    .from(aiSummaries)
    .where(eq(aiSummaries.userId, userId))
    .groupBy(aiSummaries.category)
    .orderBy(desc(sql`count(*)`))
    .all();

/** A user's reply drafts: made at Graph, sent, only suggested. */
export const draftCounts = (db: MailDb, userId: number) =>
  db
    .select({
      made: sql<number>`coalesce(sum(${aiDrafts.draftId} NOT LIKE 'suggestion:%' AND ${aiDrafts.draftId} NOT LIKE 'pending:%'), 0)`,
      sent: sql<number>`count(${aiDrafts.sentAt})`,
      suggested: sql<number>`coalesce(sum(${aiDrafts.draftId} LIKE 'suggestion:%'), 0)`,
    })
    .from(aiDrafts)
    .where(eq(aiDrafts.userId, userId))
    .get();

/** A user's model calls since `since` (ms): counted, failed, their latency and tokens. */
export const modelCallsSince = (db: MailDb, userId: number, since: number) =>
  db
    .select({
      calls: sql<number>`count(*)`,
      failed: sql<number>`coalesce(sum(${aiTraceSteps.outcome} <> 'ok'), 0)`,
      avg_ms: sql<number>`coalesce(avg(${aiTraceSteps.latencyMs}), 0)`,
      tokens_in: sql<number>`coalesce(sum(${aiTraceSteps.tokensIn}), 0)`,
      tokens_out: sql<number>`coalesce(sum(${aiTraceSteps.tokensOut}), 0)`,
      estimated: sql<number>`coalesce(sum(${aiTraceSteps.detail} LIKE '%tokens estimated%'), 0)`,
    })
    .from(aiTraceSteps)
    .innerJoin(aiTraces, eq(aiTraces.id, aiTraceSteps.traceId))
    .where(and(eq(aiTraces.userId, userId), eq(aiTraceSteps.kind, 'model'), sql`${aiTraces.createdAt} >= ${since}`))
    .get();

/** A user's latest traces, the newest first. */
export const recentTraces = (db: MailDb, userId: number, limit: number) =>
  db
    .select({ id: aiTraces.id, name: aiTraces.name, outcome: aiTraces.outcome, createdAt: aiTraces.createdAt })
    .from(aiTraces)
    .where(eq(aiTraces.userId, userId))
    .orderBy(desc(aiTraces.createdAt))
    .limit(limit)
    .all();

/** A user's trace and its steps in order, or undefined when the user has no trace of that id. */
export async function traceWithSteps(db: MailDb, userId: number, traceId: string) {
  const trace = await db
    .select()
    .from(aiTraces)
    .where(and(eq(aiTraces.id, traceId), eq(aiTraces.userId, userId)))
    .get();
  if (!trace) return undefined;
  const steps = await db.select().from(aiTraceSteps).where(eq(aiTraceSteps.traceId, traceId)).orderBy(aiTraceSteps.seq).all();
  return { trace, steps };
}
