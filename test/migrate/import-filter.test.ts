import { describe, expect, it } from 'vitest';
import { compileSheetFilter, SHEET_FILTER_MAX_LENGTH, SheetFilterError, type FilterRow } from '../../workers/migrate/src/imports/filter';

const COLUMNS = ['date', 'course', 'race', 'horse', 'tab', 'segment', 'time', 'barrier', 'scratched', 'select'];

const ROWS: FilterRow[] = [
  {
    date: '2026-11-01',
    course: 'Randwick',
    race: 1,
    horse: 'Starlight',
    tab: 1,
    segment: 'L600',
    time: 35.2,
    barrier: 3,
    scratched: false,
  },
  {
    date: '2026-11-02',
    course: 'Flemington',
    race: 2,
    horse: 'Star Way',
    tab: 2,
    segment: 'L400',
    time: 23.9,
    barrier: 7,
    scratched: true,
  },
  {
    date: '2026-10-31',
    course: 'RANDWICK',
    race: 3,
    horse: 'Northern Star',
    tab: 3,
    segment: 'L200',
    time: '9.5',
    barrier: null,
    scratched: 'false',
  },
  { date: '2026-12-15', course: 'Rosehill', race: 10, horse: 'Stax', tab: 4, segment: 'L600', time: 36, barrier: 1, scratched: 'TRUE' },
  { date: null, course: null, race: null, horse: null, tab: null, segment: null, time: null, barrier: null, scratched: null },
];

/** The `tab` of each row the filter keeps (the all-null row reads as 'null'). */
function pick(filter: string, rows: readonly FilterRow[] = ROWS): (number | string)[] {
  const f = compileSheetFilter(filter, COLUMNS);
  return rows.filter(f).map((r) => (r.tab === null ? 'null' : (r.tab as number)));
}

