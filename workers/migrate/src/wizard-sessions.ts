import { and, asc, count, desc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import {
  customRelationships,
  migrationSessions,
  pendingMappings,
  rateLimits,
  SESSION_STATUSES,
  type SessionStatus,
} from '#d1/migrate/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext, MigrateDb } from './context.ts';
import type { ForeignKey, MappingDocument, RunProgress, TablePlan } from './engine/types.ts';
import { GUID } from './input.ts';
import { FINAL_STATUS, recordRunEnd } from './run-ends.ts';

/** One wizard session, its JSON columns parsed. */
export type WizardSession = {
  id: string;
  configId: number;
  status: SessionStatus;
  selectedTables: string[];
  schemaFile: MappingDocument | null;
  plans: TablePlan[];
  filters: Record<string, string>;
  tableOrder: string[];
  patchMode: boolean;
  runId: string | null;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** What the last natural-key matching found per table (FindNaturalKeyMatches). */
  matchSummaries: MatchSummary[];
  /** The reject threshold RunConfig posted with Start (the run's plan keeps it; not stored with the session). */
  rejectLimit?: number;
  /** Tables copied at the same time, as RunConfig posted it with Start (the run's plan keeps it; not stored with the session). */
  parallelTables?: number;
};

/** What natural-key matching found for one table, and which cap stopped it. */
export type MatchSummary = {
  sourceTable: string;
  destTable: string;
  alreadyMapped: number;
  matched: number;
  unmatched: number;
  scanned: number;
  scanLimit: number;
  scanCapped: boolean;
  matchLimit: number;
  matchCapped: boolean;
};

/** A session's name for people: its tables and the day it was created. */
export function sessionName(session: Pick<WizardSession, 'selectedTables' | 'createdAt'>): string {
  const tables =
    session.selectedTables.length > 3
      ? `${session.selectedTables.slice(0, 3).join(', ')} and ${session.selectedTables.length - 3} more`
      : session.selectedTables.join(', ');
  const day = new Date(session.createdAt).toISOString().slice(0, 10);
  return `${tables || 'No tables yet'} — ${day}`;
}

type Row = typeof migrationSessions.$inferSelect;

function json<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function parse(row: Row): WizardSession {
  return {
    id: row.id,
    configId: row.configId,
    status: row.status,
    selectedTables: json<string[]>(row.selectedTables, []),
    schemaFile: json<MappingDocument | null>(row.schemaFile, null),
    plans: json<TablePlan[]>(row.mappings, []),
    filters: json<Record<string, string>>(row.filters, {}),
    tableOrder: json<string[]>(row.tableOrder, []),
    patchMode: row.patchMode,
    runId: row.runId,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    matchSummaries: json<{ matches?: MatchSummary[] }>(row.naturalKeys, {}).matches ?? [],
  };
}

/** A new session with its selected tables (created by TableSelection's first post): its id. */
export async function createWizardSession(
  db: MigrateDb,
  configId: number,
  createdBy: string,
  selectedTables: string[] = [],
): Promise<string> {
  const id = crypto.randomUUID();
  await db
    .insert(migrationSessions)
    .values({
      id,
      configId,
      createdBy,
      selectedTables: JSON.stringify(selectedTables),
      status: selectedTables.length ? 'Configuring' : 'Created',
    })
    .run();
  return id;
}

/** The session named by a request: 400 for a malformed id, 404 for an unknown one. */
export async function wizardSession(c: MigrateContext, id: unknown): Promise<WizardSession> {
  if (typeof id !== 'string' || !GUID.test(id))
    throw new HttpError(400, 'invalid_request', 'sessionId must be a GUID.', {
      issues: [{ field: 'sessionId', message: 'must be a GUID' }],
    });
  const row = await c.var.db.select().from(migrationSessions).where(eq(migrationSessions.id, id.toLowerCase())).get();
  if (!row) throw new HttpError(404, 'not_found', `There is no migration session ${id}.`);
  return parse(row);
}

export type SessionPatch = Partial<
  Pick<
    WizardSession,
    'status' | 'selectedTables' | 'schemaFile' | 'plans' | 'filters' | 'tableOrder' | 'patchMode' | 'runId' | 'startedAt' | 'finishedAt'
  >
>;

export async function updateWizardSession(db: MigrateDb, id: string, patch: SessionPatch): Promise<void> {
  const set: Partial<typeof migrationSessions.$inferInsert> = { updatedAt: Date.now() };
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.selectedTables !== undefined) set.selectedTables = JSON.stringify(patch.selectedTables);
  if (patch.schemaFile !== undefined) set.schemaFile = patch.schemaFile === null ? null : JSON.stringify(patch.schemaFile);
  if (patch.plans !== undefined) set.mappings = JSON.stringify(patch.plans);
  if (patch.filters !== undefined) set.filters = JSON.stringify(patch.filters);
  if (patch.tableOrder !== undefined) set.tableOrder = JSON.stringify(patch.tableOrder);
  if (patch.patchMode !== undefined) set.patchMode = patch.patchMode;
  if (patch.runId !== undefined) set.runId = patch.runId;
  if (patch.startedAt !== undefined) set.startedAt = patch.startedAt;
  if (patch.finishedAt !== undefined) set.finishedAt = patch.finishedAt;
  await db.update(migrationSessions).set(set).where(eq(migrationSessions.id, id)).run();
}

