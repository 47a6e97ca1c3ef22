// The row filter of a spreadsheet import: an SQL-WHERE-like condition an operator types to pick
// which parsed sheet rows an import writes, e.g.
//
//   date >= '2026-11-01' and course = 'Randwick'
//   segment in ('L600','L400') and time < 36
//   horse like 'star%' or not (barrier between 1 and 4)
//
// It is evaluated here, in JavaScript, over row objects; it never reaches a database. The text is
// read by a tokenizer and a recursive-descent parser that build closures (no eval, no Function),
// so a filter can only ever name the columns it is given and use the operators below.
//
// Grammar (keywords case-insensitive):
//
//   filter    := or END
//   or        := and ( OR and )*
//   and       := not ( AND not )*
//   not       := NOT not | '(' or ')' | predicate
//   predicate := operand [ tail ]          -- without a tail the operand must be TRUE or FALSE
//   tail      := ( = | == | != | <> | < | <= | > | >= ) operand
//              | [NOT] IN '(' operand ( ',' operand )* ')'
//              | [NOT] ( LIKE | ILIKE ) 'pattern'
//              | [NOT] BETWEEN operand AND operand
//              | IS [NOT] NULL
//   operand   := column | "quoted column" | 'string' | number | TRUE | FALSE | NULL
//
// Comparisons: two numbers, or a number and a string that reads as a finite number, compare as
// numbers; anything else compares as lower-cased text (so ISO dates 'YYYY-MM-DD' order correctly,
// and booleans read as 'true' / 'false'). A comparison with NULL is unknown, as in SQL: the logic is
// three-valued (unknown AND false = false, unknown OR true = true, NOT unknown = unknown) and a row
// is kept only when the whole filter is true. Only IS [NOT] NULL tests for NULL.

export type FilterValue = string | number | boolean | null;
export type FilterRow = Readonly<Record<string, FilterValue>>;
export type RowFilter = (row: FilterRow) => boolean;

/** Message shown to the user as is: say what is wrong and where (character position). */
export class SheetFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SheetFilterError';
  }
}

export const SHEET_FILTER_MAX_LENGTH = 2000;

/** How deeply parentheses and NOT may nest. */
const MAX_DEPTH = 50;

// ---------------------------------------------------------------------------------------------
// Tokens

type TokenType = 'name' | 'quoted' | 'string' | 'number' | 'op' | '(' | ')' | ',' | 'end';

interface Token {
  type: TokenType;
  /** The text as typed (for messages). */
  text: string;
  /** name: lower-cased; quoted: the name without quotes; string: the value; op: the operator. */
  value: string;
  number: number;
  /** Index (UTF-16) of the first character in the filter. */
  start: number;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'like', 'ilike', 'is', 'null', 'between', 'true', 'false']);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isNameStart = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isNamePart = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);
const WHITESPACE = /\s/;

class Source {
  constructor(readonly text: string) {}

  /** 1-based position in characters (code points), as a user counts them. */
  position(index: number): number {
    return Array.from(this.text.slice(0, index)).length + 1;
  }

  /** `at character N: "excerpt…"`, or `(the filter ends at character N)` past the last character. */
  where(index: number): string {
    if (index >= this.text.length) return `(the filter ends at character ${this.position(index)})`;
    const chars = Array.from(this.text.slice(index));
    const excerpt = chars.slice(0, 20).join('') + (chars.length > 20 ? '…' : '');
    return `at character ${this.position(index)}: "${excerpt}"`;
  }

  fail(message: string, index: number): never {
    throw new SheetFilterError(`${message} ${this.where(index)}`);
  }
}

