// The migration engine's interface: what the wizard pages, the JSON routes and the MigrationJob
// Durable Object exchange. Plain types plus the signatures of the engine's functions; the
// functions themselves live beside this file and are re-exported by `./index.ts`.
//
// Names: "source" is the configured old system (a Connection), "destination" is the racing
// database (DATABASE_URL). Table and column names are SQL names as they appear in each database.

/** A configuration's database, with its password already decrypted. */
export type Connection = { host: string; port: number; database: string; username: string; password: string };

/**
 * What the engine reads from the Worker's env (the migrate Worker's config, validated by the app).
 * `MIGRATE_ALLOWED_HOSTS`: comma-separated `host` or `host:port`; a source outside it is refused
 * before any connection is attempted (the engine checks too).
 */
export type EngineEnv = {
  DATABASE_URL: string;
  PG_WS_PROXY?: string;
  MIGRATE_ALLOWED_HOSTS?: string;
  /**
   * `off` keeps every chunk on the one-statement path: for a destination that cannot take
   * `COPY … FROM STDIN` (the embedded development database). Anything else allows the direct path.
   */
  MIGRATE_DIRECT_COPY?: string;
};

/** Whether runs may copy fresh rows by COPY (see EngineEnv.MIGRATE_DIRECT_COPY). */
export const directCopyAllowed = (env: EngineEnv): boolean => env.MIGRATE_DIRECT_COPY?.trim().toLowerCase() !== 'off';

/** Which database an introspection reads: a configuration's source, or the destination. */
export type DbTarget = Connection | 'destination';

/** `GET /Migration/GetDestinationTableColumns`' items; also used for source tables. */
export type ColumnInfo = {
  ColumnName: string;
  /** format_type() of the column, e.g. `integer`, `numeric(4,1)`, `text`, `date`. */
  DataType: string;
  IsPrimaryKey: boolean;
  nullable: boolean;
  /** True when the column has a default or is an identity column (may be left out of an insert). */
  hasDefault: boolean;
};

export type TableInfo = { name: string; columns: ColumnInfo[]; primaryKey: string[]; estimatedRows: number };

/**
 * A foreign key, always child → parent. `custom` marks one an operator added (AddCustomRelationship);
 * `nullable` (from introspection) says whether the child column may be copied empty to break a cycle.
 */
export type ForeignKey = {
  childTable: string;
  childColumn: string;
  parentTable: string;
  parentColumn: string;
  custom?: boolean;
  nullable?: boolean;
};

export type SchemaInfo = { tables: TableInfo[]; foreignKeys: ForeignKey[] };

/**
 * How a source value becomes a destination value. Applied in SQL on the destination (and on the
 * source for validation checksums), then cast to the destination column's type.
 * - `date` / `timestamp`: text in a PostgreSQL to_date/to_timestamp `format` (e.g. `DD/MM/YYYY`).
 * - `map`: a code table (e.g. `{"F": "Flat"}`); a value absent from it becomes `default` (null when unset).
 */
export type ValueTransform =
  | { kind: 'date'; format: string }
  | { kind: 'timestamp'; format: string }
  | { kind: 'map'; values: Record<string, string | null>; default?: string | null };

export type ColumnMapping = { source: string; dest: string; transform?: ValueTransform };

export type TablePlan = {
  sourceTable: string;
  destTable: string;
  /** Source column → destination column. A destination FK column maps from the source's FK column. */
  columns: ColumnMapping[];
  /** Keyset order on the source, usually its primary key; its values identify a source row in the id mappings. */
  sourceKey: string[];
  /**
   * The destination's single-column key that id mappings point at (usually `id`). When it is not
   * among `columns`, new rows take it from the column's sequence/identity.
   */
  destKey: string;
  /** Destination columns that identify an already existing row (compared after transforms and FK translation). */
  naturalKey?: string[];
  /** Destination FKs of this table (child = destTable) whose values are translated through the parent's id mappings. */
  foreignKeys: ForeignKey[];
  /** Operator-typed WHERE condition on the source table (checked with testFilter first). */
  filter?: string;
};

