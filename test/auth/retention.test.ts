import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq, inArray, like, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auditLog, refreshFamilies, totpUsedSteps } from '#d1/auth/schema.ts';
import worker from '../../workers/auth/src/index';
import { authConfig } from '../../workers/auth/src/config';
import { CONCURRENT_REFRESH_GRACE_MS } from '../../workers/auth/src/refresh-families';
import {
  RETENTION_BATCH_SIZE,
  RETENTION_MAX_BATCHES,
  runRetention,
  TOTP_USED_STEP_RETENTION_MS,
  type RetentionResult,
} from '../../workers/auth/src/retention';
import { stepAt, TOTP_PERIOD_SECONDS, TOTP_WINDOW } from '../../workers/auth/src/totp';
import { createAccount, db, post, signIn, type Tokens } from './helpers';

const DAY = 86_400_000;

interface RetentionLog extends RetentionResult {
  level: string;
  job: string;
  cron: string;
  audit_retention_days: number;
}

/** Runs the Worker's scheduled handler as the Cron Trigger would; answers its one log line. */
async function runScheduled(overrides: Record<string, string | undefined> = {}): Promise<RetentionLog> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logged.push(String(line)));
  try {
    const ctx = createExecutionContext();
    const controller = createScheduledController({ scheduledTime: new Date(), cron: '23 * * * *' });
    await worker.scheduled(controller, { ...env, ...overrides } as Env, ctx);
    await waitOnExecutionContext(ctx);
  } finally {
    spy.mockRestore();
  }
  const lines = logged.map((line) => JSON.parse(line) as RetentionLog).filter((line) => line.job === 'retention');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const marker = () => `retention-${crypto.randomUUID()}`;

/**
 * Deletes what is due now or comes due within the next minutes: the rows other tests left behind
 * (this project's files share one database), among them used TOTP steps that would reach their
 * ten minutes in the seconds before a counted run. A run after it then counts this test's rows alone.
 */
const clearDue = () => runRetention(db(), authConfig(env), Date.now() + 5 * 60_000);

