import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Timestamps are Unix milliseconds. */
const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

/** A source database connection. The password is AES-GCM sealed; at most one row is active. */
export const configurations = sqliteTable(
  'configurations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    database: text('database').notNull(),
    username: text('username').notNull(),
    passwordSealed: text('password_sealed').notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('configurations_active').on(t.isActive)],
);

/**
 * A signed-in user's session. The cookie holds a signed JWT naming the session; the upstream
 * refresh token stays here, sealed, so the browser never holds it; sign-out deletes the row.
 */
export const loginSessions = sqliteTable(
  'login_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: integer('user_id').notNull(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: ['Admin', 'Operator', 'Viewer'] }).notNull(),
    refreshTokenSealed: text('refresh_token_sealed').notNull(),
    /** When the upstream access token runs out (ms); refreshed in its last 120 s. */
    accessExpiresAt: integer('access_expires_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [index('login_sessions_expires').on(t.expiresAt)],
);

export const SESSION_STATUSES = ['Created', 'Configuring', 'Running', 'Completed', 'Failed', 'Cancelled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** One pass of the wizard: its tables, schema, mappings, filters, order, and the run it started. */
export const migrationSessions = sqliteTable(
  'migration_sessions',
  {
    id: text('id').primaryKey(),
    configId: integer('config_id').notNull(),
    status: text('status', { enum: SESSION_STATUSES }).notNull().default('Created'),
    /** JSON string[] of source tables. */
    selectedTables: text('selected_tables').notNull().default('[]'),
    /** JSON: the uploaded or saved schema file (destination tables and columns). */
    schemaFile: text('schema_file'),
    /** JSON TableMapping[]: source → destination table and columns. */
    mappings: text('mappings').notNull().default('[]'),
    /** JSON Record<sourceTable, filter>. */
    filters: text('filters').notNull().default('{}'),
    /** JSON Record<destTable, string[]>: natural keys. */
    naturalKeys: text('natural_keys').notNull().default('{}'),
    /** JSON string[] of source tables in the chosen order. */
    tableOrder: text('table_order').notNull().default('[]'),
    patchMode: integer('patch_mode', { mode: 'boolean' }).notNull().default(false),
    runId: text('run_id'),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('migration_sessions_created').on(t.createdAt), index('migration_sessions_status').on(t.status)],
);

/** A foreign key the operator adds by hand (destination terms), beside the detected ones. */
export const customRelationships = sqliteTable(
  'custom_relationships',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => migrationSessions.id, { onDelete: 'cascade' }),
    parentTable: text('parent_table').notNull(),
    parentColumn: text('parent_column').notNull(),
    childTable: text('child_table').notNull(),
    childColumn: text('child_column').notNull(),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [index('custom_relationships_session').on(t.sessionId)],
);

export const PENDING_MAPPING_STATES = ['Pending', 'Confirmed', 'Rejected', 'Manual'] as const;

/** A source row matched (or to be matched) to a destination row by natural key, for review. */
export const pendingMappings = sqliteTable(
  'pending_mappings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => migrationSessions.id, { onDelete: 'cascade' }),
    tableName: text('table_name').notNull(),
    sourceId: text('source_id').notNull(),
    destId: text('dest_id').notNull(),
    /** What matched, e.g. `name=Winx`. */
    matchedOn: text('matched_on').notNull().default(''),
    state: text('state', { enum: PENDING_MAPPING_STATES }).notNull().default('Pending'),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [index('pending_mappings_session').on(t.sessionId, t.state)],
);

/** Fixed-window counters for actions that check a secret (test-connection): key = action and user. */
export const rateLimits = sqliteTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
});

export const SYNC_RUN_STATUSES = ['queued', 'running', 'cancelling', 'cancelled', 'completed', 'failed'] as const;

/**
 * A stored, scheduled copy of source tables of a configuration into the destination, run by the
 * MigrationJob Durable Object. `next_run_at` is null while the job is disabled.
 */
export const syncJobs = sqliteTable(
  'sync_jobs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    configId: integer('config_id')
      .notNull()
      .references(() => configurations.id, { onDelete: 'cascade' }),
    /** JSON string[] of source tables. */
    tables: text('tables').notNull().default('[]'),
    patchMode: integer('patch_mode', { mode: 'boolean' }).notNull().default(false),
    intervalMinutes: integer('interval_minutes').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
    nextRunAt: integer('next_run_at'),
    /** The MigrationJob run id of the current or last run. */
    lastRunId: text('last_run_id'),
    lastRunAt: integer('last_run_at'),
    /** The last known state of that run. */
    lastStatus: text('last_status', { enum: SYNC_RUN_STATUSES }),
    /** Why the last start or run failed; null after a run that started or completed. */
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('sync_jobs_due').on(t.enabled, t.nextRunAt), index('sync_jobs_config').on(t.configId)],
);

/** The mapping document uploaded for a configuration's sync jobs (Sync/UploadSchema), one per configuration. */
export const syncSchemaFiles = sqliteTable('sync_schema_files', {
  configId: integer('config_id')
    .primaryKey()
    .references(() => configurations.id, { onDelete: 'cascade' }),
  /** JSON MappingDocument. */
  document: text('document').notNull(),
  uploadedBy: text('uploaded_by').notNull(),
  uploadedAt: integer('uploaded_at').notNull().default(now),
});

export const DISCIPLINE_REPAIR_STATES = ['queued', 'running', 'cancelling', 'cancelled', 'completed', 'failed'] as const;

/**
 * The discipline repair jobs, newest first on the repair's page. Each job's progress, log and
 * changes live in its DisciplineRepairJob Durable Object; `state` and `changed` are copies kept
 * up to date when the page lists the job.
 */
