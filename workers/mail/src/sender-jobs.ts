import type { Message } from '@microsoft/microsoft-graph-types';
import { HttpError } from '#shared/http-error.ts';
import type { MailDb } from './context.ts';
import { senderJobProgress } from './data/senders.ts';
import type { GraphClient } from './graph/client.ts';

/**
 * The archive half of "unsubscribe and archive", run by the sender's mailbox object from its
 * alarm in bounded steps: each step lists the sender's next Inbox messages and moves them to
 * Archive, adding what it moved to the job's counts (D1 ai_sender_jobs). A moved message leaves
 * the Inbox, so the next step never finds it again: a step cut short (Graph throttling past its
 * retries, an outage, the object restarting) is simply run again later and nothing is moved or
 * counted twice. A throttled job waits (`waiting`) with a growing pause and resumes by itself.
 */

const STEP = 20;
/** Throttled or failing steps in a row before the job gives up. */
const MAX_ATTEMPTS = 8;
const PAUSE_MS = 2_000;
const MAX_PAUSE_MS = 60_000;

type QueuedJob = {
  job_id: string;
  user_id: number;
  sender: string;
  attempts: number;
  /** JSON array of message ids Graph refused to move: not listed again. */
  skipped: string;
};

export class SenderJobs {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS sender_jobs (
        job_id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        sender TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        skipped TEXT NOT NULL DEFAULT '[]',
        next_at INTEGER NOT NULL
      )`,
    );
  }

  add(jobId: string, userId: number, sender: string): void {
    this.sql.exec(
      'INSERT OR IGNORE INTO sender_jobs (job_id, user_id, sender, next_at) VALUES (?, ?, ?, ?)',
      jobId,
      userId,
      sender,
      Date.now(),
    );
  }

  nextAt(): number | null {
    return this.sql.exec<{ at: number | null }>('SELECT MIN(next_at) AS at FROM sender_jobs').one().at;
  }

  /** One step of every due job. */
  async run(db: MailDb, graph: GraphClient): Promise<void> {
    const due = this.sql
      .exec<QueuedJob>('SELECT job_id, user_id, sender, attempts, skipped FROM sender_jobs WHERE next_at <= ?', Date.now())
      .toArray();
    for (const job of due) await this.step(db, graph, job);
  }

  private async step(db: MailDb, graph: GraphClient, job: QueuedJob): Promise<void> {
    const skipped = new Set<string>(JSON.parse(job.skipped) as string[]);
    let archived = 0;
    let failed = 0;
    try {
      const filter = `from/emailAddress/address eq '${job.sender.replace(/'/g, "''")}'`;
      const page = await graph.page<Message>(
        `/me/mailFolders/inbox/messages?$filter=${encodeURIComponent(filter)}&$select=id&$top=${STEP + skipped.size}`,
      );
      const next = page.value.filter((m) => m.id && !skipped.has(m.id)).slice(0, STEP);
      if (next.length === 0) {
        await senderJobProgress(db, job.job_id, { archived: 0, failed: 0, status: 'done', finished: true });
        this.sql.exec('DELETE FROM sender_jobs WHERE job_id = ?', job.job_id);
        return;
      }
      for (const message of next) {
        try {
          await graph.move(message.id!, 'archive');
          archived += 1;
        } catch (err) {
          // gone already (moved or deleted elsewhere): nothing to do
          if (err instanceof HttpError && err.status === 404) continue;
          // Graph refused this message: counted once, never tried again
          if (err instanceof HttpError && err.status === 400) {
            failed += 1;
            skipped.add(message.id!);
            continue;
          }
          throw err;
        }
      }
      await senderJobProgress(db, job.job_id, { archived, failed, status: 'running' });
      this.sql.exec(
        'UPDATE sender_jobs SET attempts = 0, skipped = ?, next_at = ? WHERE job_id = ?',
        JSON.stringify([...skipped]),
        Date.now(),
        job.job_id,
      );
    } catch (err) {
      // throttled past the transport's retries, an outage, a timeout: what was moved is counted, the rest waits
      const attempts = job.attempts + 1;
      const reason = err instanceof Error ? err.message.slice(0, 300) : String(err);
      const givesUp = attempts >= MAX_ATTEMPTS;
      await senderJobProgress(db, job.job_id, {
        archived,
        failed,
        status: givesUp ? 'failed' : 'waiting',
        resumed: !givesUp,
        error: givesUp ? reason : `Graph is busy; resuming by itself (${reason})`,
        finished: givesUp,
      });
      if (givesUp) this.sql.exec('DELETE FROM sender_jobs WHERE job_id = ?', job.job_id);
      else
        this.sql.exec(
          'UPDATE sender_jobs SET attempts = ?, skipped = ?, next_at = ? WHERE job_id = ?',
          attempts,
          JSON.stringify([...skipped]),
          Date.now() + Math.min(MAX_PAUSE_MS, PAUSE_MS * 2 ** (attempts - 1)),
          job.job_id,
        );
    }
  }
}