export async function deleteWizardSession(db: MigrateDb, id: string): Promise<void> {
  await db.batch([
    db.delete(customRelationships).where(eq(customRelationships.sessionId, id)),
    db.delete(migrationSessions).where(eq(migrationSessions.id, id)),
  ]);
}

/** The schema file saved last for a configuration (SchemaImportUseSaved), if any. */
export async function savedSchemaFile(db: MigrateDb, session: WizardSession): Promise<MappingDocument | null> {
  return session.schemaFile ?? latestSchemaFile(db, session.configId);
}

/** The schema file a wizard session of the configuration saved last, if any. */
export async function latestSchemaFile(db: MigrateDb, configId: number): Promise<MappingDocument | null> {
  const row = await db
    .select({ schemaFile: migrationSessions.schemaFile })
    .from(migrationSessions)
    .where(and(eq(migrationSessions.configId, configId), isNotNull(migrationSessions.schemaFile)))
    .orderBy(desc(migrationSessions.updatedAt))
    .get();
  return json<MappingDocument | null>(row?.schemaFile ?? null, null);
}

export const SORTS = {
  created: migrationSessions.createdAt,
  updated: migrationSessions.updatedAt,
  status: migrationSessions.status,
  started: migrationSessions.startedAt,
} as const;
export type SortBy = keyof typeof SORTS;

export async function listWizardSessions(db: MigrateDb, options: { status?: SessionStatus; sortBy: SortBy; descending: boolean }) {
  const order = options.descending ? desc(SORTS[options.sortBy]) : asc(SORTS[options.sortBy]);
  // A session without tables (left by a visit to TableSelection before sessions began at its post) is never listed.
  const chosen = ne(migrationSessions.selectedTables, '[]');
  const [rows, stats] = await db.batch([
    db
      .select()
      .from(migrationSessions)
      .where(options.status ? and(chosen, eq(migrationSessions.status, options.status)) : chosen)
      .orderBy(order, options.descending ? desc(migrationSessions.id) : asc(migrationSessions.id))
      .limit(500),
    db.select({ status: migrationSessions.status, n: count() }).from(migrationSessions).where(chosen).groupBy(migrationSessions.status),
  ]);
  const byStatus = Object.fromEntries(SESSION_STATUSES.map((s) => [s, 0])) as Record<SessionStatus, number>;
  for (const s of stats) byStatus[s.status] = s.n;
  return { sessions: rows.map(parse), byStatus, total: stats.reduce((sum, s) => sum + s.n, 0) };
}

export function customForeignKeys(db: MigrateDb, sessionId: string) {
  return db.select().from(customRelationships).where(eq(customRelationships.sessionId, sessionId)).orderBy(customRelationships.id).all();
}

type Relationship = { parentTable: string; parentColumn: string; childTable: string; childColumn: string };

/** Adds a custom relationship to the session: its id. */
export async function addCustomRelationship(db: MigrateDb, sessionId: string, r: Relationship): Promise<number> {
  const row = await db
    .insert(customRelationships)
    .values({ sessionId, parentTable: r.parentTable, parentColumn: r.parentColumn, childTable: r.childTable, childColumn: r.childColumn })
    .returning({ id: customRelationships.id })
    .get();
  return row.id;
}

/** The session of relationship `id` when that session was started by `email`; undefined otherwise. */
export async function ownRelationshipSession(db: MigrateDb, id: number, email: string): Promise<string | undefined> {
  const row = await db
    .select({ sessionId: customRelationships.sessionId })
    .from(customRelationships)
    .innerJoin(migrationSessions, eq(migrationSessions.id, customRelationships.sessionId))
    .where(and(eq(customRelationships.id, id), eq(migrationSessions.createdBy, email)))
    .get();
  return row?.sessionId;
}

/** Deletes relationship `id` only if it belongs to the session: false when it does not (nothing deleted). */
export async function deleteCustomRelationship(db: MigrateDb, sessionId: string, id: number): Promise<boolean> {
  const row = await db
    .delete(customRelationships)
    .where(and(eq(customRelationships.id, id), eq(customRelationships.sessionId, sessionId)))
    .returning({ id: customRelationships.id })
    .get();
  return row !== undefined;
}

export const asForeignKey = (r: { parentTable: string; parentColumn: string; childTable: string; childColumn: string }): ForeignKey => ({
  childTable: r.childTable,
  childColumn: r.childColumn,
  parentTable: r.parentTable,
  parentColumn: r.parentColumn,
  custom: true,
  nullable: true,
});

