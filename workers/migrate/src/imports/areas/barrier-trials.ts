// Barrier trials: the sheet's columns, how its rows find their trial meeting, horse, trainer and
// jockey, and the one statement that writes a chunk of them into trial_runs.

import { z } from 'zod';
import { parseRows } from '#shared/pg.ts';
import type { ColumnDef } from '../records.ts';
import type { ImportAreaDef, WriteRow } from '../areas.ts';
import { key, problem, trialMeeting, writeCounts, personResolver, count, meetingColumns } from './lookups.ts';

const TRIAL_COLUMNS: readonly ColumnDef[] = [
  ...meetingColumns('Trial Date', 'The trial meeting day', 'a barrier-trial meeting'),
  { key: 'heat', heading: 'Heat', aliases: ['Heat No', 'Heat Number'], kind: 'int', required: true, min: 1, max: 30, help: '1 to 30' },
  {
    key: 'distance',
    heading: 'Distance',
    aliases: ['Dist', 'Metres'],
    kind: 'int',
    required: true,
    min: 300,
    max: 2_400,
    help: 'Metres, 300 to 2400',
  },
  {
    key: 'horse',
    heading: 'Horse',
    aliases: ['Horse Name', 'Horse Id'],
    kind: 'text',
    required: true,
    max: 100,
    help: 'Name (or id, by the foreign-key choice)',
  },
  {
    key: 'jockey',
    heading: 'Jockey',
    aliases: ['Rider', 'Jockey Id'],
    kind: 'text',
    required: false,
    max: 100,
    help: 'Name or id; may be empty',
  },
  { key: 'trainer', heading: 'Trainer', aliases: ['Trainer Id'], kind: 'text', required: true, max: 100, help: 'Name or id' },
  { key: 'barrier', heading: 'Barrier', aliases: ['Gate', 'Bar'], kind: 'int', required: true, min: 1, max: 30, help: '1 to 30' },
  {
    key: 'position',
    heading: 'Position',
    aliases: ['Pos', 'Finish', 'Placing', 'Finishing Position'],
    kind: 'int',
    required: true,
    min: 1,
    max: 30,
    help: 'Finishing position, 1 to 30',
  },
  {
    key: 'margin',
    heading: 'Margin',
    aliases: ['Mgn', 'Lengths'],
    kind: 'number',
    required: true,
    min: 0,
    max: 100,
    help: 'Lengths behind the winner (0 for the winner)',
  },
  {
    key: 'time',
    heading: 'Time',
    aliases: ['Time Seconds', 'Run Time'],
    kind: 'seconds',
    required: true,
    min: 15,
    max: 200,
    help: 'Seconds (58.21) or minutes and seconds (0:58.21)',
  },
];

const byNameOrId = [
  { value: 'name', label: 'by name (one exact match, any case)' },
  { value: 'id', label: 'by racing-database id' },
] as const;

const TrialFk = z.object({
  horse: z.enum(['name', 'id']).default('name'),
  trainer: z.enum(['name', 'id']).default('name'),
  jockey: z.enum(['name', 'id', 'ignore']).default('name'),
});

