import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { auditLog, refreshFamilies, totpUsedSteps } from '#d1/auth/schema.ts';
import type { RetentionConfig } from './config.ts';
import type { AuthDb } from './context.ts';
import { stepAt } from './totp.ts';

/** Rows one DELETE removes at most. */
export const RETENTION_BATCH_SIZE = 1000;
/**
 * DELETE statements per table and run. Three tables × 15 = 45 statements, inside D1's 50 queries
 * per Worker invocation on the Free plan (1,000 on Paid); a larger backlog is finished by the
 * next runs, 15,000 rows per table each.
 */
export const RETENTION_MAX_BATCHES = 15;
/**
 * Used TOTP steps are kept this long. A step is only accepted while the clock is within
 * TOTP_WINDOW steps of it (90 s in all), so its record is needed for that long; the rest is
 * margin for clocks that differ between machines.
 */
export const TOTP_USED_STEP_RETENTION_MS = 10 * 60_000;

export interface RetentionOptions {
  batchSize?: number;
  maxBatches?: number;
}

export interface TableResult {
  deleted: number;
  batches: number;
  /** False when the run stopped at maxBatches with rows still due (the next run continues). */
  complete: boolean;
}

export interface RetentionResult {
  refresh_families: TableResult;
  totp_used_steps: TableResult;
  /** Null when AUTH_AUDIT_RETENTION_DAYS is 0 (audit rows are kept forever). */
  audit_log: TableResult | null;
}

/** Deletes the rows `due` selects, at most `batchSize` per statement, until none are left or the budget is spent. */
async function deleteInBatches(
  db: AuthDb,
  table: SQLiteTable,
  due: SQL,
  { batchSize, maxBatches }: Required<RetentionOptions>,
): Promise<TableResult> {
  const result: TableResult = { deleted: 0, batches: 0, complete: false };
  while (result.batches < maxBatches) {
    const run = await db.run(sql`delete from ${table} where rowid in (select rowid from ${table} where ${due} limit ${batchSize})`);
    result.batches++;
    result.deleted += run.meta.changes;
    if (run.meta.changes < batchSize) {
      result.complete = true;
      break;
    }
  }
  return result;
}

const before = (column: SQLiteColumn, cutoff: number) => sql`${column} < ${cutoff}`;

/**
 * Deletes what the service no longer needs:
 * - refresh families whose expiry has passed, revoked or not. Every rotation sets the family's
 *   expiry to that of the new token, and older tokens of the family expire earlier, so past it
 *   every token the family ever issued is refused on its own expiry claim; refresh and revoke
 *   also refuse a family past its expiry before looking at generations. Families not yet
 *   expired stay, revoked ones included: reuse detection compares a presented token's
 *   generation with its family's, so the family is kept as long as any of its tokens could be
 *   presented, and a revoked family keeps the record of why and when the session ended for as
 *   long as its tokens are in circulation;
 * - used TOTP steps older than TOTP_USED_STEP_RETENTION_MS (measured by the step, not by when
 *   it was used), long after the step left the ±TOTP_WINDOW acceptance window;
 * - audit rows older than AUTH_AUDIT_RETENTION_DAYS, unless that is 0.
 */
export async function runRetention(
  db: AuthDb,
  config: RetentionConfig,
  now: number,
  options: RetentionOptions = {},
): Promise<RetentionResult> {
  const limits = { batchSize: options.batchSize ?? RETENTION_BATCH_SIZE, maxBatches: options.maxBatches ?? RETENTION_MAX_BATCHES };
  const families = await deleteInBatches(db, refreshFamilies, sql`${refreshFamilies.expiresAt} <= ${now}`, limits);
  const oldestKeptStep = stepAt(now - TOTP_USED_STEP_RETENTION_MS);
  const steps = await deleteInBatches(db, totpUsedSteps, before(totpUsedSteps.step, oldestKeptStep), limits);
  const days = config.AUTH_AUDIT_RETENTION_DAYS;
  const audit = days === 0 ? null : await deleteInBatches(db, auditLog, before(auditLog.at, now - days * 86_400_000), limits);
  return { refresh_families: families, totp_used_steps: steps, audit_log: audit };
}