/** `count` audit rows at `at`, in one statement. */
async function seedAudit(count: number, at: number, detail: string) {
  await db().run(
    sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
        insert into audit_log (at, event, detail) select ${at}, 'login_failure', ${detail} from n`,
  );
}

const auditCount = async (detail: string) =>
  (await db().select({ n: sql<number>`count(*)` }).from(auditLog).where(eq(auditLog.detail, detail)))[0]!.n;

afterEach(() => vi.restoreAllMocks());

describe('retention job (scheduled handler)', () => {
  it('deletes exactly the expired families, old TOTP steps and old audit rows, and keeps the rest', async () => {
    // Whatever earlier tests left behind goes first, so the counts below are this test's alone.
    await clearDue();
    const account = await createAccount({});
    const now = Date.now();
    const family = (id: string, expiresAt: number, revoked?: 'revoked' | 'reuse_detected') => ({
      id: `${id}-${crypto.randomUUID()}`,
      userId: account.id,
      expiresAt,
      generation: 3,
      createdAt: now - 40 * DAY,
      revokedAt: revoked ? now - 2 * DAY : null,
      revokedReason: revoked ?? null,
    });
    const expired = [
      family('expired', now - 10 * DAY),
      family('just-expired', now - 1_000),
      family('revoked-expired', now - DAY, 'reuse_detected'),
    ];
    const live = [
      family('live', now + DAY),
      family('revoked-live', now + 60_000, 'revoked'),
      family('reused-live', now + 29 * DAY, 'reuse_detected'),
    ];
    await db()
      .insert(refreshFamilies)
      .values([...expired, ...live]);

    const current = stepAt(now);
    const oldSteps = [current - 100, stepAt(now - TOTP_USED_STEP_RETENTION_MS) - 5];
    const keptSteps = [stepAt(now - TOTP_USED_STEP_RETENTION_MS) + 2, current - 1, current, current + 1];
    await db()
      .insert(totpUsedSteps)
      .values([...oldSteps, ...keptSteps].map((step) => ({ userId: account.id, step, usedAt: step * TOTP_PERIOD_SECONDS * 1000 })));

    const old = marker();
    const recent = marker();
    await seedAudit(2, now - 366 * DAY, old);
    await seedAudit(1, now - 3 * 365 * DAY, old);
    await seedAudit(2, now - 364 * DAY, recent);
    await seedAudit(1, now, recent);

    const log = await runScheduled();
    expect(log).toMatchObject({
      level: 'info',
      cron: '23 * * * *',
      audit_retention_days: 365,
      refresh_families: { deleted: 3, batches: 1, complete: true },
      totp_used_steps: { deleted: 2, batches: 1, complete: true },
      audit_log: { deleted: 3, batches: 1, complete: true },
    });

    const families = await db().select({ id: refreshFamilies.id }).from(refreshFamilies).where(eq(refreshFamilies.userId, account.id));
    expect(families.map((f) => f.id).sort()).toEqual(live.map((f) => f.id).sort());
    const steps = await db().select({ step: totpUsedSteps.step }).from(totpUsedSteps).where(eq(totpUsedSteps.userId, account.id));
    expect(steps.map((s) => s.step).sort((a, b) => a - b)).toEqual(keptSteps);
    expect(await auditCount(old)).toBe(0);
    expect(await auditCount(recent)).toBe(3);

    // Nothing is due any more: a second run deletes nothing.
    const again = await runScheduled();
    expect(again.refresh_families.deleted + again.totp_used_steps.deleted + again.audit_log!.deleted).toBe(0);
  });

  it('keeps TOTP steps for longer than a code is accepted', () => {
    // A step is accepted until TOTP_WINDOW steps after it have passed.
    expect(TOTP_USED_STEP_RETENTION_MS).toBeGreaterThan((TOTP_WINDOW + 1) * TOTP_PERIOD_SECONDS * 1000);
  });

  it('leaves reuse detection working for a rotated token that has not expired', async () => {
    const account = await createAccount({});
    const first = await signIn(account);
    const second = await (await post('/api/token/refresh/', { refresh_token: first.refresh_token })).json<Tokens>();
    // Past the concurrent-refresh grace, so presenting `first` again is reuse, not a lost race.
    await db()
      .update(refreshFamilies)
      .set({ lastRefreshedAt: Date.now() - CONCURRENT_REFRESH_GRACE_MS - 1 })
      .where(eq(refreshFamilies.userId, account.id));

    await runScheduled();
    const [family] = await db().select().from(refreshFamilies).where(eq(refreshFamilies.userId, account.id));
    expect(family).toMatchObject({ generation: 1, revokedAt: null });

    expect((await post('/api/token/refresh/', { refresh_token: first.refresh_token })).status).toBe(401);
    const [after] = await db().select().from(refreshFamilies).where(eq(refreshFamilies.userId, account.id));
    expect(after!.revokedReason).toBe('reuse_detected');
    expect((await post('/api/token/refresh/', { refresh_token: second.refresh_token })).status).toBe(401);
    const audited = await db().select().from(auditLog).where(eq(auditLog.userId, account.id));
    expect(audited.map((row) => row.event)).toContain('reuse_detected');

    // The revoked family is still there after another run (its tokens have not expired).
    await runScheduled();
    expect(await db().select().from(refreshFamilies).where(eq(refreshFamilies.userId, account.id))).toHaveLength(1);
  });

  it('deletes a backlog larger than one batch in several batches', async () => {
    await runScheduled();
    const old = marker();
    const keep = marker();
    const backlog = RETENTION_BATCH_SIZE * 2 + 345;
    await seedAudit(backlog, Date.now() - 400 * DAY, old);
    await seedAudit(5, Date.now() - DAY, keep);
    const log = await runScheduled();
    expect(log.audit_log).toEqual({ deleted: backlog, batches: 3, complete: true });
    expect(await auditCount(old)).toBe(0);
    expect(await auditCount(keep)).toBe(5);
  });

  it('stops at the batch budget and leaves the rest to the next run', async () => {
    // Other expired families would take part of the budget: only this test's are due.
    await clearDue();
    const account = await createAccount({});
    const ids = Array.from({ length: 25 }, (_, i) => `budget-${i}-${crypto.randomUUID()}`);
    await db()
      .insert(refreshFamilies)
      .values(ids.map((id) => ({ id, userId: account.id, expiresAt: Date.now() - DAY })));
    const remaining = async () => (await db().select().from(refreshFamilies).where(inArray(refreshFamilies.id, ids))).length;

    const config = authConfig(env);
    const first = await runRetention(db(), config, Date.now(), { batchSize: 10, maxBatches: 2 });
    expect(first.refresh_families).toEqual({ deleted: 20, batches: 2, complete: false });
    expect(await remaining()).toBe(5);
    const second = await runRetention(db(), config, Date.now(), { batchSize: 10, maxBatches: 2 });
    expect(second.refresh_families).toEqual({ deleted: 5, batches: 1, complete: true });
    expect(await remaining()).toBe(0);
    // The real budget stays inside D1's 50 queries per invocation on the Free plan.
    expect(RETENTION_MAX_BATCHES * 3).toBeLessThanOrEqual(50);
  });

  it('honours AUTH_AUDIT_RETENTION_DAYS: another number of days, 0 for forever, empty for the default', async () => {
    const at = (days: number) => Date.now() - days * DAY;
    const tag = marker();
    await seedAudit(1, at(45), `${tag}-45`);
    await seedAudit(1, at(400), `${tag}-400`);
    await seedAudit(1, at(20), `${tag}-20`);

    const forever = await runScheduled({ AUTH_AUDIT_RETENTION_DAYS: '0' });
    expect(forever.audit_retention_days).toBe(0);
    expect(forever.audit_log).toBeNull();
    expect(
      await db()
        .select()
        .from(auditLog)
        .where(like(auditLog.detail, `${tag}-%`)),
    ).toHaveLength(3);

    const fallback = await runScheduled({ AUTH_AUDIT_RETENTION_DAYS: '' });
    expect(fallback.audit_retention_days).toBe(365);
    expect(await auditCount(`${tag}-400`)).toBe(0);
    expect(await auditCount(`${tag}-45`)).toBe(1);

    const missing = await runScheduled({ AUTH_AUDIT_RETENTION_DAYS: undefined });
    expect(missing.audit_retention_days).toBe(365);

    await runScheduled({ AUTH_AUDIT_RETENTION_DAYS: '30' });
    expect(await auditCount(`${tag}-45`)).toBe(0);
    expect(await auditCount(`${tag}-20`)).toBe(1);
  });

  it('refuses a malformed AUTH_AUDIT_RETENTION_DAYS: the run fails, logs the variable and deletes nothing', async () => {
    const account = await createAccount({});
    const id = `malformed-${crypto.randomUUID()}`;
    await db()
      .insert(refreshFamilies)
      .values({ id, userId: account.id, expiresAt: Date.now() - DAY });
    for (const value of ['-1', 'a year', '1.5', '1e3']) {
      const errors: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
      const ctx = createExecutionContext();
      await expect(worker.scheduled(createScheduledController(), { ...env, AUTH_AUDIT_RETENTION_DAYS: value } as Env, ctx)).rejects.toThrow(
        /AUTH_AUDIT_RETENTION_DAYS: must be a whole number of 0 or more/,
      );
      vi.restoreAllMocks();
      expect(errors.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ level: 'error', job: 'retention', error: expect.stringMatching(/AUTH_AUDIT_RETENTION_DAYS/) }),
      ]);
    }
    expect(await db().select().from(refreshFamilies).where(eq(refreshFamilies.id, id))).toHaveLength(1);
  });

  it('validates AUTH_AUDIT_RETENTION_DAYS for requests like the other variables', async () => {
    const { createAuthApp } = await import('../../workers/auth/src/app');
    const res = await createAuthApp().request('/api/whoami/', {}, { ...env, AUTH_AUDIT_RETENTION_DAYS: 'never' });
    expect(res.status).toBe(500);
    expect((await res.json<{ error: string }>()).error).toMatch(/AUTH_AUDIT_RETENTION_DAYS: must be a whole number of 0 or more/);
  });
});
