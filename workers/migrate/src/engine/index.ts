// The migration engine: what the app's routes and the MigrationJob Durable Object call.
export { DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE, PlanError } from './copy.ts';
export { assertHostAllowed, isHostAllowed } from './db.ts';
export { compileCondition } from './condition.ts';
export { FILTER_MAX_LENGTH, testFilter } from './filter.ts';
export {
  backfillBooleanColumns,
  backfillForeignKeys,
  clearHistory,
  findNaturalKeyMatches,
  foreignKeys,
  introspect,
  listTables,
  patchForeignKey,
  saveIdMappings,
  syncIdMappingsToDestination,
  tableColumns,
  testConnection,
} from './operations.ts';
export { orderTables } from './order.ts';
export { normaliseName, parseMappingDocument, parseMappingDocumentText, suggestTablePlan, validatePlan } from './plan.ts';
export * from './types.ts';
