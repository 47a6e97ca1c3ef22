import type { RacingDb } from '../../shared/pg';
import type { SavedPayload } from './schemas';

// Saved payloads live beside the racing data in `meeting_stats_payloads`, one per meeting (the
// latest save wins). The service creates the table on its first save, so a database without it
// simply has nothing saved yet; operators may create it beforehand with the same statement.

export const CREATE_PAYLOADS_TABLE = `create table if not exists meeting_stats_payloads (
  date date not null,
  course_id integer not null,
  trainer_stats jsonb not null,
  jockey_stats jsonb not null,
  saved_at timestamptz not null default now(),
  primary key (date, course_id)
)`;

const UNDEFINED_TABLE = '42P01';
const isUndefinedTable = (err: unknown) => typeof err === 'object' && err !== null && Reflect.get(err, 'code') === UNDEFINED_TABLE;

export async function savePayload(db: RacingDb, payload: SavedPayload): Promise<string> {
  const upsert = () =>
    db.$client.query<{ saved_at: string }>(
      `insert into meeting_stats_payloads (date, course_id, trainer_stats, jockey_stats)
       values ($1::date, $2, $3::jsonb, $4::jsonb)
       on conflict (date, course_id) do update
         set trainer_stats = excluded.trainer_stats, jockey_stats = excluded.jockey_stats, saved_at = now()
       returning to_char(saved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as saved_at`,
      [payload.date, payload.course_id, JSON.stringify(payload.trainer_stats), JSON.stringify(payload.jockey_stats)],
    );
  try {
    return (await upsert()).rows[0]?.saved_at ?? '';
  } catch (err) {
    if (!isUndefinedTable(err)) throw err;
    await db.$client.query(CREATE_PAYLOADS_TABLE);
    return (await upsert()).rows[0]?.saved_at ?? '';
  }
}

/** The saved payload of a meeting, or null when there is none or the table does not exist yet. */
export async function loadPayload(db: RacingDb, date: string, courseId: number): Promise<SavedPayload | null> {
  try {
    const { rows } = await db.$client.query<SavedPayload>(
      `select to_char(date, 'YYYY-MM-DD') as date, course_id, trainer_stats, jockey_stats
         from meeting_stats_payloads where date = $1::date and course_id = $2`,
      [date, courseId],
    );
    return rows[0] ?? null;
  } catch (err) {
    if (isUndefinedTable(err)) return null;
    throw err;
  }
}
