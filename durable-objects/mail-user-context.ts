import { DurableObject } from 'cloudflare:workers';
import type { Message } from '@microsoft/microsoft-graph-types';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/mail/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import { type Category, categoriesOf } from '../workers/mail/src/ai/categories.ts';
import { failJob, recategoriseStep } from '../workers/mail/src/ai/jobs.ts';
import { createModel } from '../workers/mail/src/ai/model.ts';
import { processMessage } from '../workers/mail/src/ai/pipeline.ts';
import { SentQueue, recordInbound } from '../workers/mail/src/ai/replies.ts';
import { SenderJobs } from '../workers/mail/src/sender-jobs.ts';
import { retryDelayMs } from '../workers/mail/src/ai/rule-actions.ts';
import { RULE_JOB_TABLE, applyRulesStep, nextApplyDue, queueApplyJob, runCategoryRules } from '../workers/mail/src/ai/rules-job.ts';
import { historyCutoff } from '../workers/mail/src/ai/retention.ts';
import type { TaskContext } from '../workers/mail/src/ai/task.ts';
import { Tracer } from '../workers/mail/src/ai/trace.ts';
import { GraphClient, inBackground } from '../workers/mail/src/graph/client.ts';
import { type MailConfig, mailConfig } from '../workers/mail/src/config.ts';
import { WELL_KNOWN_FOLDERS } from '../workers/mail/src/graph/client.ts';
import { SharedReads } from '../workers/mail/src/graph/reads.ts';
import { type GraphRequest, type GraphResult, Semaphore, sendGraph } from '../workers/mail/src/graph/transport.ts';
import { GrantRefused, type TokenSet, refreshTokens } from '../workers/mail/src/oauth.ts';
import { open, seal } from '../workers/mail/src/sealing.ts';

/** The mailbox owner as Graph's /me describes them. */
export interface MailboxAccount {
  id: string;
  displayName: string;
  mail: string;
}

export interface MailboxStatus {
  connected: boolean;
  account?: MailboxAccount;
  connectedAt?: number;
  /** Unix ms the current access token stops working. */
  accessExpiresAt?: number;
  refreshes?: number;
}

interface StoredConnection {
  account: MailboxAccount;
  accessToken: string;
  accessExpiresAt: number;
  lifetime: number;
  refreshSealed: string;
  connectedAt: number;
  refreshes: number;
}

/** A change notification for this mailbox, as the webhook accepted it. */
export interface MailboxNotification {
  subscriptionId: string;
  changeType: string;
  resource: string;
  messageId: string | null;
  receivedAt: number;
  /** Set for the Sent Items subscription's notifications (the owner sent a message). */
  folder?: 'sentitems';
}

/** Whether a notification announces a new message the assistant processes (created, with its id). */
export const announcesNewMessage = (item: MailboxNotification): item is MailboxNotification & { messageId: string } =>
  item.changeType.split(',').includes('created') && !!item.messageId;

/** The assistant's work queue of new mail, as `queueState` reports it. */
export interface QueueState {
  queued: number;
  done: number;
  failed: number;
  /** Over the newest 1000 processed messages, rounded to the ms: the whole time per message, and the model's share. */
  avgMs: number;
  avgModelMs: number;
}

/** New mail is processed this many times at most (then left as failed). */
export const MAX_ATTEMPTS = 3;
/** Messages processed per alarm run, and at once (as many as background work has Graph slots). */
const QUEUE_BATCH = 20;
const QUEUE_PARALLEL = 2;

/** Notifications kept per mailbox (the newest). */
export const MAX_KEPT_NOTIFICATIONS = 1000;

/** Graph calls in flight at once for one mailbox (Graph throttles at 4 per app and mailbox). */
export const MAX_CONCURRENT_GRAPH_REQUESTS = 4;
/** Of those, the most background work holds (new mail, drafts, renewals): the rest stay free for reads. */
export const MAX_BACKGROUND_GRAPH_REQUESTS = 2;
const REFRESH_PURPOSE = 'refresh-token';

/**
 * One back-office user's mailbox connection ("user context", named after the user's id): its access token and its refresh token (sealed with
 * MAIL_TOKEN_SECRET), refreshed by one caller at a time — concurrent callers wait for the same
 * refresh, so a rotating refresh token is never redeemed twice — and every Graph request of the
 * mailbox, so that at most four are in flight whichever isolate asked.
 */
