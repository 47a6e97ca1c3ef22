import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { compileCondition } from '../../workers/migrate/src/engine/condition';
import { introspectSql } from '../../workers/migrate/src/engine/introspect';
import { introspect, listTables, tableColumns, testConnection } from '../../workers/migrate/src/engine/operations';
import { orderTables } from '../../workers/migrate/src/engine/order';
import { normaliseName, parseMappingDocument, suggestTablePlan, validatePlan } from '../../workers/migrate/src/engine/plan';
import { FilterError, HostNotAllowedError, type ForeignKey, type SchemaInfo } from '../../workers/migrate/src/engine/types';
import { testFilter } from '../../workers/migrate/src/engine/filter';
import { engineEnv, legacyConnection, openLegacy, openLegacyDirect, openRacing } from './engine-support';

const fk = (childTable: string, childColumn: string, parentTable: string, nullable = true): ForeignKey => ({
  childTable,
  childColumn,
  parentTable,
  parentColumn: 'id',
  nullable,
});

describe('orderTables', () => {
  it('puts parents before children and keeps the given order among equals', () => {
    const result = orderTables(
      ['runners', 'races', 'horses', 'meetings', 'courses'],
      [
        fk('runners', 'race_id', 'races', false),
        fk('runners', 'horse_id', 'horses', false),
        fk('races', 'meeting_id', 'meetings', false),
        fk('meetings', 'course_id', 'courses', false),
      ],
    );
    expect(result).toEqual({ order: ['horses', 'courses', 'meetings', 'races', 'runners'], deferred: [] });
  });

  it('ignores foreign keys to tables outside the run and defers self-references', () => {
    const self = fk('horses', 'dam_id', 'horses');
    const result = orderTables(
      ['runners', 'horses'],
      [fk('runners', 'race_id', 'races', false), fk('runners', 'horse_id', 'horses', false), self],
    );
    expect(result).toEqual({ order: ['horses', 'runners'], deferred: [self] });
  });

  it('breaks a cycle at its nullable edge, whichever table comes first', () => {
    const captain = fk('teams', 'captain_id', 'players', true);
    const team = fk('players', 'team_id', 'teams', false);
    expect(orderTables(['players', 'teams'], [team, captain])).toEqual({ order: ['teams', 'players'], deferred: [captain] });
    expect(orderTables(['teams', 'players'], [captain, team])).toEqual({ order: ['teams', 'players'], deferred: [captain] });
  });

  it('breaks a longer cycle once and still orders the tables outside it', () => {
    const edges = [fk('a', 'b_id', 'b', false), fk('b', 'c_id', 'c', false), fk('c', 'a_id', 'a', true), fk('d', 'a_id', 'a', false)];
    const result = orderTables(['d', 'c', 'b', 'a'], edges);
    expect(result.deferred).toEqual([edges[2]]);
    expect(result.order).toEqual(['a', 'b', 'c', 'd'].sort((x, y) => result.order.indexOf(x) - result.order.indexOf(y)));
    expect(result.order.indexOf('c')).toBeLessThan(result.order.indexOf('b'));
    expect(result.order.indexOf('b')).toBeLessThan(result.order.indexOf('a'));
    expect(result.order.indexOf('a')).toBeLessThan(result.order.indexOf('d'));
  });
});

