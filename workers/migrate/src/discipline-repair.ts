import { desc, eq, inArray } from 'drizzle-orm';
import { type DISCIPLINE_REPAIR_STATES, disciplineRepairJobs } from '#d1/migrate/schema.ts';
import type { MigrateDb, MigrateServices } from './context.ts';
import type { Connection, LogEntry } from './engine/types.ts';
import { disciplineRepairJobStub } from './jobs/stubs.ts';
import { LEGACY_VALUES, legacyCode, type MeetingsDb, type SourceMeeting } from './meetings.ts';
import { matchDestinations, SOURCE_ISO_DATE, SOURCE_MEETING_COLUMNS, sourceMeeting } from './meetings/meeting-pairs.ts';
import { mappedIdsSql } from './meetings/pairing.ts';
import { pairRaces } from './meetings/races.ts';

// The discipline repair (README, "Discipline repair"): a destination race (racing database,
// `races.race_type`) whose source counterpart (the active configuration's legacy `race_event`,
// `discipline_code` F/H/S) says another discipline is set to the source's. Races are paired as the
// meetings comparison pairs them (meetings.ts): meetings by id mapping, else date and course;
// races by id mapping, else race number. The source is read in date order, a few racing days at a
// time; each wrong race gets one guarded UPDATE, so a repeated batch changes nothing twice.

export type RepairState = (typeof DISCIPLINE_REPAIR_STATES)[number];
export const TERMINAL_REPAIR_STATES: readonly RepairState[] = ['cancelled', 'completed', 'failed'];

/** Racing days of the source read per batch (one batch per alarm of the job). */
export const DAYS_PER_BATCH = 3;
/** Races listed on the index page's preview. */
export const PREVIEW_LIMIT = 50;
/** The preview stops scanning after this long and says how far it got. */
export const PREVIEW_BUDGET_MS = 8_000;

const DISCIPLINES = new Set<string>(Object.values(LEGACY_VALUES.discipline));

/** A destination race whose discipline differs from its source counterpart's. */
export type DisciplineDifference = {
  /** The destination race (races.id). */
  raceId: number;
  sourceRaceId: number;
  /** The source meeting: its date and venue. */
  meeting: string;
  raceNumber: number;
  /** The destination's race_type now. */
  from: string;
  /** The source's discipline, as the racing database writes it. */
  to: string;
  pairedBy: 'id mapping' | 'race number';
};

/** What one batch found. `next` is the last racing day it read; null when there was nothing left. */
export type BatchScan = {
  meetings: number;
  /** Racing days read. */
  days: number;
  sourceRaces: number;
  /** Source races paired with a destination race. */
  paired: number;
  /** Source races without a destination counterpart (left alone). */
  sourceWithoutCounterpart: number;
  /** Destination races of the matched meetings without a source counterpart (left alone). */
  destinationWithoutCounterpart: number;
  /** Paired races whose source code is not F, H or S (left alone). */
  unknownCodes: number;
  differences: DisciplineDifference[];
  next: string | null;
};

type SourceRace = { id: number; meetingId: number; raceNumber: number; discipline: string | null; code: string | null };
type DestinationRace = { id: number; raceNumber: number; raceType: string };

/** The source's racing days (YYYY-MM-DD text) and races: the job's scan window and its total. */
export async function sourceExtent(db: MeetingsDb): Promise<{ days: number; races: number; meetings: number }> {
  const rows = await db.source(
    `SELECT (SELECT count(DISTINCT ${SOURCE_ISO_DATE}) FROM race_meeting m)::int AS days, (SELECT count(*) FROM race_meeting)::int AS meetings,
       (SELECT count(*) FROM race_event)::int AS races`,
  );
  return { days: Number(rows[0]?.days ?? 0), races: Number(rows[0]?.races ?? 0), meetings: Number(rows[0]?.meetings ?? 0) };
}

export async function destinationRaceCount(db: MeetingsDb): Promise<number> {
  const rows = await db.dest('SELECT count(*)::int AS n FROM races');
  return Number(rows[0]?.n ?? 0);
}

const meetingLabel = (m: SourceMeeting) => `${m.date ?? m.rawDate} ${m.venue ?? `venue ${m.venueId}`}`;

/**
 * The source meetings of the next `days` racing days after `after` (YYYY-MM-DD text; '' for the
 * first), their races paired with the destination's, and the pairs whose discipline differs.
 */
