import type { Message } from '@microsoft/microsoft-graph-types';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { aiJobs } from '#d1/mail/schema.ts';
import { randomBytes, toBase64Url } from '#shared/crypto.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MailDb } from '../context.ts';
import { actionsOf } from '../data/rules.ts';
import type { GraphClient, GraphTransport } from '../graph/client.ts';
import { categoriesOf } from './categories.ts';
import { ModelError } from './model.ts';
import { messageText, processMessage } from './pipeline.ts';
import { type ActionRun, type ActionsOutcome, ActionsDeferred, retryDelayMs, runActions } from './rule-actions.ts';
import type { TaskContext } from './task.ts';

/**
 * "Apply the rules to existing mail": a job over the newest messages of a folder, run by the
 * user's mailbox object from its alarm in bounded steps. Each message is read, summarised and
 * categorised as new mail is, then its category's actions run (recorded per message and action,
 * so nothing is done twice). The messages are listed once, when the job starts (the object's
 * SQLite `rule_job_items`), so the job resumes where it stopped; progress is the D1 `ai_jobs` row
 * (`kind` = `apply_rules`). When Graph throttles, the whole job waits for its Retry-After.
 */

export const APPLY_JOB_KIND = 'apply_rules';
const LIVE = ['queued', 'running'];
/** Messages handled per alarm run. */
const STEP_ITEMS = 10;
/** A message is tried this many times (throttling, outages), then left as failed. */
const MAX_ITEM_ATTEMPTS = 5;

export const RULE_JOB_TABLE = `CREATE TABLE IF NOT EXISTS rule_job_items (
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  state TEXT NOT NULL,
  category TEXT,
  changed INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  error TEXT,
  PRIMARY KEY (job_id, seq)
)`;

/** What the mailbox object gives a run: a task context and Graph (background work) traced by it. */
export interface RuleRunHost {
  sql: SqlStorage;
  run(userId: number, name: string): { ctx: TaskContext; graph: GraphClient; transport: GraphTransport };
  ownAddress(): Promise<string | undefined>;
}

/** The actions of the message's category, run in order (see runActions); nothing when it has none. */
export async function runCategoryRules(run: ActionRun): Promise<ActionsOutcome> {
  const actions = await actionsOf(run.ctx.db, run.ctx.userId, run.category);
  return actions.length ? runActions(run, actions) : { ran: 0, skipped: 0, failed: 0 };
}

/** The user's live apply job, if any (one at a time). */
async function liveApplyJob(db: MailDb, userId: number) {
  return db
    .select({ id: aiJobs.id })
    .from(aiJobs)
    .where(and(eq(aiJobs.userId, userId), eq(aiJobs.kind, APPLY_JOB_KIND), inArray(aiJobs.status, LIVE)))
    .get();
}

/** The job's D1 row (progress), queued; 409 while another apply job of the user runs. */
export async function createApplyJob(db: MailDb, userId: number, total: number): Promise<string> {
  const running = await liveApplyJob(db, userId);
  if (running) throw new HttpError(409, 'job_running', `The rules are being applied already (job ${running.id}): wait for it to finish.`);
  const id = `job_${toBase64Url(randomBytes(9))}`;
  await db.insert(aiJobs).values({ id, userId, kind: APPLY_JOB_KIND, status: total ? 'queued' : 'done', total, createdAt: Date.now() });
  return id;
}

/** The job's messages, in order, into the object's SQLite. */
export function queueApplyJob(sqlStorage: SqlStorage, userId: number, jobId: string, messageIds: string[]): void {
  const now = Date.now();
  messageIds.forEach((id, seq) =>
    sqlStorage.exec(
      "INSERT OR IGNORE INTO rule_job_items (job_id, seq, user_id, message_id, state, next_at) VALUES (?, ?, ?, ?, 'queued', ?)",
      jobId,
      seq,
      userId,
      id,
      now,
    ),
  );
}

/** When an apply job next has a message due, or null when none waits. */
export function nextApplyDue(sqlStorage: SqlStorage): number | null {
  return sqlStorage.exec<{ at: number | null }>("SELECT MIN(next_at) AS at FROM rule_job_items WHERE state = 'queued'").one().at;
}

type Item = { seq: number; message_id: string; category: string | null; attempts: number };

/** One step of every apply job with messages due. */
export async function applyRulesStep(host: RuleRunHost): Promise<void> {
  const now = Date.now();
  const jobs = host.sql
    .exec<{ job_id: string; user_id: number }>(
      "SELECT DISTINCT job_id, user_id FROM rule_job_items WHERE state = 'queued' AND next_at <= ?",
      now,
    )
    .toArray();
  for (const job of jobs) await jobStep(host, job.job_id, job.user_id);
}