describe('filters', () => {
  const column = (name: string, type: string) => ({
    ColumnName: name,
    DataType: type,
    IsPrimaryKey: false,
    nullable: true,
    hasDefault: false,
  });
  const schema: SchemaInfo = {
    tables: [
      {
        name: 'race_meeting',
        columns: [column('venue_id', 'integer'), column('meeting_date', 'text'), column('trial_flag', 'text'), column('going', 'text')],
        primaryKey: [],
        estimatedRows: 0,
      },
    ],
    foreignKeys: [],
  };
  const compile = (text: string) => compileCondition(text, { table: 'race_meeting', schema }).sql;

  it('accepts plain conditions and prints them from the tree', () => {
    expect(compile(" meeting_date LIKE '%/11/2026' AND venue_id > 3 ")).toBe(`(("meeting_date" LIKE '%/11/2026') AND ("venue_id" > 3))`);
    expect(compile(`"trial_flag" = 'N' AND going IN ('a;b', 'Good 4')`)).toBe(`(("trial_flag" = 'N') AND ("going" IN ('a;b', 'Good 4')))`);
  });

  it.each([
    ['', 'empty'],
    ['1=1; DELETE FROM venue', 'semicolon'],
    ['WHERE venue_id = 1', 'WHERE'],
    ['venue_id IN (SELECT 1) OR (DELETE FROM venue) IS NULL', 'not a condition'],
    ['pg_sleep(10) IS NULL', 'pg_sleep'],
    ["nextval('s') > 0", 'nextval'],
    ['(venue_id = 1', 'not a condition'],
    ["going = 'unterminated", 'quote'],
    ['a\u0000b', 'NUL'],
    ['x'.repeat(2_001), 'longer'],
  ])('refuses %j (%s)', (filter, reason) => {
    expect(() => compile(filter)).toThrow(FilterError);
    expect(() => compile(filter)).toThrow(new RegExp(reason, 'i'));
  });
});

describe('filters on the source', () => {
  it('counts the rows a filter keeps', async () => {
    const all = await testFilter(engineEnv, legacyConnection(), 'venue', 'true');
    const some = await testFilter(engineEnv, legacyConnection(), 'venue', "state_code = 'NSW'");
    expect(all.count).toBeGreaterThan(some.count);
    expect(some.count).toBeGreaterThan(0);
  });

  it('reports the database error of a bad filter as a FilterError', async () => {
    await expect(testFilter(engineEnv, legacyConnection(), 'venue', 'no_such_column = 1')).rejects.toThrow(FilterError);
    await expect(testFilter(engineEnv, legacyConnection(), 'venue', "venue_id = 'x'")).rejects.toThrow(FilterError);
  });

  it('never runs a write hidden in a function call', async () => {
    const admin = openLegacyDirect();
    const name = `fx_${Math.random().toString(36).slice(2, 8)}`;
    try {
      await admin.query(`CREATE TABLE ${name}_log (n integer)`);
      await admin.query(
        `CREATE FUNCTION ${name}_bump() RETURNS integer LANGUAGE sql AS $$ INSERT INTO ${name}_log VALUES (1) RETURNING 0 $$`,
      );
      // Refused by the allow-list before anything runs; were it sent, the read-only transaction would refuse the write.
      await expect(testFilter(engineEnv, legacyConnection(), 'venue', `venue_id > ${name}_bump()`)).rejects.toThrow(`${name}_bump`);
      expect(await admin.query(`SELECT * FROM ${name}_log`)).toEqual([]);
      // A subquery over one of the source's own tables is a condition.
      await expect(
        testFilter(engineEnv, legacyConnection(), 'venue', 'venue_id IN (SELECT venue_id FROM race_meeting)'),
      ).resolves.toMatchObject({ count: expect.any(Number) });
    } finally {
      await admin.query(`DROP FUNCTION IF EXISTS ${name}_bump()`);
      await admin.query(`DROP TABLE IF EXISTS ${name}_log`);
      await admin.end();
    }
  });

  it('refuses a host outside the allow-list before connecting', async () => {
    await expect(testFilter(engineEnv, { ...legacyConnection(), host: '10.0.0.1' }, 'venue', 'true')).rejects.toBeInstanceOf(
      HostNotAllowedError,
    );
    const result = await testConnection(engineEnv, { ...legacyConnection(), host: 'metadata.internal' });
    expect(result).toEqual({ success: false, message: expect.stringContaining('not in the allowed hosts') });
  });
});