export const disciplineRepairJobs = sqliteTable(
  'discipline_repair_jobs',
  {
    jobId: text('job_id').primaryKey(),
    configId: integer('config_id').notNull(),
    /** The e-mail of the user who started it. */
    startedBy: text('started_by').notNull(),
    state: text('state', { enum: DISCIPLINE_REPAIR_STATES }).notNull(),
    changed: integer('changed').notNull().default(0),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('discipline_repair_jobs_created').on(t.createdAt)],
);

/** The two spreadsheet imports (spec 002 A, "Barrier trials and Sectional"). */
export const IMPORT_AREAS = ['BarrierTrials', 'Sectional'] as const;
export const IMPORT_JOB_STATES = ['queued', 'running', 'cancelling', 'cancelled', 'completed', 'failed'] as const;

/**
 * Spreadsheets uploaded for preview: the R2 object (`temp_path`, expired by the bucket's lifecycle
 * rule) and what the preview found, so the live counts and the filter test need not parse it again.
 */
export const importUploads = sqliteTable(
  'import_uploads',
  {
    tempPath: text('temp_path').primaryKey(),
    area: text('area', { enum: IMPORT_AREAS }).notNull(),
    fileName: text('file_name').notNull(),
    bytes: integer('bytes').notNull(),
    rows: integer('rows').notNull(),
    validRows: integer('valid_rows').notNull(),
    /** JSON Record<string, number>: references of the valid rows resolved, per foreign key. */
    fkCounts: text('fk_counts').notNull().default('{}'),
    uploadedBy: text('uploaded_by').notNull(),
    uploadedAt: integer('uploaded_at').notNull().default(now),
  },
  (t) => [index('import_uploads_area').on(t.area, t.uploadedAt)],
);

/**
 * Import jobs, newest first on each area's page. Progress, log, problems and summary live in the
 * job's ImportJob Durable Object; `state` and the counts are copies kept up to date when listed.
 */
export const importJobs = sqliteTable(
  'import_jobs',
  {
    jobId: text('job_id').primaryKey(),
    area: text('area', { enum: IMPORT_AREAS }).notNull(),
    fileName: text('file_name').notNull(),
    /** 'upload' (Start after a preview), 'auto-sync' (the schedule) or 'run-now'. */
    trigger: text('trigger').notNull(),
    startedBy: text('started_by').notNull(),
    state: text('state', { enum: IMPORT_JOB_STATES }).notNull(),
    inserted: integer('inserted').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('import_jobs_area_created').on(t.area, t.createdAt)],
);

/**
 * Each area's auto-sync: re-imports its saved spreadsheet (R2 `sheet_path`) or the sheet at an
 * HTTPS address every `interval_minutes` while enabled; the Cron Trigger starts it when due.
 */
export const importAutoSyncs = sqliteTable('import_auto_syncs', {
  area: text('area', { enum: IMPORT_AREAS }).primaryKey(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
  intervalMinutes: integer('interval_minutes').notNull().default(60),
  /** An HTTPS address the sheet is fetched from at each run, or null to use the saved sheet. */
  sourceUrl: text('source_url'),
  /** The saved sheet (R2 key) and its file name. */
  sheetPath: text('sheet_path'),
  sheetName: text('sheet_name'),
  /** JSON of the foreign-key choices; the filter text ('' for none). */
  fkConfig: text('fk_config').notNull().default('{}'),
  filter: text('filter').notNull().default(''),
  nextRunAt: integer('next_run_at'),
  lastJobId: text('last_job_id'),
  lastRunAt: integer('last_run_at'),
  lastStatus: text('last_status', { enum: IMPORT_JOB_STATES }),
  lastError: text('last_error'),
  updatedBy: text('updated_by').notNull(),
  updatedAt: integer('updated_at').notNull().default(now),
});

/** What happened to an area's data outside its jobs (ClearData, auto-sync changes): who and when. */
export const importEvents = sqliteTable(
  'import_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    area: text('area', { enum: IMPORT_AREAS }).notNull(),
    action: text('action').notNull(),
    detail: text('detail').notNull(),
    user: text('user').notNull(),
    at: integer('at').notNull().default(now),
  },
  (t) => [index('import_events_area_at').on(t.area, t.at)],
);

export const SYNC_CHANGE_METHODS = ['auto', 'column', 'xmin', 'checksum', 'full'] as const;
export const SYNC_DELETE_POLICIES = ['ignore', 'delete', 'soft'] as const;

/**
 * How a sync job finds what changed in one of its source tables, and its high-water mark: the
 * change-detection method the operator chose (`auto`: the proposed one), the updated-at or
 * sequence column it reads, what a row deleted at the source does to the destination, and the mark
 * the last run that finished the table reached (advanced only once that run's copy committed).
 */
export const syncJobTables = sqliteTable(
  'sync_job_tables',
  {
    jobId: integer('job_id')
      .notNull()
      .references(() => syncJobs.id, { onDelete: 'cascade' }),
    sourceTable: text('source_table').notNull(),
    method: text('method', { enum: SYNC_CHANGE_METHODS }).notNull().default('auto'),
    column: text('column'),
    deletes: text('deletes', { enum: SYNC_DELETE_POLICIES }).notNull().default('ignore'),
    softDeleteColumn: text('soft_delete_column'),
    /** The method the mark belongs to (`column:<name>` or `xmin`); a mark of another method is not used. */
    markOf: text('mark_of'),
    mark: text('mark'),
    markRunId: text('mark_run_id'),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.sourceTable] })],
);
