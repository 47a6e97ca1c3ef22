import { connectionOf, engineEnv } from './configurations.ts';
import type { MigrateServices } from './context.ts';
import * as engine from './engine/index.ts';
import { prepareTables } from './engine/prepare.ts';
import { validateTable } from './engine/validation.ts';
import { openDestination, openSource } from './engine/db.ts';
import { firstMismatchedKeys } from './engine/mismatches.ts';
import { sourceRowCount } from './engine/samples.ts';
import { FilterError, type RunPlan, type TableValidation } from './engine/types.ts';
import type { RunTable } from './views/wizard/index.ts';
import type { WizardSession } from './wizard-sessions.ts';

/** The session's mapped tables with their source rows after the row filter (null when they could not be counted). */
export async function runTables(c: MigrateServices, session: WizardSession): Promise<RunTable[]> {
  const env = engineEnv(c);
  const conn = await connectionOf(c, session.configId);
  return Promise.all(
    session.plans
      .filter((p) => p.destTable)
      .map(async (plan) => {
        const filter = session.filters[plan.sourceTable]?.trim();
        try {
          return {
            plan,
            rows: filter
              ? (await engine.testFilter(env, conn, plan.sourceTable, filter)).count
              : await sourceRowCount(env, conn, plan.sourceTable),
          };
        } catch (error) {
          if (error instanceof FilterError) return { plan, rows: null };
          throw error;
        }
      }),
  );
}

/** Validates a run's tables again, and lists the first mismatched source keys of each that differs. */
export async function revalidate(
  c: MigrateServices,
  plan: RunPlan,
): Promise<{ validation: TableValidation[]; mismatches: Record<string, string[]> }> {
  const env = engineEnv(c);
  const source = openSource(env, plan.source);
  const dest = openDestination(env);
  try {
    const tables = await prepareTables(source, dest, plan, { validate: false });
    const validation: TableValidation[] = [];
    const mismatches: Record<string, string[]> = {};
    for (const table of tables) {
      const v = await validateTable(source, dest, plan.configId, table);
      validation.push(v);
      if (!v.ok) mismatches[v.table] = await firstMismatchedKeys(source, dest, plan.configId, table);
    }
    return { validation, mismatches };
  } finally {
    await Promise.all([source.end(), dest.end()]);
  }
}
