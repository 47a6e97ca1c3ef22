import { z } from 'zod';
import { type RacingReads, readRows } from '#shared/pg.ts';
import { type SavedPayload, savedPayloadSchema } from './schemas.ts';

// Saved payloads live beside the racing data in `meeting_stats_payloads`, one per meeting (the
// latest save wins). The table is part of the racing schema (workers/shared/racing/schema.ts and
// its migration 0001), which creates it; requests never send DDL. A database migrated before it
// existed has nothing saved (GET answers not_found) and cannot save until the migration is applied.

export const PAYLOADS_TABLE = 'meeting_stats_payloads';
const UNDEFINED_TABLE = '42P01';
const isUndefinedTable = (err: unknown) => Reflect.get(Object(err), 'code') === UNDEFINED_TABLE;

/** A save is one statement: the upsert, answering the time it was saved. */
export async function savePayload(db: RacingReads, payload: SavedPayload): Promise<string> {
  try {
    const [row] = await readRows(db, {
      name: 'the payload save',
      row: z.object({ saved_at: z.string() }),
      text: `insert into meeting_stats_payloads (date, course_id, trainer_stats, jockey_stats)
     values ($1::date, $2, $3::jsonb, $4::jsonb)
     on conflict (date, course_id) do update
       set trainer_stats = excluded.trainer_stats, jockey_stats = excluded.jockey_stats, saved_at = now()
     returning to_char(saved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as saved_at`,
      params: [payload.date, payload.course_id, JSON.stringify(payload.trainer_stats), JSON.stringify(payload.jockey_stats)],
    });
    return row?.saved_at ?? '';
  } catch (err) {
    if (isUndefinedTable(err))
      throw new Error(`${PAYLOADS_TABLE} does not exist: apply the racing migrations (workers/shared/racing/migrations)`, { cause: err });
    throw err;
  }
}

/** The saved payload of a meeting, or null when there is none or the table does not exist yet. */
export async function loadPayload(db: RacingReads, date: string, courseId: number, table = PAYLOADS_TABLE): Promise<SavedPayload | null> {
  try {
    const rows = await readRows(db, {
      name: 'the saved payload',
      row: savedPayloadSchema,
      text: `select to_char(date, 'YYYY-MM-DD') as date, course_id, trainer_stats, jockey_stats
         from ${table} where date = $1::date and course_id = $2`,
      params: [date, courseId],
    });
    return rows[0] ?? null;
  } catch (err) {
    // One statement, no transaction to spoil: a database from before the table has nothing saved.
    if (isUndefinedTable(err)) return null;
    throw err;
  }
}
