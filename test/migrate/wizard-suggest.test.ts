import { describe, expect, it } from 'vitest';
import { chooseKey, constraintKey, keyCandidates } from '../../workers/migrate/src/engine/natural-keys';
import {
  inferCodeMap,
  suggestColumns,
  suggestDestTable,
  suggestTransform,
  type TableSample,
} from '../../workers/migrate/src/engine/suggest';
import type { ColumnInfo, SchemaInfo, TableInfo, TablePlan } from '../../workers/migrate/src/engine/types';

const col = (ColumnName: string, DataType = 'text', IsPrimaryKey = false): ColumnInfo => ({
  ColumnName,
  DataType,
  IsPrimaryKey,
  nullable: !IsPrimaryKey,
  hasDefault: IsPrimaryKey,
});
const table = (name: string, columns: ColumnInfo[]): TableInfo => ({
  name,
  columns,
  primaryKey: columns.filter((c) => c.IsPrimaryKey).map((c) => c.ColumnName),
  estimatedRows: 0,
});
const sample = (name: string, columns: Record<string, (string | null)[]>): TableSample => ({
  table: name,
  rows: Object.values(columns)[0]?.length ?? 0,
  columns,
});

const venue = table('venue', [
  col('venue_id', 'integer', true),
  col('venue_code'),
  col('venue_name'),
  col('state_code'),
  col('country_code'),
  col('category_code'),
]);
const courses = table('courses', [col('id', 'integer', true), col('name'), col('state'), col('country'), col('category')]);
const trainer = table('trainer', [col('trainer_id', 'integer', true), col('full_name'), col('home_state')]);
const trainers = table('trainers', [col('id', 'integer', true), col('name'), col('state')]);
const pairs = (list: { source: string; dest: string }[]) => list.map((s) => `${s.source}→${s.dest}`);

describe('column suggestions by name', () => {
  it('matches the known pairs and says why', () => {
    expect(pairs(suggestColumns(trainer, trainers))).toEqual(['full_name→name', 'home_state→state']);
    const v = suggestColumns(venue, courses);
    expect(pairs(v)).toEqual(['venue_name→name', 'state_code→state', 'country_code→country', 'category_code→category']);
    expect(v[0]!.reason).toBe("venue_name without the table's name venue");
    expect(v[2]!.reason).toBe('country_code without the suffix _code');
  });

  it('spells out abbreviations, drops _id/_ref/_no/_flag suffixes and ignores case and separators', () => {
    const from = table('race_event', [
      col('race_id', 'integer', true),
      col('RaceNo', 'integer'),
      col('meeting_ref', 'integer'),
      col('apprentice_flag'),
      col('Class-Desc'),
    ]);
    const to = table('races', [
      col('id', 'integer', true),
      col('race_number', 'smallint'),
      col('meeting', 'integer'),
      col('apprentice', 'boolean'),
      col('class_description'),
    ]);
    expect(pairs(suggestColumns(from, to))).toEqual([
      'RaceNo→race_number',
      'meeting_ref→meeting',
      'apprentice_flag→apprentice',
      'Class-Desc→class_description',
    ]);
  });

  it('never maps to the destination key, never maps one destination column twice, and skips incompatible types', () => {
    const from = table('horse', [
      col('horse_id', 'integer', true),
      col('id', 'integer'),
      col('name'),
      col('horse_name'),
      col('foaled', 'text'),
    ]);
    const to = table('horses', [col('id', 'integer', true), col('name'), col('foaled', 'date')]);
    const s = sample('horse', { horse_id: ['1'], id: ['9'], name: ['A'], horse_name: ['A'], foaled: ['not a date'] });
    expect(pairs(suggestColumns(from, to, { sourceSample: s }))).toEqual(['name→name']);
  });

  it('matches by sampled values when no name explains a column', () => {
    const from = table('club', [col('club_id', 'integer', true), col('label')]);
    const to = table('clubs', [col('id', 'integer', true), col('title')]);
    const s = sample('club', { club_id: ['1', '2', '3'], label: ['Alpha', 'Beta', 'Gamma'] });
    const d = sample('clubs', { id: ['1', '2', '3', '4'], title: ['Alpha', 'Beta', 'Gamma', 'Delta'] });
    const [only] = suggestColumns(from, to, { sourceSample: s, destSample: d });
    expect(only).toMatchObject({ source: 'label', dest: 'title', reason: '3 of 3 sampled values of label appear in clubs.title' });
  });
});

