// The migration engine: what the app's routes and the MigrationJob Durable Object call.
export { DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE, PlanError } from './copy';
export { assertHostAllowed, isHostAllowed } from './db';
export { FILTER_MAX_LENGTH, checkFilter, testFilter } from './filter';
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
} from './operations';
export { orderTables } from './order';
export { normaliseName, parseMappingDocument, suggestTablePlan, validatePlan } from './plan';
export * from './types';
