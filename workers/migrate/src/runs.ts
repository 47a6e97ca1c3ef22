import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv } from './configurations.ts';
import type { MigrateContext, MigrateServices } from './context.ts';
import * as engine from './engine/index.ts';
import type { ForeignKey, MappingDocument, RunPlan, SchemaInfo, TablePlan } from './engine/types.ts';
import { migrationJobStub } from './jobs/stubs.ts';
import {
  asForeignKey,
  claimSessionRun,
  customForeignKeys,
  recordRunState,
  releaseSessionRun,
  wizardSession,
  type WizardSession,
} from './wizard-sessions.ts';

/** The MigrationJob Durable Object of a run (one per run). */
export function migrationJob(c: Pick<MigrateServices, 'env'>, runId: string) {
  return migrationJobStub(c.env, runId);
}

/** What a run is made of, whether a wizard session or a sync job asks for it. */
export type RunSpec = {
  /** The wizard session, or the sync job (`sync-job:<id>`), the run belongs to. */
  sessionId: string;
  configId: number;
  plans: TablePlan[];
  filters: Record<string, string>;
  tableOrder: string[];
  patchMode: boolean;
  /** Foreign keys an operator added (destination terms). */
  custom: ForeignKey[];
  /** Rows the run may set aside before it fails (default: engine/rejects.ts). */
  rejectLimit?: number;
  /** Tables copied at the same time (default: engine/run.ts). */
  parallelTables?: number;
};

/** First plans for the selected tables: from the schema file where it names them, else suggested (by name unless `suggest` says otherwise). */
export function buildPlans(
  selected: string[],
  doc: MappingDocument | null,
  source: SchemaInfo,
  dest: SchemaInfo,
  suggest: (table: string) => TablePlan | null = (table) => engine.suggestTablePlan(table, source, dest),
): TablePlan[] {
  return selected.map((table) => {
    const fromDoc = doc?.tables.find((t) => t.sourceTable === table);
    if (fromDoc) {
      return {
        sourceTable: fromDoc.sourceTable,
        destTable: fromDoc.destTable,
        columns: fromDoc.columns,
        sourceKey: fromDoc.sourceKey,
        destKey: fromDoc.destKey,
        naturalKey: fromDoc.naturalKey,
        foreignKeys: [],
      };
    }
    const suggested = suggest(table);
    if (suggested) return suggested;
    const info = source.tables.find((t) => t.name === table);
    return { sourceTable: table, destTable: '', columns: [], sourceKey: info?.primaryKey ?? [], destKey: 'id', foreignKeys: [] };
  });
}

/** Destination FKs among the plans' tables, plus the custom ones. */
export function specForeignKeys(plans: TablePlan[], dest: SchemaInfo, custom: ForeignKey[]): ForeignKey[] {
  const tables = new Set(plans.map((p) => p.destTable).filter(Boolean));
  const detected = dest.foreignKeys.filter((fk) => tables.has(fk.childTable) && tables.has(fk.parentTable));
  return [...detected, ...custom];
}

/** Destination FKs among the plans' tables, plus the session's custom ones. */
export async function planForeignKeys(c: MigrateContext, session: WizardSession, dest: SchemaInfo): Promise<ForeignKey[]> {
  return specForeignKeys(session.plans, dest, (await customForeignKeys(c.var.db, session.id)).map(asForeignKey));
}

/** The run's table order: the operator's order where the foreign keys allow it, parents first. */
export function runOrder(session: Pick<RunSpec, 'plans' | 'tableOrder'>, fks: ForeignKey[]) {
  const destTables = session.plans.map((p) => p.destTable).filter(Boolean);
  const preferred = [
    ...session.tableOrder.filter((t) => destTables.includes(t)),
    ...destTables.filter((t) => !session.tableOrder.includes(t)),
  ];
  return engine.orderTables(preferred, fks);
}

