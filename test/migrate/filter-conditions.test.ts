import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { compileCondition } from '../../workers/migrate/src/engine/condition';
import { CAST_TYPES, FUNCTIONS } from '../../workers/migrate/src/engine/condition-rules';
import { testFilter } from '../../workers/migrate/src/engine/filter';
import { introspect } from '../../workers/migrate/src/engine/operations';
import { FilterError, type SchemaInfo } from '../../workers/migrate/src/engine/types';
import { fuzzRuns, fuzzSeed } from '../support/openapi-fuzz';
import { watchSql } from '../support/sql-watch';
import { engineEnv, legacyConnection } from './engine-support';
import { type Client, legacyConfigurationForm, signIn } from './helpers';
import { newSession } from './wizard-flow';

// Operator conditions are parsed and accepted by an allow-list (engine/condition.ts); the
// statement sent to the source is printed from the tree. These tests send what a black-box probe
// sent, and variants of it, and watch what reaches the database.

let operator: Client;
let source: SchemaInfo;

beforeAll(async () => {
  operator = await signIn('filterOperator');
  await operator.page('/Configuration/Create');
  expect((await operator.post('/Configuration/Create', legacyConfigurationForm('Filters'))).status).toBe(302);
  source = await introspect(engineEnv, legacyConnection());
});

afterEach(() => vi.restoreAllMocks());

async function testFilterApi(Filter: string, TableName = 'horse') {
  const started = Date.now();
  const res = await operator.postJson('/api/table/test-filter', { TableName, Filter, OriginalCount: 0 });
  expect(res.status, Filter).toBe(200);
  return { body: (await res.json()) as { success: boolean; error?: string; count?: number }, ms: Date.now() - started };
}

describe('the requests of the probe', () => {
  it.each([
    ['"pg_sleep"(10) is not null', 'pg_sleep'],
    [`cast(array_to_string(array(select "pg_ls_dir"('.')), ',') as int) = 1`, 'array_to_string'],
    [`cast("pg_read_file"('/etc/hostname') as int) = 1`, 'pg_read_file'],
    ['(select count(*) from pg_authid) > 0', 'select count'],
    ['cast(version() as int) = 1', 'version()'],
    ['cast(current_user as int) = 1', 'current_user'],
  ])('refuses %s, naming %s, and nothing of it reaches the database', async (filter, part) => {
    const statements = watchSql();
    const { body, ms } = await testFilterApi(filter);
    expect(body.success).toBe(false);
    expect(body.error).toContain(part);
    expect(body.error).not.toMatch(/PG_VERSION|pg_hba|could not open file|PostgreSQL \d|invalid input syntax/);
    // Only the schema read went to the source: no count, no function of the filter.
    expect(statements.filter((s) => /\bcount\(\*\)::bigint AS n FROM/.test(s))).toEqual([]);
    expect(statements.join('\n')).not.toMatch(/pg_sleep|pg_ls_dir|pg_read_file|version\(\)|current_user/i);
    expect(ms).toBeLessThan(8_000);
  });
});

