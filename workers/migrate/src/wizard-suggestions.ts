import { connectionOf, engineEnv } from './configurations.ts';
import type { MigrateServices } from './context.ts';
import * as engine from './engine/index.ts';
import { type KeyProposal, chooseKey, constraintKey, keyCandidates } from './engine/natural-keys.ts';
import {
  destinationCounts,
  destinationKeyStats,
  destinationUniques,
  sampleDestination,
  sampleSource,
  sourceRowCount,
} from './engine/samples.ts';
import { type PlanSuggestion, type TableSample, suggestPlan } from './engine/suggest.ts';
import { FilterError, type SchemaInfo, type TablePlan } from './engine/types.ts';
import type { WizardSession } from './wizard-sessions.ts';

// The wizard's advice: mapping suggestions, natural-key proposals and the duplicate guard, read
// from both databases for a session (engine/suggest.ts and engine/natural-keys.ts decide).

export type Samples = { source: Map<string, TableSample>; dest: Map<string, TableSample> };

/** Sampled rows of the session's source tables and of every destination table (two round trips). */
export async function readSamples(
  c: MigrateServices,
  configId: number,
  sourceTables: readonly string[],
  source: SchemaInfo,
  dest: SchemaInfo,
): Promise<Samples> {
  const env = engineEnv(c);
  const conn = await connectionOf(c, configId);
  const [s, d] = await Promise.all([
    sampleSource(
      env,
      conn,
      source.tables.filter((t) => sourceTables.includes(t.name)),
    ),
    sampleDestination(env, dest.tables),
  ]);
  return { source: s, dest: d };
}

/** Suggested plans (and their reasons) for source tables; `destTables` fixes a table's destination. */
export function suggestPlans(
  tables: readonly string[],
  source: SchemaInfo,
  dest: SchemaInfo,
  samples: Samples,
  destTables: Record<string, string> = {},
): Map<string, PlanSuggestion> {
  const out = new Map<string, PlanSuggestion>();
  for (const table of tables) {
    const suggestion = suggestPlan(
      table,
      source,
      dest,
      { source: samples.source.get(table), dest: samples.dest },
      destTables[table] || undefined,
    );
    if (suggestion) out.set(table, suggestion);
  }
  return out;
}

/** The natural key proposed for each plan with a destination table (by source table; null: none found). */
export async function proposeKeys(
  c: MigrateServices,
  plans: readonly TablePlan[],
  dest: SchemaInfo,
  samples: Samples,
): Promise<Map<string, KeyProposal | null>> {
  const env = engineEnv(c);
  const uniques = await destinationUniques(env);
  const out = new Map<string, KeyProposal | null>();
  await Promise.all(
    plans
      .filter((p) => p.destTable && p.columns.length)
      .map(async (plan) => {
        const fromConstraint = constraintKey(plan, uniques);
        if (fromConstraint) return out.set(plan.sourceTable, fromConstraint);
        const table = dest.tables.find((t) => t.name === plan.destTable);
        if (!table) return out.set(plan.sourceTable, null);
        const candidates = keyCandidates(plan, table);
        const stats = await destinationKeyStats(env, plan.destTable, candidates);
        return out.set(plan.sourceTable, chooseKey(plan, candidates, stats, samples.source.get(plan.sourceTable)));
      }),
  );
  return out;
}

/** Plans with the proposed natural key set where a plan has none (a key it has is kept). */
export function withProposedKeys(plans: readonly TablePlan[], keys: Map<string, KeyProposal | null>): TablePlan[] {
  return plans.map((p) => {
    if (p.naturalKey?.length) return p;
    const key = keys.get(p.sourceTable);
    return key ? { ...p, naturalKey: key.columns } : p;
  });
}

/** A table whose run could insert again rows the destination already holds. */
export type DuplicateRisk = {
  sourceTable: string;
  destTable: string;
  destRows: number;
  sourceRows: number;
  mapped: number;
  rowsAtRisk: number;
};

/**
 * Tables mapped without a natural key into a destination table that already has rows: every source
 * row (after the filter) not yet in the configuration's id mappings would be inserted as a new row.
 * `rowsAtRisk` is that estimate (source rows minus the mapped ids of the destination table).
 */
export async function duplicateRisks(
  c: MigrateServices,
  session: Pick<WizardSession, 'configId' | 'plans' | 'filters'>,
): Promise<DuplicateRisk[]> {
  const keyless = session.plans.filter((p) => p.destTable && !p.naturalKey?.length);
  if (keyless.length === 0) return [];
  const env = engineEnv(c);
  const counts = await destinationCounts(env, session.configId, [...new Set(keyless.map((p) => p.destTable))]);
  const withRows = keyless.filter((p) => (counts.get(p.destTable)?.rows ?? 0) > 0);
  if (withRows.length === 0) return [];
  const conn = await connectionOf(c, session.configId);
  const risks: DuplicateRisk[] = [];
  for (const plan of withRows) {
    const filter = session.filters[plan.sourceTable]?.trim();
    let sourceRows: number | null = null;
    if (filter) {
      try {
        sourceRows = (await engine.testFilter(env, conn, plan.sourceTable, filter)).count;
      } catch (error) {
        // A refused filter is reported by the filter step; the estimate then counts every row.
        if (!(error instanceof FilterError)) throw error;
      }
    }
    sourceRows ??= await sourceRowCount(env, conn, plan.sourceTable);
    const dest = counts.get(plan.destTable)!;
    const rowsAtRisk = Math.max(0, sourceRows - dest.mapped);
    if (rowsAtRisk > 0)
      risks.push({
        sourceTable: plan.sourceTable,
        destTable: plan.destTable,
        destRows: dest.rows,
        sourceRows,
        mapped: dest.mapped,
        rowsAtRisk,
      });
  }
  return risks;
}
