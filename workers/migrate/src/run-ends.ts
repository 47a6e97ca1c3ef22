import { and, eq } from 'drizzle-orm';
import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type * as schema from '#d1/migrate/schema.ts';
import { migrationSessions, syncJobs, type SessionStatus } from '#d1/migrate/schema.ts';
import type { RunState } from './engine/types.ts';

/** The app's database as the MigrationJob also opens it (this module stays clear of the app's context). */
type MigrateDb = DrizzleD1Database<typeof schema>;

export const FINAL_STATUS: Partial<Record<RunState, SessionStatus>> = { completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

const SYNC_PREFIX = 'sync-job:';

/**
 * Records the end of run `runId` on what it belongs to (a wizard session, or `sync-job:<id>`);
 * only while that run is still the owner's current one, so a later run is never overwritten.
 */
export async function recordRunEnd(
  db: MigrateDb,
  owner: string,
  runId: string,
  state: RunState,
  finishedAt: number,
  error: string | null,
): Promise<void> {
  if (owner.startsWith(SYNC_PREFIX)) {
    const id = Number(owner.slice(SYNC_PREFIX.length));
    if (!Number.isSafeInteger(id)) return;
    await db
      .update(syncJobs)
      .set({ lastStatus: state, lastError: state === 'failed' ? (error ?? 'The run failed.').slice(0, 2000) : null })
      .where(and(eq(syncJobs.id, id), eq(syncJobs.lastRunId, runId)))
      .run();
    return;
  }
  const status = FINAL_STATUS[state];
  if (!status) return;
  await db
    .update(migrationSessions)
    .set({ status, finishedAt, updatedAt: Date.now() })
    .where(and(eq(migrationSessions.id, owner), eq(migrationSessions.runId, runId), eq(migrationSessions.status, 'Running')))
    .run();
}