describe('variants', () => {
  it.each([
    ['quoted', '"PG_SLEEP"(1) is null', 'PG_SLEEP'],
    ['schema-qualified', 'pg_catalog.pg_sleep(1) is null', 'functions are not named with a schema'],
    ['schema-qualified and quoted', '"pg_catalog"."pg_sleep"(1) is null', 'pg_sleep'],
    ['a Unicode-escaped name', 'U&"pg\\005fsleep"(1) is null', 'Unicode escapes'],
    ['a Unicode-escaped string', "horse_name = U&'\\0041'", 'Unicode escapes'],
    ['a dollar-quoted string', 'horse_name = $$x$$', 'dollar'],
    ['a tagged dollar-quoted string', "horse_name = $q$x' or pg_sleep(1) is null or '$q$", 'dollar'],
    ['a function after a line comment', 'horse_id > 0 --\n or pg_sleep(1) is null', 'pg_sleep'],
    ['a function after a block comment', 'horse_id > 0 /* x */ or pg_sleep(1) is null', 'pg_sleep'],
    ['nested casts', 'cast(cast(cast(version() as text) as varchar(10)) as int) = 1', 'version()'],
    ['pg_sleep inside CASE', 'case when horse_id > 0 then pg_sleep(1) is null else true end', 'pg_sleep'],
    ['a subquery on the system catalogue', 'horse_id in (select oid from pg_class)', 'pg_class'],
    ['a subquery on a qualified catalogue', 'horse_id in (select usesysid from pg_catalog.pg_user)', 'schema'],
    [
      'a subquery inside a subquery',
      'horse_id in (select horse_id from horse where horse_id in (select horse_id from horse))',
      'inside subqueries',
    ],
    [
      'a correlated subquery',
      'horse_id in (select race_meeting_id from race_meeting where race_meeting_id = horse_id)',
      'not a column of race_meeting',
    ],
    ['a scalar subquery', '(select 1) = 1', 'subquery'],
    ['a cast to a catalogue type', "'pg_class'::regclass is not null", 'casts are allowed'],
    ['set_config', "set_config('statement_timeout', '0', false) is not null", 'set_config'],
    ['current_setting', "current_setting('data_directory') = ''", 'current_setting'],
    ['a semicolon', 'true; select pg_sleep(1)', 'semicolon'],
    ['an unknown column', 'no_such_column = 1', 'no_such_column'],
    ['a column of another table', 'pg_authid.rolpassword is null', 'only columns of horse'],
    ['an aggregate', 'count(*) > 0', 'count'],
    ['a regular expression', "horse_name ~ '(a+)+$'", 'operator ~'],
    ['a parameter', 'horse_id = $1', '$'],
  ])('refuses %s', async (_label, filter, part) => {
    const statements = watchSql();
    const { body } = await testFilterApi(filter);
    expect(body, filter).toMatchObject({ success: false });
    expect(body.error, filter).toContain(part);
    expect(
      statements.filter((s) => /count\(\*\)::bigint AS n FROM/.test(s)),
      filter,
    ).toEqual([]);
  });

  it('counts what a person would write, printed from the tree', async () => {
    const statements = watchSql();
    const all = await testFilterApi('true');
    const some = await testFilterApi(`"sex_code" IN ('C', 'G') AND lower(horse_name) LIKE '%a%' AND horse_id NOT BETWEEN -10 AND 0`);
    const nested = await testFilterApi(`horse_id IN (SELECT horse_id FROM race_entry WHERE "placing" = 1) AND NOT (country_code <> 'AUS')`);
    expect(all.body).toMatchObject({ success: true });
    expect(some.body, some.body.error).toMatchObject({ success: true });
    expect(nested.body, nested.body.error).toMatchObject({ success: true });
    expect(some.body.count!).toBeGreaterThan(0);
    expect(some.body.count!).toBeLessThan(all.body.count!);
    const counts = statements.filter((s) => s.includes('count(*)::bigint AS n FROM "horse"'));
    expect(counts).toContain(
      `SELECT count(*)::bigint AS n FROM "horse" WHERE ((("sex_code" IN ('C', 'G')) AND (pg_catalog.lower("horse_name") LIKE '%a%')) AND ("horse_id" NOT BETWEEN (-10) AND 0)) LIMIT $1`,
    );
    expect(
      counts.some((s) => s.includes(`"horse_id" IN (SELECT s1."horse_id" FROM "public"."race_entry" AS s1 WHERE (s1."placing" = 1))`)),
    ).toBe(true);
  });

  it('keeps a quote or a backslash inside a string a value', async () => {
    // Read as PostgreSQL reads it: '' is a quote inside the text, a backslash is itself, -- starts a comment.
    const quoted = await testFilterApi(String.raw`horse_name = 'x'' or true or ''' or horse_name = 'a\' or horse_id < 0 -- or true`);
    expect(quoted.body).toEqual({ success: true, count: 0, originalCount: 0 });
    const commented = await testFilterApi('horse_id < 0 -- or true\n or horse_id > 0');
    expect(commented.body).toMatchObject({ success: true, count: expect.any(Number) });
    expect(commented.body.count).toBeGreaterThan(0);
  });
});

describe('a condition that fails on the source', () => {
  it('is explained in the app’s words: which columns, which types, the SQLSTATE class; no value from the database', async () => {
    const cast = await testFilterApi('cast(horse_name as int) = 1');
    expect(cast.body.success).toBe(false);
    expect(cast.body.error).toMatch(/SQLSTATE 22P02, data exception/);
    expect(cast.body.error).toContain('horse.horse_name (text)');
    // The database's message quotes the first value it could not read: a horse's name.
    expect(cast.body.error).not.toMatch(/invalid input syntax|: "/);

    const types = await testFilterApi("horse_id = 'x' || 1");
    expect(types.body.success).toBe(false);
    expect(types.body.error).toMatch(/SQLSTATE 22P02|SQLSTATE 42883/);
    expect(types.body.error).toContain('horse.horse_id (integer)');

    const division = await testFilterApi('horse_id / 0 = 1');
    expect(division.body.error).toMatch(/division by zero \(SQLSTATE 22012, data exception\)/);
  });

  it('logs the database’s own message for operators', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
    await testFilterApi('cast(horse_name as int) = 1');
    expect(errors.some((line) => line.includes('filter_failed') && line.includes('invalid input syntax'))).toBe(true);
  });
});

