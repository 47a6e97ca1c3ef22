// The migration engine: what the app's routes and the MigrationJob Durable Object call.
export { PlanError } from './prepare.ts';
export { testFilter } from './filter.ts';
export {
  backfillBooleanColumns,
  backfillForeignKeys,
  clearHistory,
  introspect,
  listTables,
  patchForeignKey,
  syncIdMappingsToDestination,
  tableColumns,
  testConnection,
} from './operations.ts';
export { findNaturalKeyMatches, saveIdMappings } from './key-matches.ts';
export { orderTables } from './order.ts';
export { parseMappingDocument, parseMappingDocumentText, suggestTablePlan, validatePlan } from './plan.ts';
export * from './types.ts';
