import { z } from 'zod';
import type { IMPORT_AREAS } from '#d1/migrate/schema.ts';
import { parseOne, parseRows, pgCount, pgInt } from '#shared/pg.ts';
import type { Reader, Sql } from '../engine/db.ts';
import type { ColumnDef, Problem, SheetRecord } from './records.ts';

// The two spreadsheet imports (README, "Barrier trials and sectional times"): the columns each
// sheet has, how its references find destination rows (the foreign-key choices), and the one
// statement that writes a chunk of valid rows. Rows are matched to what the racing database
// already holds by a natural key, so importing the same sheet again changes nothing:
//   trial_runs       (meeting_id, heat_number, horse_id)   the trial meeting by date and course
//   sectional_times  (runner_id, segment)                  the runner by date, course, race and horse or tab

export type ImportArea = (typeof IMPORT_AREAS)[number];

/** A row ready to write: its sheet line, its natural key (duplicates), the write statement's values. */
export type WriteRow = { line: number; key: string; values: (number | string | null)[] };

export type WriteCounts = { inserted: number; updated: number; unchanged: number };

export type FkChoice = { key: string; label: string; options: readonly { value: string; label: string }[] };

export type Resolution = {
  rows: WriteRow[];
  /** Per reference: how many rows it resolved for. */
  fkCounts: Record<string, number>;
};

export type ImportAreaDef = {
  area: ImportArea;
  title: string;
  /** JSON routes' prefix. */
  prefix: string;
  /** The destination table it writes (livecounts, ClearData). */
  table: string;
  columns: readonly ColumnDef[];
  fk: readonly FkChoice[];
  fkSchema: z.ZodType<Record<string, string>>;
  defaultFk: Record<string, string>;
  /** The columns a sheet must have under these foreign-key choices. */
  required(fk: Record<string, string>): Set<string>;
  /** Finds each record's destination rows, adding a problem where one is missing; the rows to write. */
  resolve(dest: Reader, records: SheetRecord[], fk: Record<string, string>): Promise<Resolution>;
  /** Writes one chunk (inside the caller's transaction). */
  write(tx: Sql, rows: WriteRow[], fk: Record<string, string>): Promise<WriteCounts>;
  /** A one-line account of a row for the log and the preview. */
  label(values: SheetRecord['values']): string;
};

const key = (...parts: unknown[]) => parts.map((p) => String(p).toLowerCase()).join('\u001f');
const problem = (column: string, kind: Problem['kind'], message: string): Problem => ({ column, kind, message });

// The destination's rows as these look-ups and writes read them, checked as they are read.
const idName = z.object({ id: pgInt, name: z.string() });
const idOnly = z.object({ id: pgInt });
const trialMeeting = z.object({ id: pgInt, date: z.string(), course: z.string() });
const writeCounts = z.object({ inserted: pgInt, updated: pgInt });

/** Rows of `table` whose name (any case) is one of `names`, grouped by lower-cased name. */
async function idsByName(dest: Reader, table: 'horses' | 'trainers' | 'jockeys', names: Iterable<string>): Promise<Map<string, number[]>> {
  const wanted = [...new Set([...names].map((n) => n.toLowerCase()))];
  const found = new Map<string, number[]>();
  if (wanted.length === 0) return found;
  const rows = parseRows(
    `the ${table} by name`,
    idName,
    await dest.query(`SELECT id, lower(name) AS name FROM ${table} WHERE lower(name) = ANY($1::text[]) ORDER BY id`, [wanted]),
  );
  for (const r of rows) found.set(r.name, [...(found.get(r.name) ?? []), Number(r.id)]);
  return found;
}

async function existingIds(dest: Reader, table: 'horses' | 'trainers' | 'jockeys', ids: Iterable<number>): Promise<Set<number>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Set();
  const rows = parseRows(`the ${table} by id`, idOnly, await dest.query(`SELECT id FROM ${table} WHERE id = ANY($1::int[])`, [wanted]));
  return new Set(rows.map((r) => Number(r.id)));
}

const asId = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(n) && n > 0 && n <= 2_147_483_647 ? n : null;
};