/** The message of the SheetFilterError that compiling throws. */
function errorOf(filter: string, columns: readonly string[] = COLUMNS): string {
  try {
    compileSheetFilter(filter, columns);
  } catch (e) {
    expect(e).toBeInstanceOf(SheetFilterError);
    expect(e).toBeInstanceOf(Error);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
}

describe('compileSheetFilter: the examples', () => {
  it('date and course', () => {
    expect(pick("date >= '2026-11-01' and course = 'Randwick'")).toEqual([1]);
  });
  it('segment in and time', () => {
    expect(pick("segment in ('L600','L400') and time < 36")).toEqual([1, 2]);
  });
  it('like or not between', () => {
    // Row 3 has barrier null: NOT (unknown) is unknown, and its horse is not 'star…'. Row 4 (Stax)
    // is in barrier 1.
    expect(pick("horse like 'star%' or not (barrier between 1 and 4)")).toEqual([1, 2]);
  });
});

describe('comparison operators', () => {
  it.each([
    ['race = 2', [2]],
    ['race == 2', [2]],
    ['race != 2', [1, 3, 4]],
    ['race <> 2', [1, 3, 4]],
    ['race < 3', [1, 2]],
    ['race <= 3', [1, 2, 3]],
    ['race > 3', [4]],
    ['race >= 3', [3, 4]],
    ['2 = race', [2]],
    ['3 <= race', [3, 4]],
    ['race=2', [2]],
    ['race<>2', [1, 3, 4]],
    ['race>=-1', [1, 2, 3, 4]],
    ['race > -0.5', [1, 2, 3, 4]],
    ['tab = race', [1, 2, 3]],
    ['tab < race', [4]],
  ])('%s', (filter, expected) => {
    expect(pick(filter)).toEqual(expected);
  });

  it('compares literals with literals', () => {
    expect(pick('1 = 1')).toEqual([1, 2, 3, 4, 'null']);
    expect(pick("'a' = 'b'")).toEqual([]);
  });
});

describe('numbers and strings', () => {
  it('compares a number with a numeric string numerically', () => {
    // time of row 3 is the string '9.5': 9.5 < 10 as numbers, though '9.5' > '10' as text.
    expect(pick('time < 10')).toEqual([3]);
    expect(pick('time = 9.5')).toEqual([3]);
    expect(pick("time = '9.50'")).toEqual([]); // two strings: compared as text
    expect(pick("race = '10'")).toEqual([4]);
    expect(pick("race > '9'")).toEqual([4]); // 10 > 9 as numbers
    expect(pick("race = ' 3 '")).toEqual([3]); // a numeric string may carry spaces
  });

  it('compares as text when a string is not a number', () => {
    // 10 vs 'L600': '10' < 'l600' as text.
    expect(pick("race < 'L'")).toEqual([1, 2, 3, 4]);
    expect(pick("race = 'ten'")).toEqual([]);
  });

  it('compares ISO dates as text', () => {
    expect(pick("date < '2026-11-01'")).toEqual([3]);
    expect(pick("date between '2026-11-01' and '2026-11-30'")).toEqual([1, 2]);
    expect(pick("date > '2026-11-02'")).toEqual([4]);
    expect(pick("date = '2026-12-15'")).toEqual([4]);
  });

  it('parses integers, decimals and negative numbers', () => {
    const f = compileSheetFilter('time > -1.5 and time < .5', ['time']);
    expect(f({ time: 0 })).toBe(true);
    expect(f({ time: -1.5 })).toBe(false);
    expect(f({ time: -1.49 })).toBe(true);
    expect(f({ time: 0.5 })).toBe(false);
    expect(compileSheetFilter('time = 12.', ['time'])({ time: 12 })).toBe(true);
    expect(compileSheetFilter('time = 007', ['time'])({ time: 7 })).toBe(true);
  });

  it('does not read hexadecimal or infinite strings as numbers', () => {
    const f = compileSheetFilter('x = 16', ['x']);
    expect(f({ x: '0x10' })).toBe(false);
    expect(f({ x: '16' })).toBe(true);
    expect(compileSheetFilter('x > 1', ['x'])({ x: 'Infinity' })).toBe(true); // as text: 'infinity' > '1'
  });

  it('treats NaN as unknown', () => {
    expect(compileSheetFilter('x = x', ['x'])({ x: Number.NaN })).toBe(false);
    expect(compileSheetFilter('not (x = 1)', ['x'])({ x: Number.NaN })).toBe(false);
  });
});

describe('booleans', () => {
  it('compares booleans with booleans and with true/false strings', () => {
    expect(pick('scratched = true')).toEqual([2, 4]); // true, and 'TRUE'
    expect(pick('scratched = false')).toEqual([1, 3]); // false, and 'false'
    expect(pick("scratched = 'true'")).toEqual([2, 4]);
    expect(pick('scratched != true')).toEqual([1, 3]);
    expect(pick('scratched < true')).toEqual([1, 3]);
  });

  it('accepts TRUE and FALSE as whole conditions', () => {
    expect(pick('true')).toEqual([1, 2, 3, 4, 'null']);
    expect(pick('FALSE')).toEqual([]);
    expect(pick('false or race = 1')).toEqual([1]);
    expect(pick('not false and race = 1')).toEqual([1]);
    expect(pick('(true)')).toEqual([1, 2, 3, 4, 'null']);
  });
});

describe('case-insensitivity', () => {
  it('of keywords', () => {
    expect(pick("race = 1 OR Race = 2 AnD NOT horse LIKE 'x%'")).toEqual([1, 2]);
    expect(pick('race NOT IN (1, 2) And barrier IS NOT NULL')).toEqual([4]);
    expect(pick('race BeTwEeN 2 AND 3')).toEqual([2, 3]);
    expect(pick('TRUE')).toEqual([1, 2, 3, 4, 'null']);
  });

  it('of columns, bare and double-quoted', () => {
    expect(pick('RACE = 1')).toEqual([1]);
    expect(pick('"Race" = 1')).toEqual([1]);
    expect(pick('"select" = 1 or race = 2')).toEqual([2]); // missing from the rows: null
  });

  it('of strings', () => {
    expect(pick("course = 'randwick'")).toEqual([1, 3]);
    expect(pick("course = 'RANDWICK'")).toEqual([1, 3]);
    expect(pick("segment in ('l600')")).toEqual([1, 4]);
    expect(pick("course > 'r'")).toEqual([1, 3, 4]);
  });

  it('maps a column given in any case to its key', () => {
    const f = compileSheetFilter('race = 1', ['Race']);
    expect(f({ Race: 1 })).toBe(true);
    expect(f({ race: 1 })).toBe(false);
  });
});

describe('strings and quoted names', () => {
  it("reads '' inside a string as one quote", () => {
    const f = compileSheetFilter("horse = 'O''Brien''s'", ['horse']);
    expect(f({ horse: "O'Brien's" })).toBe(true);
    expect(compileSheetFilter("horse = ''", ['horse'])({ horse: '' })).toBe(true);
    expect(compileSheetFilter("horse = ''''", ['horse'])({ horse: "'" })).toBe(true);
  });

  it('keeps keywords and characters inside strings literal', () => {
    const f = compileSheetFilter('horse = \'a and b or (c) # "d" 1.2.3\'', ['horse']);
    expect(f({ horse: 'A AND B OR (C) # "D" 1.2.3' })).toBe(true);
    expect(compileSheetFilter("horse = 'Señor ☃ 🐎'", ['horse'])({ horse: 'SEÑOR ☃ 🐎' })).toBe(true);
  });

  it('allows keywords as column names when double-quoted, with "" escaped', () => {
    expect(compileSheetFilter('"and" = 1', ['and'])({ and: 1 })).toBe(true);
    expect(compileSheetFilter('"a""b" = 1', ['a"b'])({ 'a"b': 1 })).toBe(true);
  });

  it('accepts any whitespace between tokens', () => {
    expect(pick('\n\trace\r\n=\t1  ')).toEqual([1]);
  });
});

describe('like / ilike', () => {
  it.each([
    ["horse like 'star%'", [1, 2]],
    ["horse like 'sta%'", [1, 2, 4]],
    ["horse like '%star'", [3]],
    ["horse like '%star%'", [1, 2, 3]],
    ["horse like 'sta_'", [4]],
    ["horse like 'st_r%'", [1, 2]],
    ["horse like 'star'", []],
    ["horse like 'STARLIGHT'", [1]],
    ["horse ilike 'starlight'", [1]],
    ["horse not like 'star%'", [3, 4]],
    ["horse like '%'", [1, 2, 3, 4]],
    ["horse like '%%%%'", [1, 2, 3, 4]],
    ["horse like '____'", [4]],
    ["segment like 'l_00'", [1, 2, 3, 4]],
    ["segment like 'l6_0'", [1, 4]],
    ["race like '1%'", [1, 4]],
    ["time like '9.5'", [3]],
    ["scratched like 'tr%'", [2, 4]],
  ])('%s', (filter, expected) => {
    expect(pick(filter)).toEqual(expected);
  });

  it('matches the whole value, treating regular-expression characters literally', () => {
    const f = compileSheetFilter("x like 'a.c*(d)?[e]$^\\\\'", ['x']);
    expect(f({ x: 'a.c*(d)?[e]$^\\\\' })).toBe(true);
    expect(f({ x: 'abc*(d)?[e]$^\\\\' })).toBe(false);
    expect(compileSheetFilter("x like 'b'", ['x'])({ x: 'abc' })).toBe(false);
    expect(compileSheetFilter("x like ''", ['x'])({ x: '' })).toBe(true);
    expect(compileSheetFilter("x like ''", ['x'])({ x: 'a' })).toBe(false);
  });

  it('lets _ stand for one character, even outside the BMP', () => {
    const f = compileSheetFilter("x like 'a_b'", ['x']);
    expect(f({ x: 'a🐎b' })).toBe(true);
    expect(f({ x: 'ab' })).toBe(false);
    expect(f({ x: 'a12b' })).toBe(false);
  });

  it('backtracks to the last %', () => {
    const f = compileSheetFilter("x like '%ab%abc'", ['x']);
    expect(f({ x: 'xxabyyababc' })).toBe(true);
    expect(f({ x: 'abcabc' })).toBe(true);
    expect(f({ x: 'ababab' })).toBe(false);
  });

  it('stays quick on a pattern of many %', () => {
    const f = compileSheetFilter(`x like '${'%a'.repeat(200)}%b'`, ['x']);
    expect(f({ x: 'a'.repeat(5000) })).toBe(false);
  });
});

describe('between', () => {
  it('is inclusive at both ends', () => {
    expect(pick('barrier between 1 and 3')).toEqual([1, 4]);
    expect(pick('barrier between 3 and 7')).toEqual([1, 2]);
    expect(pick('time between 9.5 and 35.2')).toEqual([1, 2, 3]);
  });

  it('matches nothing when the bounds are reversed', () => {
    expect(pick('barrier between 7 and 1')).toEqual([]);
  });

  it('negates with NOT BETWEEN, leaving nulls out', () => {
    expect(pick('barrier not between 1 and 3')).toEqual([2]);
  });

  it('binds its AND before the logical AND', () => {
    expect(pick('race between 1 and 3 and barrier > 2')).toEqual([1, 2]);
    expect(pick('race between 1 and 3 or race = 10')).toEqual([1, 2, 3, 4]);
  });

  it('accepts columns as bounds', () => {
    expect(pick('race between tab and 2')).toEqual([1, 2]);
  });
});

describe('in / not in', () => {
  it('tests membership', () => {
    expect(pick('race in (1, 3, 99)')).toEqual([1, 3]);
    expect(pick('race in (1)')).toEqual([1]);
    expect(pick("race in ('2', 10)")).toEqual([2, 4]);
    expect(pick("course in ('randwick', 'ROSEHILL')")).toEqual([1, 3, 4]);
    expect(pick('race not in (1, 3)')).toEqual([2, 4]);
    expect(pick('race in (tab)')).toEqual([1, 2, 3]);
  });

  it('follows SQL with a NULL in the list', () => {
    expect(pick('race in (1, null)')).toEqual([1]);
    expect(pick('race not in (1, null)')).toEqual([]); // never true: every other row is unknown
  });
});

describe('null handling', () => {
  it('is null / is not null', () => {
    expect(pick('barrier is null')).toEqual([3, 'null']);
    expect(pick('barrier is not null')).toEqual([1, 2, 4]);
    expect(pick('barrier IS NOT NULL and race is null')).toEqual([]);
  });

  it('treats a missing key as null', () => {
    expect(compileSheetFilter('x is null', ['x'])({})).toBe(true);
    expect(compileSheetFilter('x = 1', ['x'])({})).toBe(false);
  });

  it('does not read inherited properties', () => {
    expect(compileSheetFilter('constructor is null', ['constructor'])({})).toBe(true);
    expect(compileSheetFilter("tostring like '%'", ['tostring', 'toString'])({})).toBe(false);
  });

  it('makes every comparison with null false', () => {
    for (const filter of [
      'barrier = null',
      'barrier != null',
      'barrier < 5',
      'barrier >= 0',
      'barrier <> 5',
      "barrier like '%'",
      'barrier in (1, 3)',
      'barrier not in (1)',
      'barrier between 0 and 99',
      'barrier not between 0 and 0',
      'null = null',
    ]) {
      const f = compileSheetFilter(filter, COLUMNS);
      expect(f(ROWS[2]!), filter).toBe(false);
    }
  });

  it('is three-valued under NOT, AND and OR', () => {
    const row = { barrier: null, race: 1 };
    const t = (filter: string) => compileSheetFilter(filter, COLUMNS)(row);
    expect(t('not (barrier = 1)')).toBe(false); // NOT unknown is unknown
    expect(t('not (barrier = 1) or race = 1')).toBe(true); // unknown OR true
    expect(t('not (barrier = 1 and race = 2)')).toBe(true); // NOT (unknown AND false) = NOT false
    expect(t('not (barrier = 1 or race = 1)')).toBe(false); // NOT (unknown OR true) = NOT true
    expect(t('not (barrier = 1 or race = 2)')).toBe(false); // NOT (unknown OR false) = unknown
    expect(t('not not (barrier = 1)')).toBe(false);
    expect(t('not (barrier is null)')).toBe(false);
    expect(t('not (barrier is not null)')).toBe(true);
  });
});

describe('logic and precedence', () => {
  it('binds AND tighter than OR', () => {
    // a or (b and c)
    expect(pick('race = 1 or race = 2 and barrier = 3')).toEqual([1]);
    // (a or b) and c
    expect(pick('(race = 1 or race = 2) and barrier = 7')).toEqual([2]);
    expect(pick('race = 2 and barrier = 3 or race = 1')).toEqual([1]);
  });

  it('binds NOT tighter than AND, and looser than a comparison', () => {
    expect(pick('not race = 1 and race < 3')).toEqual([2]); // (not (race = 1)) and race < 3
    expect(pick('not (race = 1 and race < 3)')).toEqual([2, 3, 4]);
    expect(pick('not race = 1 or race = 1')).toEqual([1, 2, 3, 4]);
    expect(pick('not not race = 1')).toEqual([1]);
  });

  it('chains several ANDs and ORs', () => {
    expect(pick('race = 1 or race = 2 or race = 3')).toEqual([1, 2, 3]);
    expect(pick("race > 0 and race < 10 and barrier is not null and horse like '%t%'")).toEqual([1, 2]);
  });

  it('nests parentheses', () => {
    expect(pick("((race = 1) or ((race = 3) and (course = 'randwick')))")).toEqual([1, 3]);
    expect(pick('not ((race = 1) or not (race < 3))')).toEqual([2]);
  });
});

describe('errors', () => {
  it('refuses an empty filter', () => {
    expect(errorOf('')).toBe('The filter is empty');
    expect(errorOf('   \n\t ')).toBe('The filter is empty');
  });

  it('refuses a filter that is too long', () => {
    const long = `race = 1${' '.repeat(SHEET_FILTER_MAX_LENGTH)}`;
    expect(errorOf(long)).toBe(`The filter is too long: ${long.length} characters, at most ${SHEET_FILTER_MAX_LENGTH}`);
    const fits = `race = 1${' '.repeat(SHEET_FILTER_MAX_LENGTH - 8)}`;
    expect(fits.length).toBe(SHEET_FILTER_MAX_LENGTH);
    expect(compileSheetFilter(fits, COLUMNS)({ race: 1 })).toBe(true);
  });

  it('refuses U+0000', () => {
    expect(errorOf('race = 1\u0000')).toBe('The filter contains a NUL character (U+0000) at character 9');
    expect(errorOf("horse = 'a\u0000b'")).toBe('The filter contains a NUL character (U+0000) at character 11');
  });

  it('names an unknown column and lists the allowed ones', () => {
    expect(errorOf('distance > 1000')).toBe(
      `Unknown column "distance" at character 1: "distance > 1000". Columns allowed: ${COLUMNS.join(', ')}.`,
    );
    expect(errorOf('race = 1 and "Venue" = \'x\'', ['race', 'course'])).toBe(
      'Unknown column "Venue" at character 14: ""Venue" = \'x\'". Columns allowed: race, course.',
    );
    expect(errorOf('race = 1', [])).toBe('Unknown column "race" at character 1: "race = 1". No columns can be filtered on.');
  });

  it('refuses a trailing token', () => {
    expect(errorOf('race = 1 2')).toBe(
      'Unexpected "2" after a complete condition (expected AND, OR or the end of the filter) at character 10: "2"',
    );
    expect(errorOf('race = 1 horse')).toMatch(/^Unexpected "horse" after a complete condition .* at character 10: "horse"$/);
    expect(errorOf('race = 1 not')).toMatch(/^Unexpected the keyword NOT after a complete condition .* at character 10/);
    expect(errorOf('race = 1)')).toBe('Unexpected ")" without a matching "(" at character 9: ")"');
    expect(errorOf('race = 1 = 2')).toMatch(/^Unexpected "=" after a complete condition .* at character 10: "= 2"$/);
  });

  it('refuses a missing operand', () => {
    expect(errorOf('race =')).toBe('Expected a column or value after "=" (the filter ends at character 7)');
    expect(errorOf('race >= and barrier = 1')).toBe(
      'Expected a column or value after ">=", found the keyword AND at character 9: "and barrier = 1"',
    );
    expect(errorOf('race = 1 and')).toBe('Expected a condition (the filter ends at character 13)');
    expect(errorOf('race = 1 or or race = 2')).toBe('Expected a condition, found the keyword OR at character 13: "or race = 2"');
    expect(errorOf('and race = 1')).toBe('Expected a condition, found the keyword AND at character 1: "and race = 1"');
    expect(errorOf('not')).toBe('Expected a condition (the filter ends at character 4)');
    expect(errorOf('= 1')).toBe('Expected a condition, found "=" at character 1: "= 1"');
    expect(errorOf('()')).toBe('Expected a condition, found ")" at character 2: ")"');
    expect(errorOf('race in (1,)')).toBe('Expected a column or value after ",", found ")" at character 12: ")"');
    expect(errorOf('race between 1')).toBe('Expected AND between the two bounds of BETWEEN (the filter ends at character 15)');
    expect(errorOf('race between 1 or 2')).toBe(
      'Expected AND between the two bounds of BETWEEN, found the keyword OR at character 16: "or 2"',
    );
    expect(errorOf('race between 1 and')).toBe('Expected a column or value after BETWEEN … AND (the filter ends at character 19)');
  });

  it('refuses malformed IN, LIKE and IS', () => {
    expect(errorOf('race in 1, 2')).toBe('Expected "(" after IN, found "1" at character 9: "1, 2"');
    expect(errorOf('race in ()')).toBe('IN needs at least one value in its list at character 10: ")"');
    expect(errorOf('race in (1 2)')).toBe('Expected "," or ")" in the IN list, found "2" at character 12: "2)"');
    expect(errorOf('race in (1, 2')).toBe('The "(" of IN at character 9 is never closed (the filter ends at character 14)');
    expect(errorOf('horse like star')).toBe('Expected a quoted pattern after LIKE (e.g. \'star%\'), found "star" at character 12: "star"');
    expect(errorOf('horse ilike 3')).toMatch(/^Expected a quoted pattern after ILIKE/);
    expect(errorOf('horse is 3')).toBe('Expected NULL or NOT NULL after IS, found "3" at character 10: "3"');
    expect(errorOf('horse is not')).toBe('Expected NULL after IS NOT (the filter ends at character 13)');
    expect(errorOf('horse not = 1')).toMatch(/^Expected an operator \(.*\) after "horse", found the keyword NOT at character 7/);
  });

  it('refuses an unterminated string or quoted name', () => {
    expect(errorOf("horse = 'Star")).toBe('Unterminated string (a closing \' is missing) at character 9: "\'Star"');
    expect(errorOf("horse = 'it''s")).toMatch(/^Unterminated string .* at character 9/);
    expect(errorOf('"horse = 1')).toBe('Unterminated quoted column name (a closing " is missing) at character 1: ""horse = 1"');
    expect(errorOf('"" = 1')).toBe('Empty quoted column name at character 1: """ = 1"');
  });

  it('refuses an unknown character', () => {
    expect(errorOf('race = 1; drop table x')).toBe('Unexpected character ";" (U+003B) at character 9: "; drop table x"');
    expect(errorOf('race = 1 && barrier = 2')).toMatch(/^Unexpected character "&" \(U\+0026\) at character 10: "&& barrier = 2"$/);
    expect(errorOf('race ! 1')).toMatch(/^Unexpected character "!" \(did you mean "!="\?\) at character 6/);
    expect(errorOf('race = `1`')).toMatch(/^Unexpected character "`"/);
    expect(errorOf('race = 1 -- comment')).toMatch(/^Unexpected character "-" \(U\+002D\) at character 10/);
    expect(errorOf("horse = '🐎' and 🐎")).toBe('Unexpected character "🐎" (U+1F40E) at character 17: "🐎"');
  });

  it('refuses a malformed number', () => {
    expect(errorOf('race = 12abc')).toBe('Malformed number "12abc" at character 8: "12abc"');
    expect(errorOf('race = 1.2.3')).toBe('Malformed number "1.2.3" at character 8: "1.2.3"');
    expect(errorOf('race = 1e3')).toMatch(/^Malformed number "1e3"/);
  });

  it('refuses a column or non-boolean literal used as a condition', () => {
    expect(errorOf('scratched')).toBe(
      `"scratched" is not a condition (compare it, e.g. scratched = '…', or test scratched is not null) at character 1: "scratched"`,
    );
    expect(errorOf('race = 1 and horse')).toMatch(/^"horse" is not a condition .* at character 14: "horse"$/);
    expect(errorOf('(horse) and race = 1')).toMatch(/^"horse" is not a condition .* at character 2/);
    expect(errorOf('1')).toBe('"1" is not a condition at character 1: "1"');
    expect(errorOf("'yes'")).toBe('"\'yes\'" is not a condition at character 1: "\'yes\'"');
    expect(errorOf('null')).toBe('"null" is not a condition at character 1: "null"');
    expect(errorOf('not race')).toMatch(/^"race" is not a condition/);
    expect(errorOf("horse 'x'")).toBe(
      'Expected an operator (=, !=, <, <=, >, >=, IN, LIKE, BETWEEN or IS) after "horse", found "\'x\'" at character 7: "\'x\'"',
    );
  });

  it('refuses an unclosed parenthesis', () => {
    expect(errorOf('(race = 1')).toBe('The "(" at character 1 is never closed (the filter ends at character 10)');
    expect(errorOf('(race = 1 horse')).toBe('Expected ")", AND or OR, found "horse" at character 11: "horse"');
  });

  it('counts positions in characters and shortens long excerpts', () => {
    expect(errorOf("horse = '🐎🐎' and x = 1")).toMatch(/^Unknown column "x" at character 18:/);
    expect(errorOf(`race = 1 and ${'a'.repeat(40)} = 1`)).toMatch(new RegExp(`^Unknown column "a{40}" at character 14: "a{20}…"`));
  });

  it('limits nesting to 50 levels of parentheses and NOT', () => {
    const nested = (n: number) => `${'('.repeat(n)}race = 1${')'.repeat(n)}`;
    expect(compileSheetFilter(nested(50), COLUMNS)({ race: 1 })).toBe(true);
    expect(errorOf(nested(51))).toBe(
      `The filter nests parentheses and NOT too deeply (at most 50 levels) at character 51: "(race = 1${')'.repeat(11)}…"`,
    );

    expect(compileSheetFilter(`${'not '.repeat(50)}race = 1`, COLUMNS)({ race: 1 })).toBe(true);
    expect(errorOf(`${'not '.repeat(51)}race = 1`)).toMatch(
      /^The filter nests parentheses and NOT too deeply \(at most 50 levels\) at character 201:/,
    );
    expect(errorOf(`${'not ('.repeat(26)}race = 1${')'.repeat(26)}`)).toMatch(/too deeply/);
    expect(compileSheetFilter(`${'not ('.repeat(25)}race = 1${')'.repeat(25)}`, COLUMNS)({ race: 1 })).toBe(false);

    // Depth counts nesting, not how many groups there are.
    const wide = Array.from({ length: 100 }, (_, i) => `(race = ${i})`).join(' or ');
    expect(compileSheetFilter(wide, COLUMNS)({ race: 99 })).toBe(true);
    // Far deeper than the limit is refused just the same (no stack overflow).
    expect(errorOf('('.repeat(1999))).toMatch(/too deeply/);
  });

  it('throws SheetFilterError with its name set', () => {
    try {
      compileSheetFilter('race =', COLUMNS);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SheetFilterError);
      expect((e as Error).name).toBe('SheetFilterError');
    }
  });
});

