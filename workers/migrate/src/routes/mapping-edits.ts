import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import * as engine from '../engine/index.ts';
import type { SchemaInfo, TablePlan } from '../engine/types.ts';
import { identifier, parsed } from '../input.ts';
import { proposeKeys, readSamples, suggestPlans, withProposedKeys } from '../wizard-suggestions.ts';
import type { WizardSession } from '../wizard-sessions.ts';

/** The source (the session's configuration) and destination schemas. */
export async function schemas(c: MigrateContext, session: WizardSession): Promise<{ source: SchemaInfo; dest: SchemaInfo }> {
  const env = engineEnv(c);
  const conn = await connectionOf(c, session.configId);
  const [source, dest] = await Promise.all([engine.introspect(env, conn), engine.introspect(env, 'destination')]);
  return { source, dest };
}

export const MappingEdit = z.object({
  SourceTable: identifier,
  DestTable: z.union([identifier, z.literal('')]).default(''),
  Columns: z
    .array(z.object({ Source: identifier, Dest: z.union([identifier, z.literal('')]).default('') }))
    .max(500)
    .default([]),
});

/** Applies posted table and column choices to the session's plans (transforms kept), checked against both schemas. */
export function applyMappingEdits(
  plans: TablePlan[],
  edits: z.output<typeof MappingEdit>[],
  source: SchemaInfo,
  dest: SchemaInfo,
): TablePlan[] {
  const next = plans.map((p) => ({ ...p }));
  for (const edit of edits) {
    const plan = next.find((p) => p.sourceTable === edit.SourceTable);
    if (!plan) throw new HttpError(400, 'invalid_request', `The table ${edit.SourceTable} is not part of this session.`);
    const destInfo = edit.DestTable ? dest.tables.find((t) => t.name === edit.DestTable) : undefined;
    if (edit.DestTable && !destInfo) throw new HttpError(400, 'invalid_request', `The destination has no table ${edit.DestTable}.`);
    const sourceInfo = source.tables.find((t) => t.name === plan.sourceTable);
    const changedTable = plan.destTable !== edit.DestTable;
    plan.destTable = edit.DestTable;
    if (changedTable) plan.naturalKey = undefined;
    if (edit.Columns.length || changedTable) {
      plan.columns = edit.Columns.filter((col) => col.Dest).map((col) => {
        if (sourceInfo && !sourceInfo.columns.some((s) => s.ColumnName === col.Source))
          throw new HttpError(400, 'invalid_request', `The source table ${plan.sourceTable} has no column ${col.Source}.`);
        if (!destInfo?.columns.some((d) => d.ColumnName === col.Dest))
          throw new HttpError(400, 'invalid_request', `The destination table ${edit.DestTable || '(none)'} has no column ${col.Dest}.`);
        const before = plans
          .find((p) => p.sourceTable === plan.sourceTable)
          ?.columns.find((m) => m.source === col.Source && m.dest === col.Dest);
        return { source: col.Source, dest: col.Dest, ...(before?.transform && !changedTable ? { transform: before.transform } : {}) };
      });
    }
  }
  return next;
}

/** Posted mapping edits (`Mappings[i]…` or `mappings[i]…`) applied to the session's plans. */
export async function applyMappingEditsFrom(
  c: MigrateContext,
  session: WizardSession,
  list: unknown[],
  target: string,
): Promise<TablePlan[]> {
  const edits = parsed(z.array(MappingEdit).max(200), list, target);
  const { source, dest } = await schemas(c, session);
  return applyMappingEdits(session.plans, edits, source, dest);
}

/**
 * Plans after mapping edits, completed from the suggestions: the tables in `changed` (a new
 * destination chosen on the page) get the suggested columns and a proposed natural key; any other
 * column mapped as suggested takes the suggestion's transform when it has none.
 */
export async function withSuggestedColumns(
  c: MigrateContext,
  session: WizardSession,
  plans: TablePlan[],
  changed: string[],
): Promise<TablePlan[]> {
  const { source, dest } = await schemas(c, session);
  const samples = await readSamples(
    c,
    session.configId,
    plans.map((p) => p.sourceTable),
    source,
    dest,
  );
  const suggested = suggestPlans(
    plans.map((p) => p.sourceTable),
    source,
    dest,
    samples,
    Object.fromEntries(plans.filter((p) => p.destTable).map((p) => [p.sourceTable, p.destTable])),
  );
  const next = plans.map((plan) => {
    const s = suggested.get(plan.sourceTable);
    if (!plan.destTable || !s) return plan;
    if (changed.includes(plan.sourceTable)) return { ...s.plan, naturalKey: undefined };
    return {
      ...plan,
      columns: plan.columns.map((m) => {
        const hint = s.columns.find((x) => x.source === m.source && x.dest === m.dest);
        return !m.transform && hint?.transform ? { ...m, transform: hint.transform } : m;
      }),
    };
  });
  const fresh = next.filter((p) => changed.includes(p.sourceTable) && p.destTable);
  if (fresh.length === 0) return next;
  const keys = await proposeKeys(c, fresh, dest, samples);
  return withProposedKeys(next, keys);
}
