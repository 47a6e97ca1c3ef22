const DAY_MS = 86_400_000;

/**
 * The oldest time the assistant's history of `days` keeps at `now`: of traces, finished jobs, and
 * the processed (done or failed) new-mail records of a mailbox object (their `updated_at`).
 */
export const historyCutoff = (now: number, days: number) => now - days * DAY_MS;

export interface PrunedHistory {
  traces: number;
  steps: number;
  jobs: number;
}

/**
 * Deletes the assistant's history older than `days` before `now`: traces with their steps, and
 * re-categorisation jobs that have finished. One D1 batch (a transaction), so a trace never loses
 * its steps without being deleted itself. Run by the cron.
 */
export async function pruneAssistantHistory(db: D1Database, now: number, days: number): Promise<PrunedHistory> {
  const cutoff = historyCutoff(now, days);
  const [steps, traces, jobs] = await db.batch([
    db.prepare('DELETE FROM ai_trace_steps WHERE trace_id IN (SELECT id FROM ai_traces WHERE created_at < ?1)').bind(cutoff),
    db.prepare('DELETE FROM ai_traces WHERE created_at < ?1').bind(cutoff),
    db.prepare('DELETE FROM ai_jobs WHERE finished_at IS NOT NULL AND finished_at < ?1').bind(cutoff),
  ]);
  return { traces: traces!.meta.changes, steps: steps!.meta.changes, jobs: jobs!.meta.changes };
}