async function jobStep(host: RuleRunHost, jobId: string, userId: number): Promise<void> {
  const { ctx, graph, transport } = host.run(userId, 'apply rules');
  const db = ctx.db;
  const row = await db.select({ status: aiJobs.status }).from(aiJobs).where(eq(aiJobs.id, jobId)).get();
  if (!row || !LIVE.includes(row.status)) {
    // cancelled (the account removed) or gone: nothing more to do
    host.sql.exec('DELETE FROM rule_job_items WHERE job_id = ?', jobId);
    return;
  }
  const items = host.sql
    .exec<Item>(
      "SELECT seq, message_id, category, attempts FROM rule_job_items WHERE job_id = ? AND state = 'queued' AND next_at <= ? ORDER BY seq LIMIT ?",
      jobId,
      Date.now(),
      STEP_ITEMS,
    )
    .toArray();
  const ownAddress = await host.ownAddress();
  const categories = await categoriesOf(db, userId);
  for (const item of items) {
    try {
      const message: Message = await graph.message(item.message_id);
      if (message.isDraft) {
        setItem(host.sql, jobId, item.seq, { state: 'skipped' });
        continue;
      }
      let category = item.category;
      let clean: string;
      if (category === null) {
        const processed = await processMessage(ctx, graph, message, { ownAddress, draft: false, categories });
        category = processed.category;
        clean = processed.clean;
        // categorised once: a retry runs the same category's actions
        host.sql.exec('UPDATE rule_job_items SET category = ? WHERE job_id = ? AND seq = ?', category, jobId, item.seq);
      } else clean = messageText(message).clean;
      const outcome = await runCategoryRules({ ctx, graph, transport, message, category, clean, ownAddress });
      setItem(host.sql, jobId, item.seq, { state: 'done', changed: outcome.ran > 0 ? 1 : 0 });
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
      const later = err instanceof ActionsDeferred || (err instanceof HttpError && err.status >= 500) || err instanceof ModelError;
      if (!later || item.attempts + 1 >= MAX_ITEM_ATTEMPTS) {
        setItem(host.sql, jobId, item.seq, { state: 'failed', error, attempts: item.attempts + 1 });
        continue;
      }
      // throttled or failing: the whole job waits (Retry-After at least), this message first again
      const at = Date.now() + retryDelayMs(err, 2_000 * 2 ** item.attempts);
      host.sql.exec(
        'UPDATE rule_job_items SET attempts = ?, error = ? WHERE job_id = ? AND seq = ?',
        item.attempts + 1,
        error,
        jobId,
        item.seq,
      );
      host.sql.exec("UPDATE rule_job_items SET next_at = MAX(next_at, ?) WHERE job_id = ? AND state = 'queued'", at, jobId);
      break;
    }
  }
  await saveProgress(host.sql, db, jobId);
  await ctx.tracer.save(db).catch(() => undefined);
}

function setItem(
  sqlStorage: SqlStorage,
  jobId: string,
  seq: number,
  change: { state: string; changed?: number; error?: string; attempts?: number },
) {
  sqlStorage.exec(
    'UPDATE rule_job_items SET state = ?, changed = ?, error = ?, attempts = COALESCE(?, attempts) WHERE job_id = ? AND seq = ?',
    change.state,
    change.changed ?? 0,
    change.error ?? null,
    change.attempts ?? null,
    jobId,
    seq,
  );
}

/** The job's D1 row from its items: how many are done and changed, finished when none waits; the items then forgotten. */
async function saveProgress(sqlStorage: SqlStorage, db: MailDb, jobId: string): Promise<void> {
  const counts = sqlStorage
    .exec<{ queued: number; finished: number; changed: number; failed: number; last_error: string | null }>(
      `SELECT TOTAL(state = 'queued') AS queued, TOTAL(state <> 'queued') AS finished, TOTAL(changed) AS changed,
              TOTAL(state = 'failed') AS failed, (SELECT error FROM rule_job_items WHERE job_id = ?1 AND state = 'failed' ORDER BY seq DESC LIMIT 1) AS last_error
       FROM rule_job_items WHERE job_id = ?1`,
      jobId,
    )
    .one();
  const finished = counts.queued === 0;
  await db
    .update(aiJobs)
    .set({
      status: finished ? 'done' : 'running',
      done: counts.finished,
      changed: counts.changed,
      error: counts.failed
        ? `${counts.failed} message${counts.failed === 1 ? '' : 's'} failed: ${counts.last_error ?? ''}`.slice(0, 500)
        : null,
      ...(finished ? { finishedAt: Date.now() } : {}),
    })
    .where(and(eq(aiJobs.id, jobId), inArray(aiJobs.status, LIVE)));
  if (finished) sqlStorage.exec('DELETE FROM rule_job_items WHERE job_id = ?', jobId);
}

/** The number of messages an apply job lists, at most. */
export const MAX_APPLY_MESSAGES = 200;

/** The user's latest apply jobs, newest first. */
export async function applyJobs(db: MailDb, userId: number, limit = 3) {
  return db
    .select()
    .from(aiJobs)
    .where(and(eq(aiJobs.userId, userId), eq(aiJobs.kind, APPLY_JOB_KIND)))
    .orderBy(desc(aiJobs.createdAt))
    .limit(limit)
    .all();
}