/** Records a run's end on its session the first time a progress read sees it (unless the job did already). */
export async function recordRunState(db: MigrateDb, session: WizardSession, progress: RunProgress): Promise<void> {
  const status = FINAL_STATUS[progress.state];
  if (!status || session.status === status || !session.runId) return;
  await recordRunEnd(
    db,
    session.id,
    session.runId,
    progress.state,
    progress.finishedAt ? Date.parse(progress.finishedAt) || Date.now() : Date.now(),
    null,
  );
}

/**
 * Claims the session for run `runId` in one conditional statement: true unless a run holds it
 * (status Running), so two concurrent starts never both launch.
 */
export async function claimSessionRun(db: MigrateDb, id: string, runId: string, now: number): Promise<boolean> {
  const row = await db
    .update(migrationSessions)
    .set({ status: 'Running', runId, startedAt: now, finishedAt: null, updatedAt: now })
    .where(and(eq(migrationSessions.id, id), ne(migrationSessions.status, 'Running')))
    .returning({ id: migrationSessions.id })
    .get();
  return row !== undefined;
}

/** Gives a claim back when its run could not start: the session as it was before. */
export async function releaseSessionRun(db: MigrateDb, before: WizardSession, runId: string): Promise<void> {
  await db
    .update(migrationSessions)
    .set({ status: before.status, runId: before.runId, startedAt: before.startedAt, finishedAt: before.finishedAt, updatedAt: Date.now() })
    .where(and(eq(migrationSessions.id, before.id), eq(migrationSessions.runId, runId)))
    .run();
}

/**
 * A fixed one-minute window per key: false once `limit` calls were made in it. One statement, so
 * concurrent calls count exactly.
 */
export async function withinRateLimit(
  db: MigrateDb,
  key: string,
  limit: number,
  now = Date.now(),
): Promise<{ ok: boolean; retryAfter: number }> {
  const windowStart = now - (now % 60_000);
  const row = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${rateLimits.windowStart} = ${windowStart} then ${rateLimits.count} + 1 else 1 end`,
        windowStart,
      },
    })
    .returning({ count: rateLimits.count })
    .get();
  return { ok: row.count <= limit, retryAfter: Math.ceil((windowStart + 60_000 - now) / 1000) };
}

// Pending mappings: natural-key matches to review, and pairs added by hand.

export type PendingMappingState = 'Pending' | 'Confirmed' | 'Rejected' | 'Manual';
type NewPending = { tableName: string; sourceId: string; destId: string; matchedOn: string };

/** Fresh matches replace the session's unreviewed ones, with the scan's summaries, in one D1 batch (one transaction). */
export async function replacePendingMatches(
  db: MigrateDb,
  sessionId: string,
  rows: NewPending[],
  summaries: MatchSummary[],
): Promise<void> {
  const parts: NewPending[][] = [];
  for (let i = 0; i < rows.length; i += 10) parts.push(rows.slice(i, i + 10));
  await db.batch([
    db.delete(pendingMappings).where(and(eq(pendingMappings.sessionId, sessionId), eq(pendingMappings.state, 'Pending'))),
    ...parts.map((part) => db.insert(pendingMappings).values(part.map((r) => ({ ...r, sessionId })))),
    db
      .update(migrationSessions)
      .set({ naturalKeys: JSON.stringify({ matches: summaries }), updatedAt: Date.now() })
      .where(eq(migrationSessions.id, sessionId)),
  ]);
}

/** The session's pending mappings (at most 2,000), by table. */
export function listPendingMappings(db: MigrateDb, sessionId: string) {
  return db
    .select()
    .from(pendingMappings)
    .where(eq(pendingMappings.sessionId, sessionId))
    .orderBy(pendingMappings.tableName, pendingMappings.id)
    .limit(2000)
    .all();
}

/** One pending mapping of the session, if it exists. */
export function pendingMapping(db: MigrateDb, sessionId: string, id: number) {
  return db
    .select()
    .from(pendingMappings)
    .where(and(eq(pendingMappings.id, id), eq(pendingMappings.sessionId, sessionId)))
    .get();
}

export async function setPendingState(db: MigrateDb, id: number, state: PendingMappingState): Promise<void> {
  await db.update(pendingMappings).set({ state }).where(eq(pendingMappings.id, id)).run();
}

/** Records a pair added by hand. */
export async function addManualPending(db: MigrateDb, sessionId: string, row: Omit<NewPending, 'matchedOn'>): Promise<void> {
  await db
    .insert(pendingMappings)
    .values({ sessionId, ...row, matchedOn: 'added by hand', state: 'Manual' })
    .run();
}

/** How many of the session's pending mappings are in each state. */
export async function pendingCounts(db: MigrateDb, sessionId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ state: pendingMappings.state, n: count() })
    .from(pendingMappings)
    .where(eq(pendingMappings.sessionId, sessionId))
    .groupBy(pendingMappings.state)
    .all();
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