function tokenize(src: Source): Token[] {
  const text = src.text;
  const tokens: Token[] = [];
  let i = 0;
  const push = (type: TokenType, start: number, value: string, number = Number.NaN) =>
    tokens.push({ type, text: text.slice(start, i), value, number, start });

  while (i < text.length) {
    const c = text[i]!;
    if (WHITESPACE.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isNameStart(c)) {
      while (isNamePart(text[i])) i++;
      push('name', start, text.slice(start, i).toLowerCase());
    } else if (c === "'" || c === '"') {
      // 'string' or "quoted name"; the quote doubled stands for itself.
      let value = '';
      i++;
      for (;;) {
        const at = text.indexOf(c, i);
        if (at < 0) {
          src.fail(
            c === "'" ? "Unterminated string (a closing ' is missing)" : 'Unterminated quoted column name (a closing " is missing)',
            start,
          );
        }
        value += text.slice(i, at);
        i = at + 1;
        if (text[i] === c) {
          value += c;
          i++;
        } else break;
      }
      if (c === '"' && value === '') src.fail('Empty quoted column name', start);
      push(c === "'" ? 'string' : 'quoted', start, value);
    } else if (
      isDigit(c) ||
      (c === '.' && isDigit(text[i + 1])) ||
      (c === '-' && (isDigit(text[i + 1]) || (text[i + 1] === '.' && isDigit(text[i + 2]))))
    ) {
      if (c === '-') i++;
      while (isDigit(text[i])) i++;
      if (text[i] === '.') {
        i++;
        while (isDigit(text[i])) i++;
      }
      if (isNamePart(text[i]) || text[i] === '.') {
        while (isNamePart(text[i]) || text[i] === '.') i++;
        src.fail(`Malformed number "${text.slice(start, i)}"`, start);
      }
      push('number', start, text.slice(start, i), Number(text.slice(start, i)));
    } else if (c === '=' || c === '<' || c === '>' || c === '!') {
      const two = text.slice(i, i + 2);
      if (two === '==' || two === '!=' || two === '<>' || two === '<=' || two === '>=') i += 2;
      else if (c === '!') src.fail('Unexpected character "!" (did you mean "!="?)', start);
      else i += 1;
      push('op', start, text.slice(start, i));
    } else if (c === '(' || c === ')' || c === ',') {
      i++;
      push(c, start, c);
    } else {
      const cp = String.fromCodePoint(text.codePointAt(i)!);
      const hex = text.codePointAt(i)!.toString(16).toUpperCase().padStart(4, '0');
      src.fail(`Unexpected character "${cp}" (U+${hex})`, start);
    }
  }
  tokens.push({ type: 'end', text: '', value: '', number: Number.NaN, start: text.length });
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Evaluation pieces. A condition answers true, false, or null (unknown).

type Tri = boolean | null;
type Condition = (row: FilterRow) => Tri;
type Getter = (row: FilterRow) => FilterValue;

interface Operand {
  get: Getter;
  /** For messages. */
  text: string;
  start: number;
  literal: boolean;
  value: FilterValue;
}

const hasOwn = Object.prototype.hasOwnProperty;

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a string reads as, or undefined. */
function numericValue(s: string): number | undefined {
  const t = s.trim();
  if (!NUMERIC.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function textOf(v: string | number | boolean): string {
  return typeof v === 'string' ? v.toLowerCase() : String(v);
}

/** -1, 0 or 1; null when either side is null (or NaN). */
function compareValues(a: FilterValue, b: FilterValue): number | null {
  if (a === null || b === null) return null;
  let x: number | undefined;
  let y: number | undefined;
  if (typeof a === 'number') {
    x = a;
    y = typeof b === 'number' ? b : typeof b === 'string' ? numericValue(b) : undefined;
  } else if (typeof b === 'number') {
    y = b;
    x = typeof a === 'string' ? numericValue(a) : undefined;
  }
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return null;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'number' && Number.isNaN(a)) return null;
  if (typeof b === 'number' && Number.isNaN(b)) return null;
  const s = textOf(a);
  const t = textOf(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

const COMPARISONS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

const not =
  (c: Condition): Condition =>
  (row) => {
    const v = c(row);
    return v === null ? null : !v;
  };

function all(parts: Condition[]): Condition {
  if (parts.length === 1) return parts[0]!;
  return (row) => {
    let unknown = false;
    for (const p of parts) {
      const v = p(row);
      if (v === false) return false;
      if (v === null) unknown = true;
    }
    return unknown ? null : true;
  };
}

function any(parts: Condition[]): Condition {
  if (parts.length === 1) return parts[0]!;
  return (row) => {
    let unknown = false;
    for (const p of parts) {
      const v = p(row);
      if (v === true) return true;
      if (v === null) unknown = true;
    }
    return unknown ? null : false;
  };
}

/** LIKE pattern: a list of code points, ANY for %, ONE for _. */
const ANY = 0;
const ONE = 1;
type PatternItem = string | typeof ANY | typeof ONE;

function compilePattern(pattern: string): PatternItem[] {
  const items: PatternItem[] = [];
  for (const ch of pattern.toLowerCase()) {
    if (ch === '%') {
      if (items[items.length - 1] !== ANY) items.push(ANY);
    } else items.push(ch === '_' ? ONE : ch);
  }
  return items;
}

/** Whole-value wildcard match; linear backtracking to the last %, so no pattern can blow up. */
function matchPattern(items: PatternItem[], value: string): boolean {
  const s = Array.from(value.toLowerCase());
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  while (i < s.length) {
    const item = items[p];
    if (p < items.length && item !== ANY && (item === ONE || item === s[i])) {
      p++;
      i++;
    } else if (item === ANY) {
      starP = p++;
      starI = i;
    } else if (starP >= 0) {
      p = starP + 1;
      i = ++starI;
    } else return false;
  }
  while (items[p] === ANY) p++;
  return p === items.length;
}

// ---------------------------------------------------------------------------------------------
// Parser

class Parser {
  private i = 0;
  private depth = 0;
  private readonly columns = new Map<string, string>();

  constructor(
    private readonly src: Source,
    private readonly tokens: Token[],
    columns: readonly string[],
  ) {
    for (const c of columns) if (!this.columns.has(c.toLowerCase())) this.columns.set(c.toLowerCase(), c);
  }

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  /** The type of the current token (a call, so TypeScript does not keep a narrowing across `this.i++`). */
  private type(): TokenType {
    return this.tok.type;
  }

  private isKeyword(word: string, offset = 0): boolean {
    const t = this.tokens[this.i + offset];
    return t !== undefined && t.type === 'name' && t.value === word;
  }

  private accept(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.i++;
    return true;
  }

  private describe(t: Token): string {
    if (t.type === 'end') return 'the end of the filter';
    if (t.type === 'name' && KEYWORDS.has(t.value)) return `the keyword ${t.value.toUpperCase()}`;
    return `"${t.text}"`;
  }

  /** Throws "<expected>, found <token> at …". */
  private expected(what: string, t: Token = this.tok): never {
    if (t.type === 'end') this.src.fail(`Expected ${what}`, t.start);
    this.src.fail(`Expected ${what}, found ${this.describe(t)}`, t.start);
  }

  private enter(t: Token): void {
    if (++this.depth > MAX_DEPTH) {
      this.src.fail(`The filter nests parentheses and NOT too deeply (at most ${MAX_DEPTH} levels)`, t.start);
    }
  }

  parse(): Condition {
    const c = this.parseOr();
    const t = this.tok;
    if (t.type !== 'end') {
      if (t.type === ')') this.src.fail('Unexpected ")" without a matching "("', t.start);
      this.src.fail(`Unexpected ${this.describe(t)} after a complete condition (expected AND, OR or the end of the filter)`, t.start);
    }
    return c;
  }

  private parseOr(): Condition {
    const parts = [this.parseAnd()];
    while (this.accept('or')) parts.push(this.parseAnd());
    return any(parts);
  }

  private parseAnd(): Condition {
    const parts = [this.parseNot()];
    while (this.accept('and')) parts.push(this.parseNot());
    return all(parts);
  }

  private parseNot(): Condition {
    const t = this.tok;
    if (this.isKeyword('not')) {
      this.enter(t);
      this.i++;
      const c = not(this.parseNot());
      this.depth--;
      return c;
    }
    if (t.type === '(') {
      this.enter(t);
      this.i++;
      const c = this.parseOr();
      if (this.tok.type !== ')') {
        if (this.tok.type === 'end') this.src.fail(`The "(" at character ${this.src.position(t.start)} is never closed`, this.tok.start);
        this.expected('")", AND or OR');
      }
      this.i++;
      this.depth--;
      return c;
    }
    return this.parsePredicate();
  }

  private parseOperand(after: string | null, what = after === null ? 'a column or value' : `a column or value after ${after}`): Operand {
    const t = this.tok;
    const literal = (value: FilterValue): Operand => {
      this.i++;
      return { get: () => value, text: t.text, start: t.start, literal: true, value };
    };
    switch (t.type) {
      case 'string':
        return literal(t.value);
      case 'number':
        return literal(t.number);
      case 'name':
        if (t.value === 'true') return literal(true);
        if (t.value === 'false') return literal(false);
        if (t.value === 'null') return literal(null);
        if (KEYWORDS.has(t.value)) this.expected(what);
        return this.column(t, t.value);
      case 'quoted':
        return this.column(t, t.value.toLowerCase());
      default:
        return this.expected(what);
    }
  }

  private column(t: Token, name: string): Operand {
    const key = this.columns.get(name);
    if (key === undefined) {
      const allowed = [...this.columns.values()];
      const list = allowed.length === 0 ? 'No columns can be filtered on.' : `Columns allowed: ${allowed.join(', ')}.`;
      throw new SheetFilterError(`Unknown column "${t.type === 'quoted' ? t.value : t.text}" ${this.src.where(t.start)}. ${list}`);
    }
    this.i++;
    const get: Getter = (row) => (hasOwn.call(row, key) ? (row[key] ?? null) : null);
    return { get, text: t.text, start: t.start, literal: false, value: null };
  }

  private parsePredicate(): Condition {
    const left = this.parseOperand(null, 'a condition');
    const t = this.tok;

    if (t.type === 'op') {
      this.i++;
      const right = this.parseOperand(`"${t.value}"`);
      return comparison(left.get, right.get, COMPARISONS[t.value]!);
    }

    if (this.isKeyword('is')) {
      this.i++;
      const negated = this.accept('not');
      if (!this.accept('null')) this.expected(negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS');
      const get = left.get;
      return negated ? (row) => get(row) !== null : (row) => get(row) === null;
    }

    const negated =
      this.isKeyword('not') &&
      (this.isKeyword('in', 1) || this.isKeyword('like', 1) || this.isKeyword('ilike', 1) || this.isKeyword('between', 1));
    if (negated) this.i++;
    const wrap = (c: Condition) => (negated ? not(c) : c);

    if (this.accept('in')) {
      const open = this.tok;
      if (open.type !== '(') this.expected('"(" after IN');
      this.i++;
      if (this.tok.type === ')') this.src.fail('IN needs at least one value in its list', this.tok.start);
      const items = [this.parseOperand(null)];
      while (this.type() === ',') {
        this.i++;
        items.push(this.parseOperand('","'));
      }
      if (this.type() !== ')') {
        if (this.type() === 'end')
          this.src.fail(`The "(" of IN at character ${this.src.position(open.start)} is never closed`, this.tok.start);
        this.expected('"," or ")" in the IN list');
      }
      this.i++;
      const eq = COMPARISONS['=']!;
      return wrap(any(items.map((item) => comparison(left.get, item.get, eq))));
    }

    if (this.isKeyword('like') || this.isKeyword('ilike')) {
      const op = this.tok.value.toUpperCase();
      this.i++;
      const p = this.tok;
      if (p.type !== 'string') this.expected(`a quoted pattern after ${op} (e.g. 'star%')`);
      this.i++;
      const items = compilePattern(p.value);
      const get = left.get;
      return wrap((row) => {
        const v = get(row);
        if (v === null || (typeof v === 'number' && Number.isNaN(v))) return null;
        return matchPattern(items, typeof v === 'string' ? v : String(v));
      });
    }

    if (this.accept('between')) {
      const low = this.parseOperand('BETWEEN');
      if (!this.accept('and')) this.expected('AND between the two bounds of BETWEEN');
      const high = this.parseOperand('BETWEEN … AND');
      return wrap(all([comparison(left.get, low.get, COMPARISONS['>=']!), comparison(left.get, high.get, COMPARISONS['<=']!)]));
    }

    // No operator: only TRUE and FALSE stand as conditions on their own.
    if (left.literal && typeof left.value === 'boolean') {
      const value = left.value;
      return () => value;
    }
    const hint = left.literal ? '' : ` (compare it, e.g. ${left.text} = '…', or test ${left.text} is not null)`;
    if (t.type === 'end' || t.type === ')' || this.isKeyword('and') || this.isKeyword('or')) {
      this.src.fail(`"${left.text}" is not a condition${hint}`, left.start);
    }
    this.src.fail(
      `Expected an operator (=, !=, <, <=, >, >=, IN, LIKE, BETWEEN or IS) after "${left.text}", found ${this.describe(t)}`,
      t.start,
    );
  }
}

function comparison(left: Getter, right: Getter, test: (c: number) => boolean): Condition {
  return (row) => {
    const c = compareValues(left(row), right(row));
    return c === null ? null : test(c);
  };
}

// ---------------------------------------------------------------------------------------------

/** `columns`: the row keys a filter may name (lower-case keys, e.g. ['date','course','race','horse','tab','segment','time']). */
export function compileSheetFilter(text: string, columns: readonly string[]): RowFilter {
  if (typeof text !== 'string') throw new SheetFilterError('The filter is empty');
  if (text.length > SHEET_FILTER_MAX_LENGTH) {
    throw new SheetFilterError(`The filter is too long: ${text.length} characters, at most ${SHEET_FILTER_MAX_LENGTH}`);
  }
  const nul = text.indexOf('\u0000');
  const src = new Source(text);
  if (nul >= 0) throw new SheetFilterError(`The filter contains a NUL character (U+0000) at character ${src.position(nul)}`);
  if (text.trim() === '') throw new SheetFilterError('The filter is empty');
  const condition = new Parser(src, tokenize(src), columns).parse();
  return (row) => condition(row) === true;
}
