import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { pruneAssistantHistory } from '../../workers/mail/src/ai/retention';

const DAY = 86_400_000;

describe('assistant history retention', () => {
  it('deletes traces with their steps and finished jobs older than the period, and nothing newer', async () => {
    const now = Date.UTC(2026, 10, 24, 12);
    const tag = crypto.randomUUID().slice(0, 8);
    const old = now - 31 * DAY;
    const recent = now - 29 * DAY;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO ai_traces (id, user_id, name, outcome, created_at) VALUES (?, 7001, 'draft', 'ok', ?)").bind(
        `old-${tag}`,
        old,
      ),
      env.DB.prepare("INSERT INTO ai_traces (id, user_id, name, outcome, created_at) VALUES (?, 7001, 'draft', 'ok', ?)").bind(
        `new-${tag}`,
        recent,
      ),
      ...[`old-${tag}`, `new-${tag}`].flatMap((id) =>
        [1, 2].map((seq) =>
          env.DB.prepare(
            "INSERT INTO ai_trace_steps (trace_id, seq, kind, name, latency_ms, outcome, at) VALUES (?, ?, 'model', 'summary', 5, 'ok', ?)",
          ).bind(id, seq, now),
        ),
      ),
      env.DB.prepare(
        "INSERT INTO ai_jobs (id, user_id, kind, status, created_at, finished_at) VALUES (?, 7001, 'recategorise', 'done', ?, ?)",
      ).bind(`old-done-${tag}`, old, old),
      env.DB.prepare(
        "INSERT INTO ai_jobs (id, user_id, kind, status, created_at, finished_at) VALUES (?, 7001, 'recategorise', 'done', ?, ?)",
      ).bind(`new-done-${tag}`, recent, recent),
      env.DB.prepare(
        "INSERT INTO ai_jobs (id, user_id, kind, status, created_at, finished_at) VALUES (?, 7001, 'recategorise', 'running', ?, NULL)",
      ).bind(`old-running-${tag}`, old),
    ]);

    const pruned = await pruneAssistantHistory(env.DB, now, 30);
    expect(pruned.traces).toBeGreaterThanOrEqual(1);
    expect(pruned.steps).toBeGreaterThanOrEqual(2);

    const traces = await env.DB.prepare('SELECT id FROM ai_traces WHERE id IN (?, ?)')
      .bind(`old-${tag}`, `new-${tag}`)
      .all<{ id: string }>();
    expect(traces.results.map((r) => r.id)).toEqual([`new-${tag}`]);
    const steps = await env.DB.prepare('SELECT trace_id FROM ai_trace_steps WHERE trace_id IN (?, ?)')
      .bind(`old-${tag}`, `new-${tag}`)
      .all<{ trace_id: string }>();
    expect(steps.results.map((r) => r.trace_id)).toEqual([`new-${tag}`, `new-${tag}`]);
    const jobs = await env.DB.prepare('SELECT id FROM ai_jobs WHERE id LIKE ? ORDER BY id').bind(`%-${tag}`).all<{ id: string }>();
    // A job still running is never deleted, however old.
    expect(jobs.results.map((r) => r.id)).toEqual([`new-done-${tag}`, `old-running-${tag}`]);
  });

  it("the mailbox object's alarm deletes processed new-mail records past the period and keeps queued ones", async () => {
    const stub = env.MAILBOX.get(env.MAILBOX.idFromName(`retention-${crypto.randomUUID()}`));
    const now = Date.now();
    await runInDurableObject(stub, (_instance, state) => {
      const insert = 'INSERT INTO ai_queue (message_id, state, next_at, updated_at) VALUES (?, ?, ?, ?)';
      state.storage.sql.exec(insert, 'old-done', 'done', now, now - 40 * DAY);
      state.storage.sql.exec(insert, 'old-failed', 'failed', now, now - 40 * DAY);
      state.storage.sql.exec(insert, 'recent-done', 'done', now, now - DAY);
      // Queued far in the future, so the alarm does not try to process it.
      state.storage.sql.exec(insert, 'old-queued', 'queued', now + 365 * DAY, now - 40 * DAY);
    });
    await runInDurableObject(stub, (instance) => instance.alarm());
    const left = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ message_id: string }>('SELECT message_id FROM ai_queue ORDER BY message_id')
        .toArray()
        .map((r) => r.message_id),
    );
    expect(left).toEqual(['old-queued', 'recent-done']);
  });
});
