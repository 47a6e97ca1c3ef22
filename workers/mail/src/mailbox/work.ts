import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/mail/schema.ts';
import { categoriesOf } from '../ai/categories.ts';
import { failJob, recategoriseStep } from '../ai/jobs.ts';
import { createModel } from '../ai/model.ts';
import { SentQueue } from '../ai/replies.ts';
import { historyCutoff } from '../ai/retention.ts';
import { RULE_JOB_TABLE, applyRulesStep, nextApplyDue, queueApplyJob } from '../ai/rules-job.ts';
import type { TaskContext } from '../ai/task.ts';
import { Tracer } from '../ai/trace.ts';
import type { MailConfig } from '../config.ts';
import { GraphClient, type GraphTransport, inBackground } from '../graph/client.ts';
import { SenderJobs } from '../sender-jobs.ts';
import { type MailboxNotification, NotificationLog, announcesNewMessage } from './notifications.ts';
import { NewMailQueue, type QueueState } from './queue.ts';

/** Messages of the queue processed at once (as many as background work has Graph slots). */
const QUEUE_PARALLEL = 2;

/** What the mailbox's object lends its work: its bindings, settings and Graph gateway. */
export interface MailboxHost {
  env: Env;
  config: MailConfig;
  /** The mailbox's Graph requests (the object's own gateway: its token and slots). */
  transport: GraphTransport;
  /** The mailbox owner's address, when connected. */
  ownAddress(): Promise<string | undefined>;
  /** Resolves when the person has not read through the mailbox for a moment (bounded: see ReadActivity). */
  readsQuiet?(): Promise<unknown>;
}

/**
 * The assistant's work for one mailbox, kept in its object's SQLite storage: the notifications,
 * the queue of new mail, the re-categorisation jobs (`ai_jobs`), the "apply the rules" jobs
 * (ai/rules-job.ts), the sent messages to record (ai/replies.ts) and the "unsubscribe and
 * archive" jobs (sender-jobs.ts). The object runs it from its alarm; each method says what the
 * alarm should do next.
 */
export class MailboxWork {
  readonly notifications: NotificationLog;
  private readonly queue: NewMailQueue;
  private readonly sent: SentQueue;
  private readonly senderJobs: SenderJobs;

  constructor(private readonly sql: SqlStorage) {
    this.notifications = new NotificationLog(sql);
    this.queue = new NewMailQueue(sql);
    this.sent = new SentQueue(sql);
    this.senderJobs = new SenderJobs(sql);
    sql.exec('CREATE TABLE IF NOT EXISTS ai_jobs (job_id TEXT PRIMARY KEY, user_id INTEGER NOT NULL, after TEXT NOT NULL)');
    sql.exec(RULE_JOB_TABLE);
  }

  /**
   * Records change notifications (the newest are kept); with the user's id, each new message is
   * queued for the assistant once and each sent one for recording. True when work was queued.
   */
  notified(items: MailboxNotification[], userId?: number): boolean {
    this.notifications.record(items);
    if (userId !== undefined) {
      const now = Date.now();
      for (const item of items) {
        if (!announcesNewMessage(item)) continue;
        if (item.folder === 'sentitems') this.sent.add(item.messageId, now);
        else this.queue.add(item.messageId, now);
      }
    }
    this.notifications.trim();
    return userId !== undefined;
  }

  /** The mailbox was disconnected: its notifications and the mail still waiting are forgotten. */
  disconnected(): void {
    this.notifications.clear();
    this.queue.dropQueued();
  }

  /** Queues "apply the rules to existing mail" over these messages (the job's D1 row made by the caller). */
  startApplyRules(userId: number, jobId: string, messageIds: string[]): void {
    queueApplyJob(this.sql, userId, jobId, messageIds);
  }

  /** Queues a re-categorisation of the user's stored e-mails; it supersedes the user's earlier ones (so marked in D1 when made). */
  startJob(userId: number, jobId: string): void {
    this.sql.exec('DELETE FROM ai_jobs WHERE user_id = ?', userId);
    this.sql.exec('INSERT OR IGNORE INTO ai_jobs (job_id, user_id, after) VALUES (?, ?, ?)', jobId, userId, '');
  }

