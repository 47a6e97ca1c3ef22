import { backfillChunk } from './copy.ts';
import { type CursorRow, chunkSizeOf, openCursors } from './cursors.ts';
import { type PreparedTable, prepareTables, PlanError } from './prepare.ts';
import { type Sql, ident, openDestination, openSource, rows as readRows, sourceReads, targetReads, withSql } from './db.ts';
import { z } from 'zod';
import { failureText, sqlStateOf } from '#shared/pg-errors.ts';
import { findColumn, findTable, introspectReads, introspectSql } from './introspect.ts';
import { allMappings, deleteMappings, mappedDestTables, mappedId } from './mappings.ts';
import { readCount, singleTablePlan } from './key-matches.ts';
import type {
  ColumnInfo,
  Connection,
  DbTarget,
  EngineEnv,
  FkPatchRequest,
  FkPatchResult,
  ForeignKey,
  RunPlan,
  SchemaInfo,
  TablePlan,
} from './types.ts';

// The wizard's one-shot operations: each opens what it needs and ends it before returning. Its
// look-ups (connection test, schema) are one round trip each over the HTTP read path.

export async function testConnection(env: EngineEnv, conn: Connection): Promise<{ success: boolean; message: string }> {
  try {
    const rows = await readRows(sourceReads(env, conn), z.object({ version: z.string() }), 'SELECT version() AS version');
    const version = /PostgreSQL [\d.]+/.exec(rows[0]?.version ?? '')?.[0] ?? 'PostgreSQL';
    return { success: true, message: `Connected to ${conn.database} on ${conn.host}:${conn.port} (${version})` };
  } catch (error) {
    if (sqlStateOf(error))
      console.error(
        JSON.stringify({
          level: 'warn',
          service: 'migrate',
          event: 'connection_test_failed',
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    const who = sqlStateOf(error)?.startsWith('28') ? ` for user "${conn.username}"` : '';
    return { success: false, message: `Connection failed${who}: ${failureText(error)}` };
  }
}

export function introspect(env: EngineEnv, target: DbTarget): Promise<SchemaInfo> {
  return introspectReads(targetReads(env, target), { hideEngineTables: target === 'destination' });
}

export async function listTables(env: EngineEnv, target: DbTarget): Promise<{ name: string; estimatedRows: number }[]> {
  const schema = await introspect(env, target);
  return schema.tables.map((t) => ({ name: t.name, estimatedRows: t.estimatedRows }));
}

export async function tableColumns(env: EngineEnv, target: DbTarget, table: string): Promise<ColumnInfo[] | null> {
  return findTable(await introspect(env, target), table)?.columns ?? null;
}

/** Runs backfill chunks of one foreign key to the end under a cursor of its own. */
async function backfillAll(source: Sql, dest: Sql, plan: RunPlan, table: PreparedTable, fk: ForeignKey): Promise<number> {
  const runId = `${plan.runId || 'backfill'}/${fk.childTable}.${fk.childColumn}/${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const own: RunPlan = { ...plan, runId, tables: [table.plan], deferred: [fk] };
  const cursors: CursorRow[] = await openCursors(dest, own);
  let cursor = cursors.find((c) => c.phase === `backfill:${fk.childColumn}`)?.cursor ?? null;
  let updated = 0;
  for (;;) {
    const result = await backfillChunk(source, dest, own, table, fk, cursor, chunkSizeOf(plan));
    if (result.status === 'stale') throw new Error('The backfill was advanced by another request');
    cursor = result.cursor.cursor;
    updated = result.cursor.updated;
    if (result.finished) break;
  }
  await dest.query('DELETE FROM migration_run_cursors WHERE run_id = $1', [runId]);
  return updated;
}

/** Results → BackfillForeignKeys: the run's deferred (cycle-broken) foreign keys, set again from the source. */
export async function backfillForeignKeys(env: EngineEnv, plan: RunPlan): Promise<{ table: string; column: string; updated: number }[]> {
  if (plan.deferred.length === 0) return [];
  const source = openSource(env, plan.source);
  const dest = openDestination(env);
  try {
    const tables = await prepareTables(source, dest, plan, { validate: false });
    const results: { table: string; column: string; updated: number }[] = [];
    for (const fk of plan.deferred) {
      const table = tables.find((t) => t.plan.destTable === fk.childTable);
      if (!table || !table.plan.columns.some((c) => c.dest === fk.childColumn)) continue;
      results.push({
        table: fk.childTable,
        column: fk.childColumn,
        updated: await backfillAll(source, dest, { ...plan, patchMode: true }, table, fk),
      });
    }
    return results;
  } finally {
    await Promise.all([source.end(), dest.end()]);
  }
}

/** Results → BackfillBooleanColumns: empty boolean columns of the copied rows set to their default, or false. */
export async function backfillBooleanColumns(env: EngineEnv, plan: RunPlan): Promise<{ table: string; column: string; updated: number }[]> {
  return withSql(
    () => openDestination(env),
    async (dest) => {
      const schema = await introspectSql(dest, { hideEngineTables: true });
      const results: { table: string; column: string; updated: number }[] = [];
      for (const table of plan.tables) {
        const info = findTable(schema, table.destTable);
        const key = findColumn(info, table.destKey);
        if (!info || !key) continue;
        for (const column of info.columns) {
          if (column.DataType !== 'boolean' || (!column.nullable && !column.hasDefault)) continue;
          if (!table.columns.some((c) => c.dest === column.ColumnName)) continue;
          const value = column.hasDefault ? 'DEFAULT' : 'false';
          const updated = await readCount(
            dest,
            `WITH upd AS (
               UPDATE ${ident(table.destTable)} t SET ${ident(column.ColumnName)} = ${value}
               FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2')} m
               WHERE t.${ident(table.destKey)} = m.dest_id::${key.DataType}
                 AND t.${ident(column.ColumnName)} IS NULL
               RETURNING 1)
             SELECT count(*)::int AS n FROM upd`,
            [plan.configId, table.destTable],
          );
          results.push({ table: table.destTable, column: column.ColumnName, updated });
        }
      }
      return results;
    },
  );
}

/**
 * FkPatch: sets one foreign key column of already copied rows from the source, in source names.
 * The destination tables come from the configuration's id mappings, the column from the
 * destination's foreign key between them.
 */
export async function patchForeignKey(env: EngineEnv, conn: Connection, request: FkPatchRequest): Promise<FkPatchResult> {
  const source = openSource(env, conn);
  const dest = openDestination(env);
  try {
    const destTableOf = async (sourceTable: string) => {
      const rows = await readRows(
        dest,
        z.object({ dest_table: z.string() }),
        mappedDestTables('$t.config_id = $1 AND $t.source_table = $2'),
        [request.configId, sourceTable],
      );
      if (rows.length !== 1) {
        throw new PlanError(
          rows.length === 0
            ? `No rows of ${sourceTable} have been copied for this configuration`
            : `${sourceTable} was copied into several tables`,
        );
      }
      return rows[0]!.dest_table;
    };
    const childDest = await destTableOf(request.childSourceTable);
    const parentDest = await destTableOf(request.parentSourceTable);
    const [sourceSchema, destSchema] = [await introspectSql(source), await introspectSql(dest, { hideEngineTables: true })];
    const childSource = findTable(sourceSchema, request.childSourceTable);
    if (!childSource) throw new PlanError(`Source table ${request.childSourceTable} does not exist`);
    if (!findColumn(childSource, request.fkSourceColumn))
      throw new PlanError(`Source column ${request.fkSourceColumn} does not exist in ${request.childSourceTable}`);
    const fks = destSchema.foreignKeys.filter((fk) => fk.childTable === childDest && fk.parentTable === parentDest);
    if (fks.length !== 1) throw new PlanError(`${childDest} has ${fks.length === 0 ? 'no' : 'several'} foreign keys to ${parentDest}`);
    const fk = fks[0]!;
    const childInfo = findTable(destSchema, childDest)!;
    const destKey = childInfo.primaryKey.length === 1 ? childInfo.primaryKey[0]! : 'id';
    const plan: TablePlan = {
      sourceTable: request.childSourceTable,
      destTable: childDest,
      columns: [{ source: request.fkSourceColumn, dest: fk.childColumn }],
      sourceKey: childSource.primaryKey,
      destKey,
      foreignKeys: [fk],
    };
    const table: PreparedTable = {
      plan,
      sourceKeyTypes: childSource.primaryKey.map((k) => findColumn(childSource, k)!.DataType),
      sourceTypes: { [request.fkSourceColumn]: findColumn(childSource, request.fkSourceColumn)!.DataType },
      destTypes: { [destKey]: findColumn(childInfo, destKey)!.DataType, [fk.childColumn]: findColumn(childInfo, fk.childColumn)!.DataType },
      sequence: null,
      translated: {},
      deferred: [fk.childColumn],
    };
    const run: RunPlan = { ...singleTablePlan(request.configId, conn, plan), runId: 'fkpatch', patchMode: true, deferred: [fk] };
    const updated = await backfillAll(source, dest, run, table, fk);
    const unresolved = await readCount(
      dest,
      `SELECT count(*)::int AS n FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2')} m
       JOIN ${ident(childDest)} t ON t.${ident(destKey)} = m.dest_id::${table.destTypes[destKey]}
       WHERE t.${ident(fk.childColumn)} IS NULL`,
      [request.configId, childDest],
    );
    return {
      childDestTable: childDest,
      destColumn: fk.childColumn,
      parentDestTable: parentDest,
      updated,
      unresolved,
    };
  } finally {
    await Promise.all([source.end(), dest.end()]);
  }
}

/** Deletes the configuration's id mappings: all, or those of the named tables (destination or source names). */
export async function clearHistory(env: EngineEnv, configId: number, tables?: string[]): Promise<{ deleted: number }> {
  return withSql(
    () => openDestination(env),
    async (sql) => ({
      deleted: await readCount(
        sql,
        deleteMappings(
          '$t.config_id = $1 AND ($2::text[] IS NULL OR $t.dest_table = ANY($2::text[]) OR $t.source_table = ANY($2::text[]))',
        ),
        [configId, tables && tables.length > 0 ? tables : null],
      ),
    }),
  );
}

/** Publishes the configuration's id mappings to `config_id_mappings` (replacing what it held for the configuration). */
export async function syncIdMappingsToDestination(env: EngineEnv, configId: number): Promise<{ synced: number }> {
  return withSql(
    () => openDestination(env),
    (sql) =>
      sql.transaction(async (tx) => {
        await tx.query(
          `DELETE FROM config_id_mappings c WHERE c.config_id = $1 AND ${mappedId('c.config_id', 'c.table_name', 'c.source_id')} IS NULL`,
          [configId],
        );
        const synced = await readCount(
          tx,
          `WITH synced AS (
             INSERT INTO config_id_mappings (config_id, table_name, source_id, dest_id)
             SELECT config_id, dest_table, source_id, dest_id FROM ${allMappings('$t.config_id = $1')} m
             ON CONFLICT (config_id, table_name, source_id) DO UPDATE SET dest_id = excluded.dest_id, synced_at = now()
             RETURNING 1)
           SELECT count(*)::int AS n FROM synced`,
          [configId],
        );
        return { synced };
      }),
  );
}
