// The wizard's pages, one file per step (common.tsx: the step bar and the page frame).
export { TableSelectionPage } from './tables.tsx';
export { SchemaImportPage, ValidateSchemaPage } from './schema.tsx';
export { ReviewMappingsPage } from './mappings.tsx';
export { FilterConfigPage } from './filters.tsx';
export { RelationshipConfigPage } from './relationships.tsx';
export { RunConfigPage, SummaryPage, type RunTable } from './run.tsx';
export { ProgressPage, ResultsPage } from './progress.tsx';
export { FieldMappingPage, FkPatchPage, PendingMappingsPage } from './field-mapping.tsx';