/** The run plan of a session as it stands: plans in FK order, their FKs and filters. */
export async function runPlanOf(c: MigrateContext, session: WizardSession, runId: string): Promise<{ plan: RunPlan; dest: SchemaInfo }> {
  const custom = (await customForeignKeys(c.var.db, session.id)).map(asForeignKey);
  return runPlanFor(c, { ...session, sessionId: session.id, custom }, runId);
}

/** The run plan of a spec: plans in FK order, their FKs and filters (`dest`: the destination, when already read). */
export async function runPlanFor(
  c: MigrateServices,
  session: RunSpec,
  runId: string,
  known?: SchemaInfo,
): Promise<{ plan: RunPlan; dest: SchemaInfo }> {
  const source = await connectionOf(c, session.configId);
  const dest = known ?? (await engine.introspect(engineEnv(c), 'destination'));
  const fks = specForeignKeys(session.plans, dest, session.custom);
  const { order, deferred } = runOrder(session, fks);
  const byDest = new Map(session.plans.filter((p) => p.destTable).map((p) => [p.destTable, p]));
  const tables: TablePlan[] = order.flatMap((destTable) => {
    const plan = byDest.get(destTable);
    if (!plan) return [];
    const filter = session.filters[plan.sourceTable]?.trim();
    return [{ ...plan, foreignKeys: fks.filter((fk) => fk.childTable === destTable), ...(filter ? { filter } : {}) }];
  });
  return {
    plan: {
      runId,
      sessionId: session.sessionId,
      configId: session.configId,
      source,
      tables,
      deferred,
      patchMode: session.patchMode,
      ...(session.rejectLimit !== undefined ? { rejectLimit: session.rejectLimit } : {}),
      ...(session.parallelTables !== undefined ? { parallelTables: session.parallelTables } : {}),
    },
    dest,
  };
}

/**
 * Starts a run of the session in a new MigrationJob: the session is claimed first (compare-and-set
 * in D1), so a second start at the same time gets 409 naming the run in progress; a Running status
 * whose job has already ended is settled from the job and the claim tried again. 400 when the plan
 * has errors or no table (the claim given back).
 */
export async function startRun(c: MigrateContext, session: WizardSession): Promise<string> {
  const runId = crypto.randomUUID();
  if (!(await claimSessionRun(c.var.db, session.id, runId, Date.now()))) {
    const holder = await wizardSession(c, session.id);
    const progress = holder.runId ? await migrationJob(c, holder.runId).progress() : null;
    if (progress) await recordRunState(c.var.db, holder, progress);
    if (!(await claimSessionRun(c.var.db, session.id, runId, Date.now()))) {
      throw new HttpError(409, 'already_running', `This session already has a run in progress (run ${holder.runId}); cancel it first.`, {
        runId: holder.runId,
      });
    }
  }
  try {
    const { plan, dest } = await runPlanOf(c, session, runId);
    await launchRun(c, plan, dest);
  } catch (error) {
    await releaseSessionRun(c.var.db, session, runId);
    throw error;
  }
  return runId;
}

/** Checks a run plan against both schemas and starts it in its MigrationJob; 400 when it has errors or no table. */
export async function launchRun(c: MigrateServices, plan: RunPlan, dest: SchemaInfo, source?: SchemaInfo): Promise<void> {
  if (plan.tables.length === 0) throw new HttpError(400, 'nothing_to_copy', 'No selected table is mapped to a destination table.');
  const sourceSchema = source ?? (await engine.introspect(engineEnv(c), plan.source));
  const errors = engine.validatePlan(plan.tables, sourceSchema, dest).filter((issue) => issue.level === 'error');
  if (errors.length) {
    throw new HttpError(
      400,
      'invalid_plan',
      `The mappings have ${errors.length} problem(s): ${errors.map((e) => `${e.table}${e.column ? `.${e.column}` : ''}: ${e.message}`).join('; ')}`,
      { issues: errors },
    );
  }
  await migrationJob(c, plan.runId).start(plan);
}
