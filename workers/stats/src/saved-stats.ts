import type { RacingDb } from '../../shared/pg';
import type { SavedPayload } from './schemas';

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

/** Whether the payload table exists (checked instead of provoking an error, which would abort a transaction). */
export async function payloadTableExists(db: RacingDb, table = PAYLOADS_TABLE): Promise<boolean> {
  const { rows } = await db.$client.query<{ present: boolean }>(`select to_regclass($1) is not null as present`, [table]);
  return rows[0]?.present === true;
}

export async function savePayload(db: RacingDb, payload: SavedPayload): Promise<string> {
  if (!(await payloadTableExists(db))) await db.$client.query(CREATE_PAYLOADS_TABLE);
  const { rows } = await db.$client.query<{ saved_at: string }>(
    `insert into meeting_stats_payloads (date, course_id, trainer_stats, jockey_stats)
     values ($1::date, $2, $3::jsonb, $4::jsonb)
     on conflict (date, course_id) do update
       set trainer_stats = excluded.trainer_stats, jockey_stats = excluded.jockey_stats, saved_at = now()
     returning to_char(saved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as saved_at`,
    [payload.date, payload.course_id, JSON.stringify(payload.trainer_stats), JSON.stringify(payload.jockey_stats)],
  );
  return rows[0]?.saved_at ?? '';
}

/** The saved payload of a meeting, or null when there is none or the table does not exist yet. */
export async function loadPayload(db: RacingDb, date: string, courseId: number): Promise<SavedPayload | null> {
  if (!(await payloadTableExists(db))) return null;
  const { rows } = await db.$client.query<SavedPayload>(
    `select to_char(date, 'YYYY-MM-DD') as date, course_id, trainer_stats, jockey_stats
       from meeting_stats_payloads where date = $1::date and course_id = $2`,
    [date, courseId],
  );
  return rows[0] ?? null;
}
