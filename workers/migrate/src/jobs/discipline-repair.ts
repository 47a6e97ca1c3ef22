// What the DisciplineRepairJob object (durable-objects/discipline-repair-job.ts) calls: the repair's
// step, record, failures and progress (../discipline-repair-step.ts) and the types of its plan.

export * from '../discipline-repair-step.ts';
export type { DisciplineDifference, DisciplineRepairJobRpc, RepairChange, RepairPlan, RepairProgress } from '../discipline-repair.ts';
export type { EngineEnv } from '../engine/types.ts';
