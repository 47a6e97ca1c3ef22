import type { DisciplineRepairJob } from '#durable-objects/discipline-repair-job.ts';
import type { ImportJob } from '#durable-objects/import-job.ts';
import type { MigrationJob } from '#durable-objects/migration-job.ts';

// The one way this service reaches its job objects: one typed stub per object, named by its job's id.

/** The MigrationJob of a run (one per run id). */
export function migrationJobStub(
  env: { MIGRATION_JOB: DurableObjectNamespace<MigrationJob> },
  runId: string,
): DurableObjectStub<MigrationJob> {
  return env.MIGRATION_JOB.get(env.MIGRATION_JOB.idFromName(runId));
}

/** The DisciplineRepairJob of a repair (one per job id). */
export function disciplineRepairJobStub(
  env: { DISCIPLINE_REPAIR_JOB: DurableObjectNamespace<DisciplineRepairJob> },
  jobId: string,
): DurableObjectStub<DisciplineRepairJob> {
  return env.DISCIPLINE_REPAIR_JOB.get(env.DISCIPLINE_REPAIR_JOB.idFromName(jobId));
}

/** The ImportJob of a barrier-trial or sectional import (one per job id). */
export function importJobStub(env: { IMPORT_JOB: DurableObjectNamespace<ImportJob> }, jobId: string): DurableObjectStub<ImportJob> {
  return env.IMPORT_JOB.get(env.IMPORT_JOB.idFromName(jobId));
}