type PersonTable = 'horses' | 'trainers' | 'jockeys';

/**
 * A reference to a horse, trainer or jockey by name (one exact match, any case) or by the racing
 * database's id: a resolver that gives a record's id, or adds its problem and gives null.
 */
async function personResolver(dest: Reader, table: PersonTable, column: string, heading: string, mode: string, values: unknown[]) {
  const kind = `unknown ${table.slice(0, -1)}` as Problem['kind'];
  const present = values.filter((v): v is string | number => v !== null && v !== undefined && v !== '');
  if (mode === 'id') {
    const known = await existingIds(
      dest,
      table,
      present.map(asId).filter((n): n is number => n !== null),
    );
    return (record: SheetRecord): number | null => {
      const value = record.values[column];
      if (value === null || value === undefined) return null;
      const id = asId(value);
      if (id !== null && known.has(id)) return id;
      record.problems.push(
        problem(
          column,
          kind,
          id === null
            ? `${heading} "${value}" is not an id (the foreign-key choice is "by id")`
            : `There is no ${table.slice(0, -1)} with id ${id}`,
        ),
      );
      return null;
    };
  }
  const byName = await idsByName(dest, table, present.map(String));
  return (record: SheetRecord): number | null => {
    const value = record.values[column];
    if (value === null || value === undefined) return null;
    const ids = byName.get(String(value).toLowerCase()) ?? [];
    if (ids.length === 1) return ids[0]!;
    if (ids.length === 0) record.problems.push(problem(column, kind, `There is no ${table.slice(0, -1)} named "${value}"`));
    else
      record.problems.push(
        problem(column, 'ambiguous name', `${ids.length} ${table} are named "${value}" (ids ${ids.slice(0, 5).join(', ')}): use ids`),
      );
    return null;
  };
}

const count = (counts: Record<string, number>, name: string) => {
  counts[name] = (counts[name] ?? 0) + 1;
};

// ---- barrier trials ---------------------------------------------------------------------------