describe('transforms from sampled values', () => {
  it('proposes text dates with their format, flags to boolean and code maps', () => {
    expect(suggestTransform(col('d'), col('date', 'date'), ['31/01/2024', '01/02/2024'], [])).toMatchObject({
      transform: { kind: 'date', format: 'DD/MM/YYYY' },
    });
    expect(suggestTransform(col('d'), col('date', 'date'), ['01/31/2024'], [])).toMatchObject({
      transform: { kind: 'date', format: 'MM/DD/YYYY' },
    });
    expect(suggestTransform(col('d'), col('date', 'date'), ['2024-01-31'], [])).toEqual({ compatible: true });
    expect(suggestTransform(col('t'), col('start', 'timestamp with time zone'), ['2024-01-31 13:05'], [])).toMatchObject({
      transform: { kind: 'timestamp', format: 'YYYY-MM-DD HH24:MI' },
    });
    expect(suggestTransform(col('f'), col('b', 'boolean'), ['Y', 'N'], []).transform).toEqual({
      kind: 'map',
      values: { Y: 'true', N: 'false' },
    });
    expect(suggestTransform(col('f'), col('b', 'boolean'), ['1', '0'], []).transform).toEqual({
      kind: 'map',
      values: { '1': 'true', '0': 'false' },
    });
    expect(suggestTransform(col('f'), col('b', 'boolean'), ['maybe'], []).compatible).toBe(false);
    expect(inferCodeMap(['AU', 'NZ'], ['AUS', 'NZ'])).toEqual({ AU: 'AUS', NZ: 'NZ' });
    expect(inferCodeMap(['M', 'P', 'C'], ['Metropolitan', 'Provincial', 'Country'])).toEqual({
      M: 'Metropolitan',
      P: 'Provincial',
      C: 'Country',
    });
    expect(inferCodeMap(['600', '400'], ['L600', 'L400'])).toEqual({ '600': 'L600', '400': 'L400' });
    // A code that names two values, or none, gives no map.
    expect(inferCodeMap(['C'], ['Colt', 'Country'])).toBeNull();
    expect(inferCodeMap(['X'], ['Alpha'])).toBeNull();
  });

  it('suggests courses for venue from the values they share', () => {
    const dest: SchemaInfo = { tables: [courses, trainers], foreignKeys: [] };
    const names = ['Randwick', 'Rosehill', 'Flemington', 'Caulfield'];
    const suggestion = suggestDestTable(venue, dest, {
      source: sample('venue', { venue_name: names }),
      dest: new Map([['courses', sample('courses', { name: names })]]),
    });
    expect(suggestion).toEqual({ table: 'courses', reason: '4 of 4 sampled values of venue.venue_name appear in courses.name' });
    expect(suggestDestTable(trainer, dest)).toMatchObject({ table: 'trainers' });
  });
});

describe('natural key proposals', () => {
  const plan: TablePlan = {
    sourceTable: 'venue',
    destTable: 'courses',
    sourceKey: ['venue_id'],
    destKey: 'id',
    foreignKeys: [],
    columns: [
      { source: 'venue_name', dest: 'name' },
      { source: 'state_code', dest: 'state' },
    ],
  };

  it('takes a unique constraint the mapped columns cover', () => {
    expect(constraintKey(plan, [{ table: 'courses', name: 'courses_name_key', columns: ['name'] }])).toEqual({
      columns: ['name'],
      reason: 'unique constraint courses_name_key covers name',
      source: 'constraint',
    });
    expect(constraintKey(plan, [{ table: 'courses', name: 'courses_code_key', columns: ['code'] }])).toBeNull();
  });

  it('else a column set unique in the sample and the destination, with the figures', () => {
    const candidates = keyCandidates(plan, courses);
    expect(candidates[0]).toEqual(['name']);
    const s = sample('venue', { venue_name: ['A', 'B', 'C'], state_code: ['NSW', 'NSW', 'VIC'] });
    const stats = candidates.map((set) =>
      set.join() === 'name'
        ? { rows: 137, distinct: 137, withNull: 0, capped: false }
        : { rows: 137, distinct: 8, withNull: 0, capped: false },
    );
    expect(chooseKey(plan, candidates, stats, s)).toEqual({
      columns: ['name'],
      reason: 'venue_name is unique in 3 sampled source rows and in courses (137 rows)',
      source: 'sample',
    });
    // Duplicates in the destination or in the sample: no proposal.
    expect(chooseKey(plan, [['name']], [{ rows: 137, distinct: 136, withNull: 0, capped: false }], s)).toBeNull();
    expect(
      chooseKey(plan, [['name']], [{ rows: 137, distinct: 137, withNull: 0, capped: false }], sample('venue', { venue_name: ['A', 'a'] })),
    ).toBeNull();
  });
});
