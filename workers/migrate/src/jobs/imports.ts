// What the ImportJob object (durable-objects/import-job.ts) calls: the import's step, record,
// failures and progress (../imports/import-step.ts) and the types of its plan.

export * from '../imports/import-step.ts';
export type { ImportJobRpc, ImportPlan, ImportProblem, ImportProgress } from '../imports/jobs.ts';
export type { ProblemKind } from '../imports/records.ts';
