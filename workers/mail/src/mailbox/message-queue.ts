import { HttpError } from '#shared/http-error.ts';

/** A queued message that is due: its Graph id and the attempts made so far. */
export type DueMessage = { message_id: string; attempts: number };

/** Columns a queue sets beside the shared ones (name → value). */
type Values = Record<string, SqlStorageValue>;

/** The pause before the next attempt after `attempts` failed ones: 2 s, 8 s, 32 s, … */
export const backoffMs = (attempts: number) => 2_000 * 4 ** attempts;

/**
 * A queue of messages (by Graph id) in the mailbox object's SQLite storage: a row is `queued`
 * until it is settled (`done`, `skipped`) or has failed for good, and is kept afterwards (until
 * `prune`) so that a repeated notification is not queued again. The new mail (queue.ts) and the
 * sent messages to record (ai/replies.ts) each have one.
 */
export class MessageQueue {
  constructor(
    protected readonly sql: SqlStorage,
    protected readonly table: string,
    /** Messages `due` answers at once. */
    private readonly batch: number,
    /** The queue's own columns, as CREATE TABLE names them. */
    columns: string[] = [],
  ) {
    const shared = [
      'message_id TEXT PRIMARY KEY',
      'state TEXT NOT NULL',
      'attempts INTEGER NOT NULL DEFAULT 0',
      'next_at INTEGER NOT NULL',
    ];
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (${[...shared, 'error TEXT', ...columns, 'updated_at INTEGER NOT NULL'].join(', ')})`);
  }

  /** Queues a message once (a message seen before, in whatever state, is not queued again). */
  add(messageId: string, now = Date.now()): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO ${this.table} (message_id, state, next_at, updated_at) VALUES (?, 'queued', ?, ?)`,
      messageId,
      now,
      now,
    );
  }

  /** The next `batch` messages due at `now`, the longest waiting first. */
  due(now: number): DueMessage[] {
    return this.sql
      .exec<DueMessage>(
        `SELECT message_id, attempts FROM ${this.table} WHERE state = 'queued' AND next_at <= ? ORDER BY next_at LIMIT ?`,
        now,
        this.batch,
      )
      .toArray();
  }

  /** When the next queued message is due, or null when none waits. */
  nextAt(): number | null {
    return this.sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM ${this.table} WHERE state = 'queued'`).one().at;
  }

  /** Drops the processed records older than `cutoff`. */
  prune(cutoff: number): void {
    this.sql.exec(`DELETE FROM ${this.table} WHERE state <> 'queued' AND updated_at < ?`, cutoff);
  }

  /** A message done with (`done`, `skipped`): no error, and the queue's own columns as given. */
  protected settle(messageId: string, state: string, values: Values = {}): void {
    this.update(messageId, { state, error: null, ...values });
  }

  /**
   * A failed attempt: queued again `delayMs` later, or failed for good after `maxAttempts` or when
   * Graph no longer has the message (404: moved or deleted, nothing to retry).
   */
  protected retry(item: DueMessage, err: unknown, maxAttempts: number, delayMs: number, values: Values = {}): void {
    const gone = err instanceof HttpError && err.status === 404;
    this.update(item.message_id, {
      state: gone || item.attempts + 1 >= maxAttempts ? 'failed' : 'queued',
      attempts: item.attempts + 1,
      error: (err instanceof Error ? err.message : String(err)).slice(0, 500),
      next_at: Date.now() + delayMs,
      ...values,
    });
  }

  private update(messageId: string, values: Values): void {
    const names = Object.keys(values);
    this.sql.exec(
      `UPDATE ${this.table} SET ${names.map((n) => `${n} = ?`).join(', ')}, updated_at = ? WHERE message_id = ?`,
      ...Object.values(values),
      Date.now(),
      messageId,
    );
  }
}
