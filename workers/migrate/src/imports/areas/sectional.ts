// Sectional times: the sheet's columns, how its rows find their runner (by horse or TAB number),
// and the one statement that writes a chunk of them into sectional_times.

import { z } from 'zod';
import { parseRows, pgInt } from '#shared/pg.ts';
import type { ColumnDef } from '../records.ts';
import type { ImportAreaDef, WriteRow } from '../areas.ts';
import { key, problem, writeCounts, count, meetingColumns } from './lookups.ts';

/** Plausible times of each segment, seconds: outside them a row has a bad time. */
export const SEGMENT_SECONDS: Record<string, [number, number]> = { L600: [26, 50], L400: [17, 34], L200: [8, 18] };

const SECTIONAL_COLUMNS: readonly ColumnDef[] = [
  ...meetingColumns('Race Date', 'The race day', 'a race meeting'),
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

export const sectional: ImportAreaDef = {
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
