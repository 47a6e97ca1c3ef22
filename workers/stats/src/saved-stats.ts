import { type RacingReads, readBatch, readRows } from '../../shared/pg.ts';
import type { SavedPayload } from './schemas.ts';

// Saved payloads live beside the racing data in `meeting_stats_payloads`, one per meeting (the
// latest save wins). The table is part of the racing schema (workers/shared/racing/schema.ts and
// its migration). A database migrated before it existed has nothing saved yet (GET answers
// not_found), and the first save creates it with the same definition.

export const PAYLOADS_TABLE = 'meeting_stats_payloads';

export const CREATE_PAYLOADS_TABLE = `create table if not exists ${PAYLOADS_TABLE} (
  date date not null,
  course_id integer not null,
  trainer_stats jsonb not null,
  jockey_stats jsonb not null,
  saved_at timestamptz not null default now(),
  constraint meeting_stats_payloads_date_course_id_pk primary key (date, course_id)
)`;

/** A save is one batch (one transaction, one round trip): the table if it is missing, then the upsert. */
export async function savePayload(db: RacingReads, payload: SavedPayload): Promise<string> {
  const [, rows] = await readBatch(db, [
    { text: CREATE_PAYLOADS_TABLE },
    {
      text: `insert into meeting_stats_payloads (date, course_id, trainer_stats, jockey_stats)
     values ($1::date, $2, $3::jsonb, $4::jsonb)
     on conflict (date, course_id) do update
       set trainer_stats = excluded.trainer_stats, jockey_stats = excluded.jockey_stats, saved_at = now()
     returning to_char(saved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as saved_at`,
      params: [payload.date, payload.course_id, JSON.stringify(payload.trainer_stats), JSON.stringify(payload.jockey_stats)],
    },
  ]);
  return String((rows?.[0] as { saved_at?: string } | undefined)?.saved_at ?? '');
}

/** The saved payload of a meeting, or null when there is none or the table does not exist yet. */
export async function loadPayload(db: RacingReads, date: string, courseId: number, table = PAYLOADS_TABLE): Promise<SavedPayload | null> {
  try {
    const rows = await readRows<SavedPayload>(
      db,
      `select to_char(date, 'YYYY-MM-DD') as date, course_id, trainer_stats, jockey_stats
         from ${table} where date = $1::date and course_id = $2`,
      [date, courseId],
    );
    return rows[0] ?? null;
  } catch (err) {
    // One statement, no transaction to spoil: a database from before the table has nothing saved.
    if (Reflect.get(Object(err), 'code') === UNDEFINED_TABLE) return null;
    throw err;
  }
}

const UNDEFINED_TABLE = '42P01';