export async function scanBatch(db: MeetingsDb, after: string, days = DAYS_PER_BATCH): Promise<BatchScan> {
  const meetingRows = await db.source(
    `WITH days AS (SELECT DISTINCT ${SOURCE_ISO_DATE} AS d FROM race_meeting m WHERE ${SOURCE_ISO_DATE} > $1 ORDER BY 1 LIMIT $2)
     SELECT ${SOURCE_ISO_DATE} AS iso_day, ${SOURCE_MEETING_COLUMNS}
     WHERE ${SOURCE_ISO_DATE} IN (SELECT d FROM days) ORDER BY ${SOURCE_ISO_DATE}, m.meeting_id`,
    [after, days],
  );
  const empty: BatchScan = {
    meetings: 0,
    days: 0,
    sourceRaces: 0,
    paired: 0,
    sourceWithoutCounterpart: 0,
    destinationWithoutCounterpart: 0,
    unknownCodes: 0,
    differences: [],
    next: null,
  };
  if (meetingRows.length === 0) return empty;
  const next = String(meetingRows[meetingRows.length - 1]!.iso_day);
  const meetings = meetingRows.map(sourceMeeting);
  const [matches, raceRows] = await Promise.all([
    matchDestinations(db, meetings),
    db.source(
      'SELECT race_id, meeting_id, race_no, discipline_code FROM race_event WHERE meeting_id = ANY($1::int[]) ORDER BY meeting_id, race_no, race_id',
      [meetings.map((m) => m.id)],
    ),
  ]);
  const sourceRaces: SourceRace[] = raceRows.map((r) => {
    const code = r.discipline_code === null || r.discipline_code === undefined ? null : String(r.discipline_code);
    return {
      id: Number(r.race_id),
      meetingId: Number(r.meeting_id),
      raceNumber: Number(r.race_no),
      code,
      discipline: legacyCode(LEGACY_VALUES.discipline, code),
    };
  });
  const destMeetingIds = [...new Set([...matches.values()].map((m) => m.meeting.id))];
  const destRows = await db.dest(
    `WITH ${mappedIdsSql('races')}
     SELECT r.id, r.meeting_id, r.race_number, r.race_type, (SELECT array_agg(mp.src_id) FROM mapped mp WHERE mp.dest_id = r.id) AS mapped_from
     FROM races r WHERE r.meeting_id = ANY($3::int[]) OR r.id IN (SELECT dest_id FROM mapped) ORDER BY r.race_number, r.id`,
    [db.configId, sourceRaces.map((r) => r.id), destMeetingIds],
  );
  const destinationOf = (row: Record<string, unknown>): DestinationRace => ({
    id: Number(row.id),
    raceNumber: Number(row.race_number),
    raceType: String(row.race_type),
  });

  const scan: BatchScan = {
    ...empty,
    meetings: meetings.length,
    days: new Set(meetingRows.map((r) => String(r.iso_day))).size,
    sourceRaces: sourceRaces.length,
    next,
  };
  const claimed = new Set<number>();
  for (const meeting of meetings) {
    const races = sourceRaces.filter((r) => r.meetingId === meeting.id);
    const ids = new Set(races.map((r) => r.id));
    const destMeetingId = matches.get(meeting.id)?.meeting.id ?? null;
    // This meeting's destination races, and those its source races' id mappings name.
    const rows = destRows.filter(
      (row) =>
        (destMeetingId !== null && Number(row.meeting_id) === destMeetingId) ||
        ((row.mapped_from as number[] | null) ?? []).some((src) => ids.has(Number(src))),
    );
    for (const pair of pairRaces(races, rows, destinationOf, destMeetingId)) {
      if (!pair.source) {
        scan.destinationWithoutCounterpart++;
        continue;
      }
      if (!pair.destination) {
        scan.sourceWithoutCounterpart++;
        continue;
      }
      // A destination race is repaired from one source race only (the first that pairs with it).
      if (claimed.has(pair.destination.id)) {
        scan.sourceWithoutCounterpart++;
        continue;
      }
      claimed.add(pair.destination.id);
      scan.paired++;
      const to = pair.source.discipline;
      if (to === null || !DISCIPLINES.has(to)) {
        scan.unknownCodes++;
        continue;
      }
      if (pair.destination.raceType !== to) {
        scan.differences.push({
          raceId: pair.destination.id,
          sourceRaceId: pair.source.id,
          meeting: meetingLabel(meeting),
          raceNumber: pair.destination.raceNumber,
          from: pair.destination.raceType,
          to,
          pairedBy: pair.pairedBy === 'id mapping' ? 'id mapping' : 'race number',
        });
      }
    }
  }
  return scan;
}

/**
 * Sets one race's discipline, only while it still has the value the scan saw: true when this
 * statement changed it (false when it was already repaired, or changed meanwhile).
 */
export async function repairRace(dest: MeetingsDb['dest'], difference: DisciplineDifference): Promise<boolean> {
  const rows = await dest('UPDATE races SET race_type = $1 WHERE id = $2 AND race_type = $3 RETURNING id', [
    difference.to,
    difference.raceId,
    difference.from,
  ]);
  return rows.length > 0;
}