const TRIAL_COLUMNS: readonly ColumnDef[] = [
  {
    key: 'date',
    heading: 'Date',
    aliases: ['Trial Date', 'Meeting Date'],
    kind: 'date',
    required: true,
    help: 'The trial meeting day: YYYY-MM-DD, DD/MM/YYYY or a date cell',
  },
  {
    key: 'course',
    heading: 'Course',
    aliases: ['Venue', 'Track'],
    kind: 'text',
    required: true,
    max: 100,
    help: 'The course of a barrier-trial meeting that day',
  },
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

const barrierTrials: ImportAreaDef = {
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

// ---- sectional times --------------------------------------------------------------------------

/** Plausible times of each segment, seconds: outside them a row has a bad time. */
export const SEGMENT_SECONDS: Record<string, [number, number]> = { L600: [26, 50], L400: [17, 34], L200: [8, 18] };

const SECTIONAL_COLUMNS: readonly ColumnDef[] = [
  {
    key: 'date',
    heading: 'Date',
    aliases: ['Race Date', 'Meeting Date'],
    kind: 'date',
    required: true,
    help: 'The race day: YYYY-MM-DD, DD/MM/YYYY or a date cell',
  },
  {
    key: 'course',
    heading: 'Course',
    aliases: ['Venue', 'Track'],
    kind: 'text',
    required: true,
    max: 100,
    help: 'The course of a race meeting that day',
  },
  {
    key: 'race',
    heading: 'Race',
    aliases: ['Race No', 'Race Number', 'R'],
    kind: 'int',
    required: true,
    min: 1,
    max: 30,
    help: 'Race number',
  },
  {
    key: 'horse',
    heading: 'Horse',
    aliases: ['Horse Name', 'Runner'],
    kind: 'text',
    required: true,
    max: 100,
    help: "The runner's horse (or leave it out and match by tab number)",
  },
  {
    key: 'tab',
    heading: 'Tab',
    aliases: ['Tab No', 'Tab Number', 'No'],
    kind: 'int',
    required: false,
    min: 1,
    max: 30,
    help: 'Tab number (needed when runners are matched by tab)',
  },
  { key: 'segment', heading: 'Segment', aliases: ['Split', 'Sectional'], kind: 'segment', required: true, help: 'L600, L400 or L200' },
  {
    key: 'time',
    heading: 'Time',
    aliases: ['Time Seconds', 'Seconds'],
    kind: 'seconds',
    required: true,
    min: 8,
    max: 50,
    help: 'Seconds over the segment, e.g. 34.85',
  },
];

const SectionalFk = z.object({ runner: z.enum(['horse', 'tab']).default('horse') });

const runnerRow = z.object({
  id: pgInt.nullable(),
  date: z.string(),
  course: z.string(),
  race_number: pgInt.nullable(),
  horse: z.string().nullable(),
  tab_number: pgInt.nullable(),
  scratched: z.boolean().nullable(),
});
type RunnerRow = z.output<typeof runnerRow>;

const sectional: ImportAreaDef = {
  area: 'Sectional',
  title: 'Sectional times',
  prefix: '/api/sectional',
  table: 'sectional_times',
  columns: SECTIONAL_COLUMNS,
  fk: [
    {
      key: 'runner',
      label: 'Runner',
      options: [
        { value: 'horse', label: "by the horse's name among the race's runners" },
        { value: 'tab', label: 'by tab number in the race' },
      ],
    },
  ],
  fkSchema: SectionalFk,
  defaultFk: { runner: 'horse' },
  required: (fk) => new Set(['date', 'course', 'race', 'segment', 'time', fk.runner === 'tab' ? 'tab' : 'horse']),
  label: (v) => `${v.date ?? '?'} ${v.course ?? '?'} R${v.race ?? '?'} ${v.horse ?? `tab ${v.tab ?? '?'}`} ${v.segment ?? '?'}`,

  async resolve(dest, records, fk) {
    const byTab = fk.runner === 'tab';
    const dates = new Set<string>();
    const courses = new Set<string>();
    for (const r of records) {
      if (r.values.date !== null) dates.add(String(r.values.date));
      if (r.values.course !== null) courses.add(String(r.values.course).toLowerCase());
    }
    const found =
      dates.size && courses.size
        ? parseRows(
            'the runners of the meetings',
            runnerRow,
            await dest.query(
              `SELECT ru.id, m.date::text AS date, lower(c.name) AS course, r.race_number, lower(h.name) AS horse, ru.tab_number, ru.scratched
             FROM meetings m JOIN courses c ON c.id = m.course_id
             LEFT JOIN races r ON r.meeting_id = m.id LEFT JOIN runners ru ON ru.race_id = r.id LEFT JOIN horses h ON h.id = ru.horse_id
             WHERE NOT m.is_trial AND m.date = ANY($1::date[]) AND lower(c.name) = ANY($2::text[])`,
              [[...dates], [...courses]],
            ),
          )
        : [];
    // meeting → race number → runners (by horse name and by tab number)
    const meetings = new Map<string, Map<number, { byHorse: Map<string, RunnerRow>; byTab: Map<number, RunnerRow> }>>();
    for (const row of found) {
      const mk = key(row.date, row.course);
      const races = meetings.get(mk) ?? new Map();
      meetings.set(mk, races);
      if (row.race_number === null) continue;
      const race = races.get(Number(row.race_number)) ?? { byHorse: new Map(), byTab: new Map() };
      races.set(Number(row.race_number), race);
      if (row.id === null) continue;
      if (row.horse !== null) race.byHorse.set(row.horse, row);
      if (row.tab_number !== null) race.byTab.set(Number(row.tab_number), row);
    }
    const fkCounts: Record<string, number> = { meeting: 0, race: 0, runner: 0 };
    const rows: WriteRow[] = [];
    for (const record of records) {
      const v = record.values;
      if (v.segment !== null && v.time !== null) {
        const [lo, hi] = SEGMENT_SECONDS[String(v.segment)] ?? [0, Infinity];
        if (Number(v.time) < lo || Number(v.time) > hi)
          record.problems.push(
            problem('time', 'bad time', `Time ${v.time} s is outside ${lo} to ${hi} s, the plausible range for ${v.segment}`),
          );
      }
      if (v.date === null || v.course === null) continue;
      const races = meetings.get(key(v.date, v.course));
      if (!races) {
        record.problems.push(problem('course', 'unknown meeting', `There is no race meeting at ${v.course} on ${v.date}`));
        continue;
      }
      count(fkCounts, 'meeting');
      if (v.race === null) continue;
      const race = races.get(Number(v.race));
      if (!race) {
        record.problems.push(problem('race', 'unknown race', `The meeting at ${v.course} on ${v.date} has no race ${v.race}`));
        continue;
      }
      count(fkCounts, 'race');
      const who = byTab ? v.tab : v.horse;
      if (who === null) continue;
      const runner = byTab ? race.byTab.get(Number(who)) : race.byHorse.get(String(who).toLowerCase());
      if (!runner) {
        record.problems.push(
          problem(
            byTab ? 'tab' : 'horse',
            'unknown horse',
            byTab
              ? `Race ${v.race} has no runner with tab number ${who}`
              : `${who} is not a runner in race ${v.race} at ${v.course} on ${v.date}`,
          ),
        );
        continue;
      }
      if (runner.scratched) {
        record.problems.push(
          problem(byTab ? 'tab' : 'horse', 'scratched runner', `${who} was scratched from race ${v.race}: it has no sectional times`),
        );
        continue;
      }
      count(fkCounts, 'runner');
      if (record.problems.length) continue;
      rows.push({ line: record.line, key: key(runner.id, v.segment), values: [Number(runner.id), String(v.segment), Number(v.time)] });
    }
    return { rows, fkCounts };
  },

  async write(tx, rows) {
    const column = (i: number) => rows.map((r) => r.values[i] ?? null);
    const [row] = parseRows(
      'the written counts',
      writeCounts,
      await tx.query(
        `WITH input AS (SELECT * FROM unnest($1::int[], $2::text[], $3::numeric[]) AS t(runner_id, segment, time_seconds)),
       existing AS (
         SELECT DISTINCT ON (s.runner_id, s.segment) s.id, s.runner_id, s.segment, s.time_seconds FROM sectional_times s
         JOIN input i ON i.runner_id = s.runner_id AND i.segment = s.segment ORDER BY s.runner_id, s.segment, s.id),
       upd AS (
         UPDATE sectional_times s SET time_seconds = i.time_seconds FROM existing e JOIN input i ON i.runner_id = e.runner_id AND i.segment = e.segment
         WHERE s.id = e.id AND e.time_seconds <> i.time_seconds RETURNING s.id),
       ins AS (
         INSERT INTO sectional_times (runner_id, segment, time_seconds) SELECT i.runner_id, i.segment, i.time_seconds FROM input i
         WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.runner_id = i.runner_id AND e.segment = i.segment) RETURNING id)
       SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM upd)::int AS updated`,
        [column(0), column(1), column(2)],
      ),
    );
    const inserted = Number(row?.inserted ?? 0);
    const updated = Number(row?.updated ?? 0);
    return { inserted, updated, unchanged: rows.length - inserted - updated };
  },
};

export const IMPORT_AREA_DEFS: Record<ImportArea, ImportAreaDef> = { BarrierTrials: barrierTrials, Sectional: sectional };

/** `/BarrierTrials` or `/Sectional` pages; `barriertrials` or `sectional` in the JSON prefix. */
export const areaDef = (area: ImportArea): ImportAreaDef => IMPORT_AREA_DEFS[area];

/** The foreign-key choices of a form or of stored JSON, defaults filled in; unknown values refused by the schema. */
export function fkConfig(def: ImportAreaDef, raw: unknown): Record<string, string> {
  const parsed = def.fkSchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : { ...def.defaultFk };
}

const countRow = z.object({ n: pgCount });

/** How many rows an import area's destination table holds. */
export async function destinationCount(sql: Reader, table: string): Promise<number> {
  return parseOne(`the count of ${table}`, countRow, await sql.query(`SELECT count(*) AS n FROM ${table}`)).n;
}