describe('introspection and plans', () => {
  let source: Sql;
  let dest: Sql;
  let sourceSchema: SchemaInfo;
  let destSchema: SchemaInfo;
  beforeAll(async () => {
    source = openLegacy();
    dest = openRacing();
    sourceSchema = await introspectSql(source);
    destSchema = await introspectSql(dest, { hideEngineTables: true });
  });
  afterAll(() => Promise.all([source.end(), dest.end()]));

  it('reads tables, columns, keys and foreign keys', async () => {
    const runners = destSchema.tables.find((t) => t.name === 'runners')!;
    expect(runners.primaryKey).toEqual(['id']);
    expect(runners.columns.find((c) => c.ColumnName === 'weight')).toEqual({
      ColumnName: 'weight',
      DataType: 'numeric(4,1)',
      IsPrimaryKey: false,
      nullable: false,
      hasDefault: false,
    });
    expect(runners.columns.find((c) => c.ColumnName === 'id')).toMatchObject({ IsPrimaryKey: true, hasDefault: true });
    expect(destSchema.foreignKeys).toContainEqual({
      childTable: 'runners',
      childColumn: 'jockey_id',
      parentTable: 'jockeys',
      parentColumn: 'id',
      nullable: true,
    });
    expect(destSchema.tables.map((t) => t.name)).not.toContain('migration_id_mappings');
    expect(sourceSchema.foreignKeys).toContainEqual(
      expect.objectContaining({ childTable: 'race_entry', childColumn: 'horse_id', parentTable: 'horse' }),
    );
    const tables = await listTables(engineEnv, legacyConnection());
    expect(tables.map((t) => t.name)).toContain('race_entry');
    expect(await tableColumns(engineEnv, 'destination', 'no_such_table')).toBeNull();
    expect((await introspect(engineEnv, 'destination')).tables.length).toBe(destSchema.tables.length);
  });

  it('suggests a plan by normalised names', () => {
    expect(normaliseName('tblRaceEntries')).toBe(normaliseName('race_entry'));
    const plan = suggestTablePlan('horse', sourceSchema, destSchema)!;
    expect(plan).toMatchObject({ sourceTable: 'horse', destTable: 'horses', sourceKey: ['horse_id'], destKey: 'id' });
    expect(plan.columns).toEqual(
      expect.arrayContaining([
        { source: 'horse_name', dest: 'name' },
        { source: 'sire_name', dest: 'sire' },
        { source: 'country_code', dest: 'country' },
      ]),
    );
    const entries = suggestTablePlan('race_entry', sourceSchema, destSchema);
    expect(entries).toBeNull();
    const trials = suggestTablePlan('trial_result', sourceSchema, destSchema);
    expect(trials).toBeNull();
  });

  it('the legacy mapping document is valid against both schemas', () => {
    const document = parseMappingDocument(JSON.parse(JSON.stringify(LEGACY_MAPPING)));
    const plans = document.tables.map((t) => ({ ...t, foreignKeys: destSchema.foreignKeys.filter((f) => f.childTable === t.destTable) }));
    expect(validatePlan(plans, sourceSchema, destSchema).filter((i) => i.level === 'error')).toEqual([]);
  });

  it('finds what would stop a run', () => {
    const issues = validatePlan(
      [
        {
          sourceTable: 'horse',
          destTable: 'horses',
          sourceKey: ['nope'],
          destKey: 'id',
          columns: [
            { source: 'horse_name', dest: 'name' },
            { source: 'x', dest: 'name' },
          ],
          naturalKey: ['sire'],
          foreignKeys: [],
        },
      ],
      sourceSchema,
      destSchema,
    );
    const messages = issues.map((i) => i.message).join('\n');
    expect(messages).toMatch(/Source key column nope/);
    expect(messages).toMatch(/Source column x does not exist/);
    expect(messages).toMatch(/mapped twice/);
    expect(messages).toMatch(/foaling_year is NOT NULL/);
    expect(messages).toMatch(/Natural key column sire/);
  });

  it('refuses a malformed mapping document with the problems listed', () => {
    expect(() => parseMappingDocument({ version: 2, tables: [] })).toThrow(/version/);
    expect(() =>
      parseMappingDocument({ version: 1, tables: [{ sourceTable: 'a', destTable: 'b', destKey: 'id', sourceKey: [], columns: [] }] }),
    ).toThrow(/sourceKey/);
    expect(() =>
      parseMappingDocument({
        version: 1,
        tables: [
          {
            sourceTable: 'a',
            destTable: 'b',
            destKey: 'id',
            sourceKey: ['k'],
            columns: [{ source: 'a', dest: 'b', transform: { kind: 'sql', text: 'x' } }],
          },
        ],
      }),
    ).toThrow(/transform/);
  });
});