export type RepairPreview = {
  /** Differences found (all of them when `complete`). */
  count: number;
  /** The first PREVIEW_LIMIT of them. */
  races: DisciplineDifference[];
  daysScanned: number;
  totalDays: number;
  complete: boolean;
};

/** What a repair would change now: the scan without the updates, within PREVIEW_BUDGET_MS. */
export async function previewRepair(db: MeetingsDb, budgetMs = PREVIEW_BUDGET_MS): Promise<RepairPreview> {
  const started = Date.now();
  const extent = await sourceExtent(db);
  const preview: RepairPreview = { count: 0, races: [], daysScanned: 0, totalDays: extent.days, complete: false };
  let after = '';
  for (;;) {
    if (Date.now() - started > budgetMs) return preview;
    const batch = await scanBatch(db, after, DAYS_PER_BATCH * 4);
    if (batch.next === null) return { ...preview, complete: true };
    preview.count += batch.differences.length;
    preview.races.push(...batch.differences.slice(0, PREVIEW_LIMIT - preview.races.length));
    preview.daysScanned += batch.days;
    after = batch.next;
  }
}

// ---- the job -------------------------------------------------------------------------------

/** What the job's Durable Object is started with. */
export type RepairPlan = { jobId: string; configId: number; configName: string; source: Connection; startedBy: string };

export type RepairChange = DisciplineDifference & { changedAt: string };

export type RepairSummary = {
  changes: RepairChange[];
  configuration: string;
  meetingsScanned: number;
  daysScanned: number;
  totalDays: number;
  pairedRaces: number;
  sourceRacesWithoutCounterpart: number;
  destinationRacesWithoutCounterpart: number;
  unknownCodes: number;
  /** Differences found whose race no longer had the old value when its update ran. */
  alreadyRepaired: number;
  startedAt: string | null;
  finishedAt: string | null;
  errors: string[];
};

export type RepairProgress = {
  jobId: string;
  state: RepairState;
  /** Source races checked so far. */
  checked: number;
  /** Destination races changed so far. */
  changed: number;
  /** Source races to check. */
  total: number;
  log: Pick<LogEntry, 'level' | 'message' | 'timestamp'>[];
  summary: RepairSummary;
};

export interface DisciplineRepairJobRpc {
  start(plan: RepairPlan): RepairProgress;
  progress(): RepairProgress | null;
  /** Stops the job before its next batch; `reason` is logged and kept (default: asked for by a user). */
  cancel(reason?: string): { message: string };
}

/** The DisciplineRepairJob Durable Object of a job (one per job). */
export function disciplineRepairJob(c: Pick<MigrateServices, 'env'>, jobId: string) {
  return disciplineRepairJobStub(c.env, jobId);
}

// ---- the D1 list of jobs ---------------------------------------------------------------------

export type RepairJobRow = typeof disciplineRepairJobs.$inferSelect;
export const RECENT_JOBS = 20;

export async function recordRepairJob(
  db: MigrateDb,
  job: { jobId: string; configId: number; startedBy: string },
  now: number,
): Promise<void> {
  await db.insert(disciplineRepairJobs).values({ ...job, state: 'queued', createdAt: now, updatedAt: now });
}

export async function findRepairJob(db: MigrateDb, jobId: string): Promise<RepairJobRow | undefined> {
  return db.select().from(disciplineRepairJobs).where(eq(disciplineRepairJobs.jobId, jobId)).get();
}

export async function updateRepairJob(db: MigrateDb, jobId: string, state: RepairState, changed: number, now: number): Promise<void> {
  await db.update(disciplineRepairJobs).set({ state, changed, updatedAt: now }).where(eq(disciplineRepairJobs.jobId, jobId));
}

/** The newest jobs, those still running brought up to date from their Durable Objects first. */
export async function recentRepairJobs(c: MigrateServices): Promise<RepairJobRow[]> {
  const db = c.var.db;
  const rows = await db.select().from(disciplineRepairJobs).orderBy(desc(disciplineRepairJobs.createdAt)).limit(RECENT_JOBS).all();
  const open = rows.filter((r) => !TERMINAL_REPAIR_STATES.includes(r.state));
  if (open.length === 0) return rows;
  const now = Date.now();
  await Promise.all(
    open.map(async (row) => {
      const progress = await disciplineRepairJob(c, row.jobId).progress();
      if (progress && (progress.state !== row.state || progress.changed !== row.changed))
        await updateRepairJob(db, row.jobId, progress.state, progress.changed, now);
    }),
  );
  return db
    .select()
    .from(disciplineRepairJobs)
    .where(
      inArray(
        disciplineRepairJobs.jobId,
        rows.map((r) => r.jobId),
      ),
    )
    .orderBy(desc(disciplineRepairJobs.createdAt))
    .all();
}
