import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { aiEmails, aiJobs, aiSummaries } from '#d1/mail/schema.ts';
import { toBase64Url, randomBytes } from '#shared/crypto.ts';
import type { MailDb } from '../context.ts';
import { categoriesOf, setCategory } from './categories.ts';
import { type TaskContext, classify, classifyPrompt } from './task.ts';

export interface JobView {
  job_id: string;
  kind: string;
  status: string;
  total: number;
  done: number;
  changed: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export const jobView = (j: typeof aiJobs.$inferSelect): JobView => ({
  job_id: j.id,
  kind: j.kind,
  status: j.status,
  total: j.total,
  done: j.done,
  changed: j.changed,
  error: j.error,
  created_at: new Date(j.createdAt).toISOString(),
  finished_at: j.finishedAt ? new Date(j.finishedAt).toISOString() : null,
});

/** The states of a job that still runs. */
const LIVE = ['queued', 'running'];

/** A re-categorisation of every stored e-mail of the user, queued (the mailbox object runs it). */
export async function createRecategoriseJob(db: MailDb, userId: number): Promise<string> {
  const id = `job_${toBase64Url(randomBytes(9))}`;
  const total = await db.select({ n: sql<number>`count(*)` }).from(aiSummaries).where(eq(aiSummaries.userId, userId)).get();
  const now = Date.now();
  // a new run supersedes the user's earlier ones still queued or running: they stop at their next step
  await db.batch([
    db
      .update(aiJobs)
      .set({ status: 'superseded', finishedAt: now })
      .where(and(eq(aiJobs.userId, userId), eq(aiJobs.kind, 'recategorise'), inArray(aiJobs.status, LIVE))),
    db.insert(aiJobs).values({ id, userId, kind: 'recategorise', status: 'queued', total: total?.n ?? 0, createdAt: now }),
  ]);
  return id;
}

export async function latestJobs(db: MailDb, userId: number, limit = 5) {
  return db.select().from(aiJobs).where(eq(aiJobs.userId, userId)).orderBy(desc(aiJobs.createdAt)).limit(limit).all();
}

/** E-mails classified per alarm run: a run stays well inside its time. */
const JOB_BATCH = 25;

/**
 * One step of a re-categorisation: the next batch of summaries (by message id after the last
 * done) classified again by the current rules. Answers the cursor to go on from, or null when done.
 */
export async function recategoriseStep(ctx: TaskContext, jobId: string, after: string): Promise<string | null> {
  const db = ctx.db;
  const job = await db
    .select()
    .from(aiJobs)
    .where(and(eq(aiJobs.id, jobId), eq(aiJobs.userId, ctx.userId)))
    .get();
  if (!job || !LIVE.includes(job.status)) return null;
  const categories = await categoriesOf(db, ctx.userId);
  const rows = await db
    .select({
      messageId: aiSummaries.messageId,
      category: aiSummaries.category,
      clean: aiEmails.cleanText,
      subject: aiSummaries.subject,
      summary: aiSummaries.summary,
    })
    .from(aiSummaries)
    .leftJoin(aiEmails, and(eq(aiEmails.userId, aiSummaries.userId), eq(aiEmails.messageId, aiSummaries.messageId)))
    .where(and(eq(aiSummaries.userId, ctx.userId), sql`${aiSummaries.messageId} > ${after}`))
    .orderBy(aiSummaries.messageId)
    .limit(JOB_BATCH)
    .all();
  const system = rows.length && categories.length ? await classifyPrompt(ctx) : undefined;
  const updates = [];
  for (const row of rows) {
    const text = row.clean || `Subject: ${row.subject}\n\n${row.summary}`;
    const category = await classify(ctx, text, categories, system);
    if (category !== row.category) updates.push(setCategory(db, ctx.userId, row.messageId, category, categories));
  }
  const changed = updates.length;
  const [first, ...rest] = updates;
  if (first) await db.batch([first, ...rest]);
  const last = rows.at(-1)?.messageId;
  const finished = rows.length < JOB_BATCH;
  await db
    .update(aiJobs)
    .set({
      status: finished ? 'done' : 'running',
      done: sql`${aiJobs.done} + ${rows.length}`,
      changed: sql`${aiJobs.changed} + ${changed}`,
      ...(finished ? { finishedAt: Date.now() } : {}),
    })
    .where(and(eq(aiJobs.id, jobId), inArray(aiJobs.status, LIVE)));
  return finished ? null : (last ?? null);
}

export async function failJob(db: MailDb, jobId: string, error: string): Promise<void> {
  await db
    .update(aiJobs)
    .set({ status: 'failed', error: error.slice(0, 500), finishedAt: Date.now() })
    .where(eq(aiJobs.id, jobId));
}