  /** Queues archiving a sender's Inbox mail (an "unsubscribe and archive" job). */
  startSenderJob(userId: number, jobId: string, sender: string): void {
    this.senderJobs.add(jobId, userId, sender);
  }

  queueState(): QueueState {
    return this.queue.state();
  }

  /**
   * One alarm's work: the due new mail (a pool: the next message starts when one is done, and the
   * mailbox's reads go between them), the sent messages, a step of each sender job and of each
   * re-categorisation. Returns when the alarm should run again, or null when nothing waits.
   */
  async drain(host: MailboxHost, userId: number | undefined): Promise<number | null> {
    const now = Date.now();
    const db = drizzle(host.env.DB, { schema });
    const background = inBackground(host.transport);
    const graphBase = host.config.GRAPH_BASE_URL;
    const cutoff = historyCutoff(now, host.config.ASSISTANT_HISTORY_DAYS);
    if (userId !== undefined) {
      const due = this.queue.due(now);
      const ownAddress = await host.ownAddress();
      // the user's categories, read once for the run's messages
      const categories = due.length ? await categoriesOf(db, userId) : [];
      let next = 0;
      const worker = async () => {
        while (next < due.length) {
          // the person's reads first: the next message waits for a quiet moment (at most 2 s)
          await host.readsQuiet?.();
          if (next >= due.length) break;
          const item = due[next++]!;
          await this.queue.process(taskContext(host, userId, 'new mail'), background, graphBase, item, ownAddress, categories);
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      };
      await Promise.all(Array.from({ length: Math.min(QUEUE_PARALLEL, due.length) }, worker));
      await this.sent.drain(db, new GraphClient(background, graphBase), userId, cutoff);
    }
    await this.senderJobs.run(db, new GraphClient(background, graphBase));
    const jobsLeft = await this.recategorise(host);
    this.queue.prune(cutoff);
    if (jobsLeft) return Date.now();
    const later = [this.queue.nextAt(), this.sent.nextAt(), this.senderJobs.nextAt()].filter((at): at is number => at !== null);
    return later.length ? Math.max(Date.now(), Math.min(...later)) : null;
  }

  /** A step of each re-categorisation job; whether any is left. */
  private async recategorise(host: MailboxHost): Promise<boolean> {
    const jobs = this.sql.exec<{ job_id: string; user_id: number; after: string }>('SELECT job_id, user_id, after FROM ai_jobs').toArray();
    for (const job of jobs) {
      const ctx = taskContext(host, job.user_id, 'recategorise');
      try {
        const next = await recategoriseStep(ctx, job.job_id, job.after);
        if (next === null) this.sql.exec('DELETE FROM ai_jobs WHERE job_id = ?', job.job_id);
        else this.sql.exec('UPDATE ai_jobs SET after = ? WHERE job_id = ?', next, job.job_id);
      } catch (err) {
        await failJob(ctx.db, job.job_id, err instanceof Error ? err.message : String(err)).catch(() => undefined);
        this.sql.exec('DELETE FROM ai_jobs WHERE job_id = ?', job.job_id);
      }
      await ctx.tracer.save(ctx.db).catch(() => undefined);
    }
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM ai_jobs').one().n > 0;
  }

  /** A step of the apply-rules jobs with messages due; returns when the next one is due, or null. */
  async applyRules(host: MailboxHost): Promise<number | null> {
    await applyRulesStep({
      sql: this.sql,
      run: (userId, name) => {
        const ctx = taskContext(host, userId, name);
        const transport = ctx.tracer.graphTransport(inBackground(host.transport));
        return { ctx, transport, graph: new GraphClient(transport, host.config.GRAPH_BASE_URL) };
      },
      ownAddress: () => host.ownAddress(),
    }).catch((err) => console.error(JSON.stringify({ level: 'error', service: 'mail', event: 'apply_rules_failed', error: String(err) })));
    return nextApplyDue(this.sql);
  }
}

function taskContext(host: MailboxHost, userId: number, name: string): TaskContext {
  return {
    model: createModel(host.config, host.env as { AI?: unknown }),
    tracer: new Tracer(userId, name),
    db: drizzle(host.env.DB, { schema }),
    userId,
    timeoutMs: host.config.MODEL_TIMEOUT_MS,
  };
}