describe('the wizard’s filter steps and the engine', () => {
  it('refuses a hostile filter in FilterConfig and RunConfig without running it', async () => {
    // The session is made by TableSelection's first post.
    const sessionId = await newSession(operator, ['trainer']);
    const form = new FormData();
    form.append('sessionId', sessionId!);
    form.append('schemaFile', new Blob([JSON.stringify(LEGACY_MAPPING)], { type: 'application/json' }), 'mapping.json');
    expect(
      (
        await operator.fetch('/Migration/SchemaImport', {
          method: 'POST',
          body: form,
          headers: { RequestVerificationToken: operator.csrf },
        })
      ).status,
    ).toBe(302);
    const statements = watchSql();
    for (const step of ['/Migration/FilterConfig', '/Migration/RunConfig']) {
      const res = await operator.post(step, {
        sessionId: sessionId!,
        'filters[0].TableName': 'trainer',
        'filters[0].Filter': '"pg_sleep"(10) is not null',
      });
      expect(res.status, step).toBe(400);
      expect(await res.text(), step).toContain('pg_sleep');
    }
    expect(statements.join('\n')).not.toContain('pg_sleep');
    const good = await operator.post('/Migration/FilterConfig', {
      sessionId: sessionId!,
      'filters[0].TableName': 'trainer',
      'filters[0].Filter': "lower(full_name) like '%a%'",
    });
    expect(good.status).toBe(302);
  });

  it('refuses the same filter when a stored plan carries it', async () => {
    await expect(testFilter(engineEnv, legacyConnection(), 'horse', 'cast(version() as int) = 1')).rejects.toThrow(FilterError);
    expect(() => compileCondition('pg_sleep(1) is null', { table: 'horse', schema: source })).toThrow(/pg_sleep/);
  });
});

// ---- property: whatever is typed, only allow-listed SQL reaches the database ----

const HORSE_COLUMNS = ['horse_id', 'horse_name', 'country_code', 'foaled', 'sex_code', 'sire_name', 'dam_name'];
const FORBIDDEN_FUNCTIONS = [
  'pg_sleep',
  'version',
  'pg_read_file',
  'pg_ls_dir',
  'set_config',
  'current_setting',
  'lo_import',
  'dblink',
  'txid_current',
  'nextval',
  'query_to_xml',
  'array_to_string',
  'regexp_replace',
  'repeat',
];
const ALLOWED_FUNCTIONS = [...FUNCTIONS.keys()].filter((f) => !['coalesce', 'nullif', 'greatest', 'least', 'now'].includes(f));

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Conditions from a grammar that mixes what is allowed with what is not. */
const conditionText: fc.Arbitrary<string> = fc.letrec<{ value: string; cond: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...HORSE_COLUMNS).chain((c) => fc.constantFrom(c, quoteIdent(c), `horse.${c}`, c.toUpperCase())),
    fc.constantFrom('rolpassword', 'oid', 'pg_authid.rolname', '"pg_catalog"."pg_class"', 'U&"horse\\005fid"'),
    fc.integer({ min: -1000, max: 100000 }).map(String),
    fc.string({ maxLength: 8 }).map(quoteText),
    fc.constantFrom("E'\\x41'", '$$a$$', '$1', 'current_date', 'current_user', 'session_user', 'NULL', 'TRUE'),
    fc.tuple(fc.constantFrom(...ALLOWED_FUNCTIONS, ...FORBIDDEN_FUNCTIONS), tie('value')).map(([f, v]) => `${f}(${v})`),
    fc
      .tuple(fc.constantFrom('pg_sleep', 'version'), fc.constantFrom('pg_catalog.', '"pg_catalog".', ''))
      .map(([f, s]) => `${s}${quoteIdent(f)}(1)`),
    fc
      .tuple(tie('value'), fc.constantFrom('int', 'text', 'date', 'varchar(5)', 'regclass', 'text[]', 'oid'))
      .map(([v, t]) => `cast(${v} as ${t})`),
    fc.tuple(tie('value'), fc.constantFrom('+', '-', '*', '||', '#', '->>')).map(([v, op]) => `(${v} ${op} 1)`),
    fc.tuple(tie('cond'), tie('value'), tie('value')).map(([c, a, b]) => `case when ${c} then ${a} else ${b} end`),
    fc.constantFrom('(select 1)', '(select rolname from pg_authid limit 1)', 'array(select 1)'),
  ),
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(tie('value'), fc.constantFrom('=', '<>', '<', '>=', 'like', 'ilike', '~', '@@', 'similar to'), tie('value'))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('cond'), fc.constantFrom('and', 'or'), tie('cond')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    tie('cond').map((c) => `not (${c})`),
    tie('value').map((v) => `${v} is not null`),
    fc.tuple(tie('value'), fc.array(tie('value'), { minLength: 1, maxLength: 3 })).map(([v, list]) => `${v} in (${list.join(', ')})`),
    fc
      .tuple(tie('value'), fc.constantFrom('horse', 'race_entry', 'pg_authid', 'pg_catalog.pg_class', 'information_schema.tables'))
      .map(([v, t]) => `${v} in (select horse_id from ${t})`),
    fc.tuple(tie('cond'), fc.constantFrom(' --', ' /*', '; select 1', '')).map(([c, tail]) => `${c}${tail}`),
  ),
})).cond;

