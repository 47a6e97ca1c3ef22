// The allow-list of operator conditions (condition.ts): the functions, casts, EXTRACT fields and
// keywords a filter may use. Every function here is immutable or stable, reads nothing but its
// arguments (and the clock), and cannot allocate more than its arguments' size: no regular
// expressions, no repeat/lpad, nothing that reaches files, settings, sessions or other tables.

/** How a function is accepted (argument count) and printed (schema-qualified, or as SQL syntax). */
export type FunctionRule = { min: number; max: number; print: string };

const catalog = (name: string, min: number, max = min): FunctionRule => ({ min, max, print: `pg_catalog.${name}` });
/** COALESCE, NULLIF, GREATEST and LEAST are SQL syntax, not catalog functions. */
const syntax = (name: string, min: number, max: number): FunctionRule => ({ min, max, print: name.toUpperCase() });

export const FUNCTIONS: ReadonlyMap<string, FunctionRule> = new Map([
  // text
  ['lower', catalog('lower', 1)],
  ['upper', catalog('upper', 1)],
  ['initcap', catalog('initcap', 1)],
  ['trim', catalog('btrim', 1, 2)],
  ['btrim', catalog('btrim', 1, 2)],
  ['ltrim', catalog('ltrim', 1, 2)],
  ['rtrim', catalog('rtrim', 1, 2)],
  ['length', catalog('length', 1)],
  ['char_length', catalog('char_length', 1)],
  ['character_length', catalog('char_length', 1)],
  ['octet_length', catalog('octet_length', 1)],
  ['substr', catalog('substr', 2, 3)],
  ['substring', catalog('substring', 2, 3)],
  ['left', catalog('left', 2)],
  ['right', catalog('right', 2)],
  ['replace', catalog('replace', 3)],
  ['split_part', catalog('split_part', 3)],
  ['strpos', catalog('strpos', 2)],
  ['starts_with', catalog('starts_with', 2)],
  ['concat', catalog('concat', 1, 20)],
  ['concat_ws', catalog('concat_ws', 2, 20)],
  ['reverse', catalog('reverse', 1)],
  // numbers
  ['abs', catalog('abs', 1)],
  ['round', catalog('round', 1, 2)],
  ['trunc', catalog('trunc', 1, 2)],
  ['floor', catalog('floor', 1)],
  ['ceil', catalog('ceil', 1)],
  ['ceiling', catalog('ceiling', 1)],
  ['sign', catalog('sign', 1)],
  ['mod', catalog('mod', 2)],
  // dates and times
  ['date_trunc', catalog('date_trunc', 2, 3)],
  ['date_part', catalog('date_part', 2)],
  ['to_char', catalog('to_char', 2)],
  ['to_date', catalog('to_date', 2)],
  ['to_number', catalog('to_number', 2)],
  ['to_timestamp', catalog('to_timestamp', 1, 2)],
  ['make_date', catalog('make_date', 3)],
  ['age', catalog('age', 1, 2)],
  ['now', catalog('now', 0)],
  // conditional expressions
  ['coalesce', syntax('coalesce', 1, 20)],
  ['nullif', syntax('nullif', 2, 2)],
  ['greatest', syntax('greatest', 1, 20)],
  ['least', syntax('least', 1, 20)],
]);

/** Cast target types: the spelling accepted → the type printed, with how many modifiers it takes. */
export type CastRule = { name: string; modifiers: number };

const cast = (name: string, modifiers = 0): CastRule => ({ name, modifiers });
const INTEGER = cast('integer');
const BIGINT = cast('bigint');
const SMALLINT = cast('smallint');
const NUMERIC = cast('numeric', 2);
const REAL = cast('real');
const DOUBLE = cast('double precision');
const TEXT = cast('text');
const VARCHAR = cast('varchar', 1);
const CHAR = cast('char', 1);
const BOOLEAN = cast('boolean');
const DATE = cast('date');
const TIME = cast('time', 1);
const TIMESTAMP = cast('timestamp', 1);
const TIMESTAMPTZ = cast('timestamptz', 1);
const INTERVAL = cast('interval');
const UUID = cast('uuid');

export const CAST_TYPES: ReadonlyMap<string, CastRule> = new Map([
  ['int', INTEGER],
  ['integer', INTEGER],
  ['int4', INTEGER],
  ['bigint', BIGINT],
  ['int8', BIGINT],
  ['smallint', SMALLINT],
  ['int2', SMALLINT],
  ['numeric', NUMERIC],
  ['decimal', NUMERIC],
  ['real', REAL],
  ['float4', REAL],
  ['float', DOUBLE],
  ['float8', DOUBLE],
  ['double precision', DOUBLE],
  ['text', TEXT],
  ['varchar', VARCHAR],
  ['character varying', VARCHAR],
  ['char', CHAR],
  ['character', CHAR],
  ['boolean', BOOLEAN],
  ['bool', BOOLEAN],
  ['date', DATE],
  ['time', TIME],
  ['time without time zone', TIME],
  ['timestamp', TIMESTAMP],
  ['timestamp without time zone', TIMESTAMP],
  ['timestamptz', TIMESTAMPTZ],
  ['timestamp with time zone', TIMESTAMPTZ],
  ['interval', INTERVAL],
  ['uuid', UUID],
]);

export const EXTRACT_FIELDS: ReadonlySet<string> = new Set([
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'dow',
  'isodow',
  'doy',
  'isoyear',
  'hour',
  'minute',
  'second',
  'epoch',
]);

/** SQL keywords that are values: the clock's, never the session's (no current_user). */
export const KEYWORDS: ReadonlySet<string> = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp']);