export class MailUserContext extends DurableObject<Env> {
  private refreshing: Promise<string | undefined> | undefined;
  private readonly slots = new Semaphore(MAX_CONCURRENT_GRAPH_REQUESTS, MAX_BACKGROUND_GRAPH_REQUESTS);
  /** Identical reads in flight share one call; a short-lived cache, dropped by writes and notifications. */
  private readonly reads = new SharedReads();
  private wellKnownLoading: Promise<Record<string, string>> | undefined;
  /** Sent messages to record (replies tracked wherever they are sent), and "unsubscribe and archive" jobs. */
  private readonly sent: SentQueue;
  private readonly senderJobs: SenderJobs;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sent = new SentQueue(ctx.storage.sql);
    this.senderJobs = new SenderJobs(ctx.storage.sql);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subscription_id TEXT NOT NULL,
        change_type TEXT NOT NULL,
        resource TEXT NOT NULL,
        message_id TEXT,
        received_at INTEGER NOT NULL
      )`,
    );
    // New mail waiting for the assistant (summary, category, draft): one row per message, kept
    // after it is done so a repeated notification is not processed twice.
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS ai_queue (
        message_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL,
        error TEXT,
        total_ms INTEGER,
        model_ms INTEGER,
        trace_id TEXT,
        updated_at INTEGER NOT NULL
      )`,
    );
    ctx.storage.sql.exec('CREATE INDEX IF NOT EXISTS ai_queue_due ON ai_queue (state, next_at)');
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS ai_jobs (job_id TEXT PRIMARY KEY, user_id INTEGER NOT NULL, after TEXT NOT NULL)');
    // "apply the rules to existing mail": each job's messages (workers/mail/src/ai/rules-job.ts)
    ctx.storage.sql.exec(RULE_JOB_TABLE);
  }

  #config: MailConfig | undefined;

  /** The object's settings, parsed once for its lifetime (its env does not change while it lives). */
  private get config(): MailConfig {
    this.#config ??= mailConfig(this.env);
    return this.#config;
  }

  /** Stores a new connection (replacing any earlier one). */
  async store(tokens: TokenSet, account: MailboxAccount): Promise<void> {
    const stored: StoredConnection = {
      account,
      accessToken: tokens.accessToken,
      accessExpiresAt: tokens.expiresAt,
      lifetime: tokens.lifetime,
      refreshSealed: await seal(this.config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), tokens.refreshToken),
      connectedAt: Date.now(),
      refreshes: 0,
    };
    this.refreshing = undefined;
    this.wellKnownLoading = undefined;
    this.reads.invalidate();
    await this.ctx.storage.delete('wellKnownFolders');
    await this.ctx.storage.put('connection', stored);
  }

  async status(): Promise<MailboxStatus> {
    const stored = await this.ctx.storage.get<StoredConnection>('connection');
    if (!stored) return { connected: false };
    return {
      connected: true,
      account: stored.account,
      connectedAt: stored.connectedAt,
      accessExpiresAt: stored.accessExpiresAt,
      refreshes: stored.refreshes,
    };
  }

  async disconnect(): Promise<void> {
    this.reads.invalidate();
    this.refreshing = undefined;
    this.wellKnownLoading = undefined;
    await this.ctx.storage.delete(['connection', 'wellKnownFolders']);
    this.ctx.storage.sql.exec('DELETE FROM notifications');
    this.ctx.storage.sql.exec("DELETE FROM ai_queue WHERE state = 'queued'");
  }

  /**
   * Records change notifications the webhook accepted for this mailbox (the newest are kept);
   * with the user's id, each new message is queued for the assistant (once per message) and the
   * alarm drains the queue.
   */
  async notified(items: MailboxNotification[], userId?: number): Promise<void> {
    if (items.length) this.reads.invalidate();
    for (const item of items) {
      this.ctx.storage.sql.exec(
        'INSERT INTO notifications (subscription_id, change_type, resource, message_id, received_at) VALUES (?, ?, ?, ?, ?)',
        item.subscriptionId,
        item.changeType,
        item.resource,
        item.messageId,
        item.receivedAt,
      );
    }
    if (userId !== undefined) {
      const now = Date.now();
      for (const item of items) {
        if (announcesNewMessage(item) && item.folder === 'sentitems') this.sent.add(item.messageId, now);
        else if (announcesNewMessage(item)) {
          this.ctx.storage.sql.exec(
            "INSERT OR IGNORE INTO ai_queue (message_id, state, next_at, updated_at) VALUES (?, 'queued', ?, ?)",
            item.messageId,
            now,
            now,
          );
        }
      }
      await this.ctx.storage.put('userId', userId);
      await this.wake();
    }
    this.ctx.storage.sql.exec('DELETE FROM notifications WHERE id <= (SELECT MAX(id) FROM notifications) - ?', MAX_KEPT_NOTIFICATIONS);
  }

  /** Starts "apply the rules to existing mail" over these messages (the job's D1 row made by the caller). */
  async startApplyRules(userId: number, jobId: string, messageIds: string[]): Promise<void> {
    queueApplyJob(this.ctx.storage.sql, userId, jobId, messageIds);
    await this.wake();
  }

  /** Starts a background job (re-categorisation) of the user's stored e-mails. */
  async startJob(userId: number, jobId: string): Promise<void> {
    // the new job supersedes the user's earlier ones (marked so in D1 when it was created)
    this.ctx.storage.sql.exec('DELETE FROM ai_jobs WHERE user_id = ?', userId);
    this.ctx.storage.sql.exec('INSERT OR IGNORE INTO ai_jobs (job_id, user_id, after) VALUES (?, ?, ?)', jobId, userId, '');
    await this.wake();
  }

  /** Starts archiving a sender's Inbox mail (an "unsubscribe and archive" job, src/sender-jobs.ts). */
  async startSenderJob(userId: number, jobId: string, sender: string): Promise<void> {
    this.senderJobs.add(jobId, userId, sender);
    await this.wake();
  }

  /** The assistant's queue of new mail: counts and the average timings of the processed messages. */
  async queueState(): Promise<QueueState> {
    const counts = Object.fromEntries(
      this.ctx.storage.sql
        .exec<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM ai_queue GROUP BY state')
        .toArray()
        .map((r) => [r.state, r.n]),
    );
    // TOTAL() is 0.0 over no rows (and counts a missing model time as 0)
    const avg = this.ctx.storage.sql
      .exec<{ total_ms: number; model_ms: number }>(
        "SELECT TOTAL(total_ms) / MAX(COUNT(*), 1) AS total_ms, TOTAL(model_ms) / MAX(COUNT(*), 1) AS model_ms FROM (SELECT total_ms, model_ms FROM ai_queue WHERE state = 'done' AND total_ms IS NOT NULL ORDER BY updated_at DESC LIMIT 1000)",
      )
      .one();
    return {
      queued: counts.queued ?? 0,
      done: counts.done ?? 0,
      failed: counts.failed ?? 0,
      avgMs: Math.round(avg.total_ms),
      avgModelMs: Math.round(avg.model_ms),
    };
  }

  private async wake(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  private taskContext(userId: number, name: string): TaskContext {
    const config = this.config;
    return {
      model: createModel(config, this.env as { AI?: unknown }),
      tracer: new Tracer(userId, name),
      db: drizzle(this.env.DB, { schema }),
      userId,
      timeoutMs: config.MODEL_TIMEOUT_MS,
    };
  }

  /** Drains the queue of new mail and runs a step of each background job; again while work remains. */
  override async alarm(): Promise<void> {
    const userId = await this.ctx.storage.get<number>('userId');
    const now = Date.now();
    if (userId !== undefined) {
      const due = this.ctx.storage.sql
        .exec<{ message_id: string; attempts: number }>(
          "SELECT message_id, attempts FROM ai_queue WHERE state = 'queued' AND next_at <= ? ORDER BY next_at LIMIT ?",
          now,
          QUEUE_BATCH,
        )
        .toArray();
      const account = (await this.status()).account;
      // the user's categories, read once for the run's messages
      const categories = due.length ? await categoriesOf(drizzle(this.env.DB, { schema }), userId) : [];
      // a pool: the next message starts when one is done; between messages the object takes what
      // waits (the mailbox's reads) before going on
      let next = 0;
      const worker = async () => {
        while (next < due.length) {
          const item = due[next++]!;
          await this.processQueued(userId, item.message_id, item.attempts, account?.mail, categories);
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      };
      await Promise.all(Array.from({ length: Math.min(QUEUE_PARALLEL, due.length) }, worker));
      const db = drizzle(this.env.DB, { schema });
      const background = new GraphClient(inBackground(this), this.config.GRAPH_BASE_URL);
      await this.sent.drain(db, background, userId, historyCutoff(now, this.config.ASSISTANT_HISTORY_DAYS));
    }
    await this.senderJobs.run(drizzle(this.env.DB, { schema }), new GraphClient(inBackground(this), this.config.GRAPH_BASE_URL));
    for (const job of this.ctx.storage.sql
      .exec<{ job_id: string; user_id: number; after: string }>('SELECT job_id, user_id, after FROM ai_jobs')
      .toArray()) {
      const ctx = this.taskContext(job.user_id, 'recategorise');
      try {
        const next = await recategoriseStep(ctx, job.job_id, job.after);
        if (next === null) this.ctx.storage.sql.exec('DELETE FROM ai_jobs WHERE job_id = ?', job.job_id);
        else this.ctx.storage.sql.exec('UPDATE ai_jobs SET after = ? WHERE job_id = ?', next, job.job_id);
      } catch (err) {
        await failJob(ctx.db, job.job_id, err instanceof Error ? err.message : String(err)).catch(() => undefined);
        this.ctx.storage.sql.exec('DELETE FROM ai_jobs WHERE job_id = ?', job.job_id);
      }
      await ctx.tracer.save(ctx.db).catch(() => undefined);
    }
    // Processed records are kept (a repeated notification is not processed twice) for as long as
    // the rest of the assistant's history.
    this.ctx.storage.sql.exec(
      "DELETE FROM ai_queue WHERE state <> 'queued' AND updated_at < ?",
      historyCutoff(now, this.config.ASSISTANT_HISTORY_DAYS),
    );
    const next = this.ctx.storage.sql
      .exec<{ at: number | null }>("SELECT MIN(next_at) AS at FROM ai_queue WHERE state = 'queued'")
      .one().at;
    const jobs = this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM ai_jobs').one().n;
    const later = [next, this.sent.nextAt(), this.senderJobs.nextAt()].filter((at): at is number => at !== null);
    if (jobs > 0) await this.ctx.storage.setAlarm(Date.now());
    else if (later.length) await this.ctx.storage.setAlarm(Math.max(Date.now(), Math.min(...later)));
    await this.applyRules();
  }

  /** A step of the apply-rules jobs with messages due, and the alarm again for the next one. */
  private async applyRules(): Promise<void> {
    await applyRulesStep({
      sql: this.ctx.storage.sql,
      run: (userId, name) => {
        const ctx = this.taskContext(userId, name);
        const transport = ctx.tracer.graphTransport(inBackground(this));
        return { ctx, transport, graph: new GraphClient(transport, this.config.GRAPH_BASE_URL) };
      },
      ownAddress: async () => (await this.status()).account?.mail,
    }).catch((err) => console.error(JSON.stringify({ level: 'error', service: 'mail', event: 'apply_rules_failed', error: String(err) })));
    const due = nextApplyDue(this.ctx.storage.sql);
    const alarm = await this.ctx.storage.getAlarm();
    if (due !== null && (alarm === null || due < alarm)) await this.ctx.storage.setAlarm(Math.max(Date.now(), due));
  }

  /** One new message: summary, category and (where its category asks) a reply draft. */
  private async processQueued(
    userId: number,
    messageId: string,
    attempts: number,
    ownAddress: string | undefined,
    categories: Category[],
  ): Promise<void> {
    const started = Date.now();
    const ctx = this.taskContext(userId, 'new mail');
    // background work: the mailbox's reads go first (see Semaphore)
    const transport = ctx.tracer.graphTransport(inBackground(this));
    const graph = new GraphClient(transport, this.config.GRAPH_BASE_URL);
    try {
      const message: Message = await graph.message(messageId);
      // an answer in a conversation stops the owner's sent messages of it waiting
      await recordInbound(ctx.db, userId, message, ownAddress);
      if (message.isDraft) {
        this.ctx.storage.sql.exec("UPDATE ai_queue SET state = 'skipped', updated_at = ? WHERE message_id = ?", Date.now(), messageId);
      } else {
        const processed = await processMessage(ctx, graph, message, { ownAddress, draft: true, categories });
        // the category's rule actions, each recorded: a retry skips the ones done
        await runCategoryRules({ ctx, graph, transport, message, category: processed.category, clean: processed.clean, ownAddress });
        this.ctx.storage.sql.exec(
          "UPDATE ai_queue SET state = 'done', attempts = ?, error = NULL, total_ms = ?, model_ms = ?, trace_id = ?, updated_at = ? WHERE message_id = ?",
          attempts + 1,
          Date.now() - started,
          ctx.tracer.modelMs,
          ctx.tracer.id,
          Date.now(),
          messageId,
        );
      }
      await ctx.tracer.save(ctx.db).catch(() => undefined);
    } catch (err) {
      const failed = attempts + 1 >= MAX_ATTEMPTS;
      const error = err instanceof Error ? err.message : String(err);
      // Not found at Graph (moved, deleted): nothing to retry.
      const gone = err instanceof HttpError && err.status === 404;
      this.ctx.storage.sql.exec(
        'UPDATE ai_queue SET state = ?, attempts = ?, error = ?, next_at = ?, trace_id = ?, updated_at = ? WHERE message_id = ?',
        failed || gone ? 'failed' : 'queued',
        attempts + 1,
        error.slice(0, 500),
        // Graph's Retry-After when it throttled, else 2 s, 8 s
        Date.now() + retryDelayMs(err, 2_000 * 4 ** attempts),
        ctx.tracer.id,
        Date.now(),
        messageId,
      );
      await ctx.tracer.save(ctx.db, 'error').catch(() => undefined);
    }
  }

  /** The newest notifications of this mailbox, oldest first. */
  async notifications(limit = 100): Promise<MailboxNotification[]> {
    const rows = this.ctx.storage.sql
      .exec<{ subscription_id: string; change_type: string; resource: string; message_id: string | null; received_at: number }>(
        'SELECT subscription_id, change_type, resource, message_id, received_at FROM notifications ORDER BY id DESC LIMIT ?',
        Math.max(1, Math.min(limit, MAX_KEPT_NOTIFICATIONS)),
      )
      .toArray();
    return rows.reverse().map((r) => ({
      subscriptionId: r.subscription_id,
      changeType: r.change_type,
      resource: r.resource,
      messageId: r.message_id,
      receivedAt: r.received_at,
    }));
  }

  /**
   * The ids of the well-known folders (inbox, sentitems, drafts, …), read once per connection:
   * they tell in which of them a message lies. A folder the mailbox lacks is left out.
   */
  async wellKnownFolders(): Promise<Record<string, string>> {
    const cached = await this.ctx.storage.get<Record<string, string>>('wellKnownFolders');
    if (cached) return cached;
    // the first requests after connecting ask at once (folders, list, message): one look-up for all
    this.wellKnownLoading ??= this.loadWellKnownFolders().finally(() => {
      this.wellKnownLoading = undefined;
    });
    return this.wellKnownLoading;
  }

  private async loadWellKnownFolders(): Promise<Record<string, string>> {
    const found: Record<string, string> = {};
    let complete = true;
    await Promise.all(
      WELL_KNOWN_FOLDERS.map(async (name) => {
        const result = await this.graph({ method: 'GET', path: `/me/mailFolders/${name}?$select=id` });
        const id = result.ok ? (result.json as { id?: unknown } | undefined)?.id : undefined;
        if (typeof id === 'string') found[name] = id;
        else if (!result.ok && result.status !== 404) complete = false;
      }),
    );
    if (complete) await this.ctx.storage.put('wellKnownFolders', found);
    return found;
  }

  /** One Graph request with the mailbox's token (see sendGraph), its reads shared (see SharedReads). */
  async graph(request: GraphRequest): Promise<GraphResult> {
    const settings = this.config;
    return this.reads.send(request, (r) => sendGraph(r, { settings, slots: this.slots, token: (renew) => this.accessToken(renew) }));
  }

  /** A valid access token, refreshed first when it is (nearly) expired or `renew` is asked; undefined when not connected. */
  async accessToken(renew = false): Promise<string | undefined> {
    const stored = await this.ctx.storage.get<StoredConnection>('connection');
    if (!stored) return undefined;
    // Refresh a little before expiry: a minute, or a quarter of a short lifetime.
    const margin = Math.min(60_000, (stored.lifetime * 1000) / 4);
    if (!renew && Date.now() < stored.accessExpiresAt - margin) return stored.accessToken;
    this.refreshing ??= this.refresh(stored).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(stored: StoredConnection): Promise<string | undefined> {
    const config = this.config;
    const refreshToken = await open(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), stored.refreshSealed);
    if (!refreshToken) {
      await this.disconnect();
      return undefined;
    }
    let tokens: TokenSet;
    try {
      tokens = await refreshTokens(config, refreshToken);
    } catch (err) {
      if (err instanceof GrantRefused) {
        // Revoked, expired or reused: the mailbox must be connected again.
        console.warn(JSON.stringify({ level: 'warn', service: 'mail', event: 'mailbox_refresh_refused', error: err.message }));
        await this.disconnect();
        return undefined;
      }
      throw err;
    }
    const next: StoredConnection = {
      ...stored,
      accessToken: tokens.accessToken,
      accessExpiresAt: tokens.expiresAt,
      lifetime: tokens.lifetime,
      refreshSealed: await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), tokens.refreshToken),
      refreshes: stored.refreshes + 1,
    };
    await this.ctx.storage.put('connection', next);
    return tokens.accessToken;
  }
}
