import type { Message } from '@microsoft/microsoft-graph-types';
import type { Category } from '../ai/categories.ts';
import { processMessage } from '../ai/pipeline.ts';
import { recordInbound } from '../ai/replies.ts';
import { retryDelayMs } from '../ai/rule-actions.ts';
import { runCategoryRules } from '../ai/rules-job.ts';
import type { TaskContext } from '../ai/task.ts';
import type { GraphTransport } from '../graph/client.ts';
import { GraphClient } from '../graph/client.ts';
import { type DueMessage, MessageQueue, backoffMs } from './message-queue.ts';

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

/**
 * New mail waiting for the assistant (summary, category, draft), in the mailbox object's SQLite
 * storage (table `ai_queue`): one row per message, kept after it is done so that a repeated
 * notification is not processed twice.
 */
export class NewMailQueue extends MessageQueue {
  constructor(sql: SqlStorage) {
    super(sql, 'ai_queue', QUEUE_BATCH, ['total_ms INTEGER', 'model_ms INTEGER', 'trace_id TEXT']);
    sql.exec('CREATE INDEX IF NOT EXISTS ai_queue_due ON ai_queue (state, next_at)');
  }

  /** Forgets the messages still waiting (the mailbox was disconnected). */
  dropQueued(): void {
    this.sql.exec("DELETE FROM ai_queue WHERE state = 'queued'");
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

  private done(item: DueMessage, totalMs: number, modelMs: number, traceId: string): void {
    this.settle(item.message_id, 'done', { attempts: item.attempts + 1, total_ms: totalMs, model_ms: modelMs, trace_id: traceId });
  }

  /** A failed attempt: queued again later (Graph's Retry-After when it throttled, else 2 s, 8 s), or failed for good. */
  private failed(item: DueMessage, err: unknown, traceId: string): void {
    this.retry(item, err, MAX_ATTEMPTS, retryDelayMs(err, backoffMs(item.attempts)), { trace_id: traceId });
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
      if (message.isDraft) this.settle(item.message_id, 'skipped');
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
