// What the two import areas share: natural keys, problems, and the look-ups of horses, trainers and
// jockeys by name or id in the racing database, checked as they are read.

import { z } from 'zod';
import { parseRows, pgInt } from '#shared/pg.ts';
import type { Reader } from '../../engine/db.ts';
import type { ColumnDef, Problem, SheetRecord } from '../records.ts';

export const key = (...parts: unknown[]) => parts.map((p) => String(p).toLowerCase()).join('\u001f');
export const problem = (column: string, kind: Problem['kind'], message: string): Problem => ({ column, kind, message });

// The destination's rows as these look-ups and writes read them, checked as they are read.
const idName = z.object({ id: pgInt, name: z.string() });
const idOnly = z.object({ id: pgInt });
export const trialMeeting = z.object({ id: pgInt, date: z.string(), course: z.string() });
export const writeCounts = z.object({ inserted: pgInt, updated: pgInt });

/** A sheet's first two columns, which find each row's meeting: its day and its course (by name). */
export function meetingColumns(dateAlias: string, day: string, meeting: string): ColumnDef[] {
  return [
    {
      key: 'date',
      heading: 'Date',
      aliases: [dateAlias, 'Meeting Date'],
      kind: 'date',
      required: true,
      help: `${day}: YYYY-MM-DD, DD/MM/YYYY or a date cell`,
    },
    {
      key: 'course',
      heading: 'Course',
      aliases: ['Venue', 'Track'],
      kind: 'text',
      required: true,
      max: 100,
      help: `The course of ${meeting} that day`,
    },
  ];
}

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
export async function personResolver(dest: Reader, table: PersonTable, column: string, heading: string, mode: string, values: unknown[]) {
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

export const count = (counts: Record<string, number>, name: string) => {
  counts[name] = (counts[name] ?? 0) + 1;
};