export type RunPlan = {
  runId: string;
  /** The wizard session (GUID). */
  sessionId: string;
  /** The configuration whose id mappings the run reads and extends. */
  configId: number;
  source: Connection;
  /** Already in FK order (see orderTables). */
  tables: TablePlan[];
  /** FKs broken out of a cycle: copied empty (null), backfilled after every table is copied. */
  deferred: ForeignKey[];
  /** Update matched existing rows instead of skipping them. */
  patchMode: boolean;
  /** Source rows per chunk (default 2,000; 1..20,000). */
  chunkSize?: number;
  /** At most this many chunks per alarm (default: as many as fit in the alarm's time slice). */
  chunksPerSlice?: number;
  /**
   * Source rows the run may set aside (their cast or a constraint failed) before it fails; default
   * DEFAULT_REJECT_LIMIT (engine/rejects.ts), 0 fails the run at the first such row.
   */
  rejectLimit?: number;
  /**
   * Tables copied at the same time (those with no foreign key path between them; a table waits for
   * the parents it translates foreign keys through). Default DEFAULT_PARALLEL_TABLES (engine/parallel.ts), 1..4.
   */
  parallelTables?: number;
};

export type RunState = 'queued' | 'running' | 'cancelling' | 'cancelled' | 'completed' | 'failed';

export type TableProgress = {
  table: string;
  done: number;
  total: number;
  inserted: number;
  updated: number;
  skipped: number;
  state: 'pending' | 'copying' | 'backfilling' | 'validating' | 'done' | 'failed' | 'cancelled';
};

export type TableValidation = {
  table: string;
  sourceCount: number;
  destCount: number;
  sourceChecksum: string;
  destChecksum: string;
  ok: boolean;
};

export type RunProgress = {
  state: RunState;
  tables: TableProgress[];
  rowsPerSecond: number;
  etaSeconds: number | null;
  errors: string[];
  startedAt: string | null;
  finishedAt: string | null;
  validation: TableValidation[] | null;
};

export type LogEntry = { level: 'Information' | 'Warning' | 'Error'; message: string; tableName: string | null; timestamp: string };

/** RPC surface of the MigrationJob Durable Object (one per run: `idFromName(runId)`). */
export interface MigrationJobRpc {
  /**
   * Stores the plan and schedules the first chunk; a second start of the same run is ignored. A
   * source outside MIGRATE_ALLOWED_HOSTS gives a run that has already failed, with the reason in `errors`.
   */
  start(plan: RunPlan): RunProgress;
  /** Null when the object never received a plan (unknown run). */
  progress(): RunProgress | null;
  /** The newest `count` entries, oldest first (default 50, at most 500). */
  logs(count?: number): LogEntry[];
  /** Asks the run to stop; it stops within one chunk, leaving a consistent, resumable state. */
  cancel(): { message: string };
}

/** An operator filter that is not one read-only condition, or that failed/timed out on the source. */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}

/** A source connection refused by MIGRATE_ALLOWED_HOSTS. */
export class HostNotAllowedError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`Host ${host}:${port} is not in the allowed hosts list`);
    this.name = 'HostNotAllowedError';
  }
}

/** A proposed pairing of a source row with an existing destination row (PendingMappings). */
export type NaturalKeyMatch = { sourceId: string; destId: string; key: Record<string, string | null> };

export type NaturalKeyMatches = {
  sourceTable: string;
  destTable: string;
  /** Source rows (after the filter) already in the id mappings. */
  alreadyMapped: number;
  matches: NaturalKeyMatch[];
  /** Source rows with no destination row of the same natural key (they would be inserted). */
  unmatched: number;
  /** Source rows with a match, `matches` holding at most the limit of them. */
  matched?: number;
  /** Source rows read, and whether the scan stopped at `scanLimit` before the table's end. */
  scanned?: number;
  scanLimit?: number;
  scanCapped?: boolean;
};

export type IdMappingPair = { sourceId: string; destId: string };

/** A plan problem found before a run (ValidateSchema). */
export type PlanIssue = { table: string; column: string | null; level: 'error' | 'warning'; message: string };

/** The standalone foreign-key backfill tool (FkPatch), in source names; destinations come from the stored mappings. */
export type FkPatchRequest = { configId: number; childSourceTable: string; fkSourceColumn: string; parentSourceTable: string };
export type FkPatchResult = { childDestTable: string; destColumn: string; parentDestTable: string; updated: number; unresolved: number };

/**
 * A schema file (SchemaImport's `schemaFile`): table plans without the run's own fields.
 * `parseMappingDocument` validates one (zod) and returns it or throws with the problems.
 */
export type MappingDocument = {
  version: 1;
  tables: {
    sourceTable: string;
    destTable: string;
    destKey: string;
    sourceKey: string[];
    columns: ColumnMapping[];
    naturalKey?: string[];
  }[];
};