describe('running', () => {
  it('returns plain booleans', () => {
    const f = compileSheetFilter('barrier = 1', COLUMNS);
    expect(f(ROWS[3]!)).toBe(true);
    expect(f(ROWS[0]!)).toBe(false);
    expect(f(ROWS[4]!)).toBe(false);
  });

  it('compiles once and runs over 100,000 rows', () => {
    const f = compileSheetFilter(
      "date >= '2026-11-01' and course = 'Randwick' and segment in ('L600','L400') and time < 36 and (horse like 'star%' or not (barrier between 1 and 4))",
      COLUMNS,
    );
    const courses = ['Randwick', 'Rosehill', 'Flemington', 'randwick'];
    const rows: FilterRow[] = Array.from({ length: 100_000 }, (_, i) => ({
      date: `2026-${String(10 + (i % 3)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      course: courses[i % 4]!,
      race: 1 + (i % 10),
      horse: i % 5 === 0 ? `Star ${i}` : `Horse ${i}`,
      tab: i,
      segment: i % 2 === 0 ? 'L600' : 'L200',
      time: i % 7 === 0 ? String(30 + (i % 9)) : 30 + (i % 9) + 0.5,
      barrier: i % 11 === 0 ? null : 1 + (i % 14),
      scratched: i % 3 === 0,
    }));
    const kept = rows.filter(f);
    // Recount by hand.
    const expected = rows.filter((r) => {
      const time = Number(r.time);
      const barrier = r.barrier as number | null;
      const courseOk = String(r.course).toLowerCase() === 'randwick';
      const likeOk = String(r.horse).toLowerCase().startsWith('star');
      const betweenOk = barrier !== null && !(barrier >= 1 && barrier <= 4);
      return String(r.date) >= '2026-11-01' && courseOk && r.segment === 'L600' && time < 36 && (likeOk || betweenOk);
    });
    expect(kept.length).toBe(expected.length);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.map((r) => r.tab)).toEqual(expected.map((r) => r.tab));
  });
});