/** Bare words the printer writes: SQL keywords, allowed types, the subquery aliases. */
const PRINTED_WORDS = new Set([
  'select',
  'count',
  'bigint',
  'as',
  'n',
  'from',
  'where',
  'limit',
  'and',
  'or',
  'not',
  'in',
  'between',
  'like',
  'ilike',
  'is',
  'null',
  'true',
  'false',
  'case',
  'when',
  'then',
  'else',
  'end',
  'cast',
  'extract',
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'current_date',
  'current_time',
  'current_timestamp',
  'localtime',
  'localtimestamp',
  'e',
  'pg_catalog',
  ...[...CAST_TYPES.values()].flatMap((t) => t.name.split(' ')),
]);

/** Everything that is not a string literal, a number or punctuation in a printed statement must be on the lists. */
function offList(statement: string): string[] {
  // String literals: E'…' (backslashes doubled) where a value holds a backslash, else '…'.
  const bare = statement.replace(/E'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'/g, ' ').replace(/\$1\b/, ' ');
  const found: string[] = [];
  for (const [, quoted] of bare.matchAll(/"((?:[^"]|"")*)"/g)) {
    const name = quoted!.replaceAll('""', '"');
    if (
      !HORSE_COLUMNS.includes(name) &&
      !source.tables.some((t) => t.name === name || t.columns.some((c) => c.ColumnName === name)) &&
      name !== 'public'
    )
      found.push(`"${name}"`);
  }
  const words = bare.replace(/"(?:[^"]|"")*"/g, ' ');
  for (const [word] of words.matchAll(/[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?/g)) {
    const lower = word.toLowerCase();
    if (/^s\d+$/.test(lower) || PRINTED_WORDS.has(lower)) continue;
    if (lower.startsWith('pg_catalog.') && [...FUNCTIONS.values()].some((f) => f.print === lower)) continue;
    found.push(word);
  }
  if (/[;$]|--|\/\*/.test(words.replace(/\$1\b/, ''))) found.push('a statement separator, comment or dollar sign');
  return found;
}

describe('property: nothing outside the allow-list reaches the database', () => {
  it('over generated conditions with forbidden nodes', async () => {
    const statements = watchSql();
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(conditionText, async (text) => {
        statements.length = 0;
        try {
          await testFilter(engineEnv, legacyConnection(), 'horse', text);
          accepted++;
        } catch (error) {
          if (!(error instanceof FilterError)) throw error;
          refused++;
          expect(error.message).not.toMatch(/PG_VERSION|could not open file|invalid input syntax|PostgreSQL \d/);
        }
        for (const statement of statements.filter((s) => s.includes('count(*)::bigint AS n FROM "horse"'))) {
          expect(offList(statement), `${text}\n→ ${statement}`).toEqual([]);
        }
        expect(statements.join('\n')).not.toMatch(
          /pg_sleep|pg_authid|pg_read_file|pg_ls_dir|version\(|set_config|current_setting|current_user|session_user/i,
        );
      }),
      { numRuns: inject('fuzzRuns') ? fuzzRuns() : 120, seed: fuzzSeed() },
    );
    // The grammar reaches both sides of the rule.
    expect(accepted).toBeGreaterThan(3);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);
});
