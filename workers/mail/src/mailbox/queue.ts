import type { Message } from '@microsoft/microsoft-graph-types';
import { HttpError } from '#shared/http-error.ts';
import type { Category } from '../ai/categories.ts';
import { processMessage } from '../ai/pipeline.ts';
import { recordInbound } from '../ai/replies.ts';
import { retryDelayMs } from '../ai/rule-actions.ts';
import { runCategoryRules } from '../ai/rules-job.ts';
import type { TaskContext } from '../ai/task.ts';
import type { GraphTransport } from '../graph/client.ts';
import { GraphClient } from '../graph/client.ts';

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
/** Messages processed per alarm run. */
export const QUEUE_BATCH = 20;

export type DueMessage = { message_id: string; attempts: number };

/**
 * New mail waiting for the assistant (summary, category, draft), in the mailbox object's SQLite
 * storage (table `ai_queue`): one row per message, kept after it is done so that a repeated
 * notification is not processed twice.
 */
export class NewMailQueue {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
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
    sql.exec('CREATE INDEX IF NOT EXISTS ai_queue_due ON ai_queue (state, next_at)');
  }

  /** Queues a message once (a message seen before, in whatever state, is not queued again). */
  add(messageId: string, now: number): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO ai_queue (message_id, state, next_at, updated_at) VALUES (?, 'queued', ?, ?)",
      messageId,
      now,
      now,
    );
  }

  /** Forgets the messages still waiting (the mailbox was disconnected). */
  dropQueued(): void {
    this.sql.exec("DELETE FROM ai_queue WHERE state = 'queued'");
  }

  /** The next QUEUE_BATCH messages due at `now`, the longest waiting first. */
  due(now: number): DueMessage[] {
    return this.sql
      .exec<DueMessage>(
        "SELECT message_id, attempts FROM ai_queue WHERE state = 'queued' AND next_at <= ? ORDER BY next_at LIMIT ?",
        now,
        QUEUE_BATCH,
      )
      .toArray();
  }

  /** When the next queued message is due, or null when none waits. */
  nextAt(): number | null {
    return this.sql.exec<{ at: number | null }>("SELECT MIN(next_at) AS at FROM ai_queue WHERE state = 'queued'").one().at;
  }

  /** Drops the processed records older than `cutoff` (kept as long as the rest of the assistant's history). */
  prune(cutoff: number): void {
    this.sql.exec("DELETE FROM ai_queue WHERE state <> 'queued' AND updated_at < ?", cutoff);
  }

  /** Counts, and the average timings of the newest processed messages. */
  state(): QueueState {
    const counts = Object.fromEntries(
      this.sql
        .exec<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM ai_queue GROUP BY state')
        .toArray()
        .map((r) => [r.state, r.n]),
    );
    // TOTAL() is 0.0 over no rows (and counts a missing model time as 0)
    const avg = this.sql
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

  private skipped(messageId: string): void {
    this.sql.exec("UPDATE ai_queue SET state = 'skipped', updated_at = ? WHERE message_id = ?", Date.now(), messageId);
  }

  private done(item: DueMessage, totalMs: number, modelMs: number, traceId: string): void {
    this.sql.exec(
      "UPDATE ai_queue SET state = 'done', attempts = ?, error = NULL, total_ms = ?, model_ms = ?, trace_id = ?, updated_at = ? WHERE message_id = ?",
      item.attempts + 1,
      totalMs,
      modelMs,
      traceId,
      Date.now(),
      item.message_id,
    );
  }

  /** A failed attempt: queued again later (Graph's Retry-After when it throttled, else 2 s, 8 s), or failed for good. */
  private failed(item: DueMessage, err: unknown, traceId: string): void {
    const failed = item.attempts + 1 >= MAX_ATTEMPTS;
    const error = err instanceof Error ? err.message : String(err);
    // Not found at Graph (moved, deleted): nothing to retry.
    const gone = err instanceof HttpError && err.status === 404;
    this.sql.exec(
      'UPDATE ai_queue SET state = ?, attempts = ?, error = ?, next_at = ?, trace_id = ?, updated_at = ? WHERE message_id = ?',
      failed || gone ? 'failed' : 'queued',
      item.attempts + 1,
      error.slice(0, 500),
      Date.now() + retryDelayMs(err, 2_000 * 4 ** item.attempts),
      traceId,
      Date.now(),
      item.message_id,
    );
  }

  /**
   * One new message: summary, category and (where its category asks) a reply draft, then its
   * category's rule actions, each recorded so that a retry skips the ones done.
   */
  async process(
    ctx: TaskContext,
    background: GraphTransport,
    graphBaseUrl: string,
    item: DueMessage,
    ownAddress: string | undefined,
    categories: Category[],
  ): Promise<void> {
    const started = Date.now();
    const transport = ctx.tracer.graphTransport(background);
    const graph = new GraphClient(transport, graphBaseUrl);
    try {
      const message: Message = await graph.message(item.message_id);
      // an answer in a conversation stops the owner's sent messages of it waiting
      await recordInbound(ctx.db, ctx.userId, message, ownAddress);
      if (message.isDraft) this.skipped(item.message_id);
      else {
        const processed = await processMessage(ctx, graph, message, { ownAddress, draft: true, categories });
        await runCategoryRules({ ctx, graph, transport, message, category: processed.category, clean: processed.clean, ownAddress });
        this.done(item, Date.now() - started, ctx.tracer.modelMs, ctx.tracer.id);
      }
      await ctx.tracer.save(ctx.db).catch(() => undefined);
    } catch (err) {
      this.failed(item, err, ctx.tracer.id);
      await ctx.tracer.save(ctx.db, 'error').catch(() => undefined);
    }
  }
}