export const barrierTrials: ImportAreaDef = {
  area: 'BarrierTrials',
  title: 'Barrier trials',
  prefix: '/api/barriertrials',
  table: 'trial_runs',
  columns: TRIAL_COLUMNS,
  fk: [
    { key: 'horse', label: 'Horse', options: byNameOrId },
    { key: 'trainer', label: 'Trainer', options: byNameOrId },
    {
      key: 'jockey',
      label: 'Jockey',
      options: [...byNameOrId, { value: 'ignore', label: 'ignore the column (new runs get none; existing runs keep theirs)' }],
    },
  ],
  fkSchema: TrialFk,
  defaultFk: { horse: 'name', trainer: 'name', jockey: 'name' },
  required: () => new Set(TRIAL_COLUMNS.filter((c) => c.required).map((c) => c.key)),
  label: (v) => `${v.date ?? '?'} ${v.course ?? '?'} heat ${v.heat ?? '?'}: ${v.horse ?? '?'}`,

  async resolve(dest, records, fk) {
    const dates = new Set<string>();
    const courses = new Set<string>();
    for (const r of records) {
      if (r.values.date !== null) dates.add(String(r.values.date));
      if (r.values.course !== null) courses.add(String(r.values.course).toLowerCase());
    }
    const [meetingRows, horse, trainer, jockey] = await Promise.all([
      dates.size && courses.size
        ? dest
            .query(
              `SELECT m.id, m.date::text AS date, lower(c.name) AS course FROM meetings m JOIN courses c ON c.id = m.course_id
             WHERE m.is_trial AND m.date = ANY($1::date[]) AND lower(c.name) = ANY($2::text[]) ORDER BY m.id`,
              [[...dates], [...courses]],
            )
            .then((found) => parseRows('the trial meetings', trialMeeting, found))
        : Promise.resolve([]),
      personResolver(
        dest,
        'horses',
        'horse',
        'Horse',
        fk.horse ?? 'name',
        records.map((r) => r.values.horse),
      ),
      personResolver(
        dest,
        'trainers',
        'trainer',
        'Trainer',
        fk.trainer ?? 'name',
        records.map((r) => r.values.trainer),
      ),
      fk.jockey === 'ignore'
        ? Promise.resolve(() => null)
        : personResolver(
            dest,
            'jockeys',
            'jockey',
            'Jockey',
            fk.jockey ?? 'name',
            records.map((r) => r.values.jockey),
          ),
    ]);
    const meetings = new Map<string, number>();
    for (const m of meetingRows) if (!meetings.has(key(m.date, m.course))) meetings.set(key(m.date, m.course), Number(m.id));
    const fkCounts: Record<string, number> = { meeting: 0, horse: 0, trainer: 0, jockey: 0 };
    const rows: WriteRow[] = [];
    for (const record of records) {
      const v = record.values;
      let meetingId: number | null = null;
      if (v.date !== null && v.course !== null) {
        meetingId = meetings.get(key(v.date, v.course)) ?? null;
        if (meetingId === null)
          record.problems.push(problem('course', 'unknown meeting', `There is no barrier-trial meeting at ${v.course} on ${v.date}`));
        else count(fkCounts, 'meeting');
      }
      const horseId = horse(record);
      const trainerId = trainer(record);
      const jockeyId = jockey(record);
      if (horseId !== null) count(fkCounts, 'horse');
      if (trainerId !== null) count(fkCounts, 'trainer');
      if (jockeyId !== null) count(fkCounts, 'jockey');
      if (record.problems.length || meetingId === null || horseId === null || trainerId === null) continue;
      rows.push({
        line: record.line,
        key: key(meetingId, v.heat, horseId),
        values: [
          meetingId,
          v.heat as number,
          v.distance as number,
          horseId,
          jockeyId,
          trainerId,
          v.barrier as number,
          v.position as number,
          v.margin as number,
          v.time as number,
        ],
      });
    }
    return { rows, fkCounts };
  },

  async write(tx, rows, fk) {
    const column = (i: number) => rows.map((r) => r.values[i] ?? null);
    const [row] = parseRows(
      'the written counts',
      writeCounts,
      await tx.query(
        `WITH input AS (
         SELECT * FROM unnest($1::int[], $2::smallint[], $3::int[], $4::int[], $5::int[], $6::int[], $7::smallint[], $8::smallint[], $9::numeric[], $10::numeric[])
           AS t(meeting_id, heat_number, distance, horse_id, jockey_id, trainer_id, barrier, finishing_position, margin, time_seconds)),
       existing AS (
         SELECT DISTINCT ON (r.meeting_id, r.heat_number, r.horse_id) r.* FROM trial_runs r
         JOIN input i ON i.meeting_id = r.meeting_id AND i.heat_number = r.heat_number AND i.horse_id = r.horse_id
         ORDER BY r.meeting_id, r.heat_number, r.horse_id, r.id),
       wanted AS (
         SELECT e.id, i.distance, CASE WHEN $11::boolean THEN e.jockey_id ELSE i.jockey_id END AS jockey_id, i.trainer_id, i.barrier, i.finishing_position, i.margin, i.time_seconds
         FROM existing e JOIN input i ON i.meeting_id = e.meeting_id AND i.heat_number = e.heat_number AND i.horse_id = e.horse_id
         WHERE (e.distance, e.jockey_id, e.trainer_id, e.barrier, e.finishing_position, e.margin, e.time_seconds)
           IS DISTINCT FROM (i.distance, CASE WHEN $11::boolean THEN e.jockey_id ELSE i.jockey_id END, i.trainer_id, i.barrier, i.finishing_position, i.margin, i.time_seconds)),
       upd AS (
         UPDATE trial_runs r SET distance = w.distance, jockey_id = w.jockey_id, trainer_id = w.trainer_id, barrier = w.barrier,
           finishing_position = w.finishing_position, margin = w.margin, time_seconds = w.time_seconds
         FROM wanted w WHERE r.id = w.id RETURNING r.id),
       ins AS (
         INSERT INTO trial_runs (meeting_id, heat_number, distance, horse_id, jockey_id, trainer_id, barrier, finishing_position, margin, time_seconds)
         SELECT i.meeting_id, i.heat_number, i.distance, i.horse_id, i.jockey_id, i.trainer_id, i.barrier, i.finishing_position, i.margin, i.time_seconds FROM input i
         WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.meeting_id = i.meeting_id AND e.heat_number = i.heat_number AND e.horse_id = i.horse_id)
         RETURNING id)
       SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM upd)::int AS updated`,
        [
          column(0),
          column(1),
          column(2),
          column(3),
          column(4),
          column(5),
          column(6),
          column(7),
          column(8),
          column(9),
          fk.jockey === 'ignore',
        ],
      ),
    );
    const inserted = Number(row?.inserted ?? 0);
    const updated = Number(row?.updated ?? 0);
    return { inserted, updated, unchanged: rows.length - inserted - updated };
  },
};
