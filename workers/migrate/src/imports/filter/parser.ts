// The recursive-descent parser of a row filter (the grammar is in ../filter.ts): it builds closures.

import { type FilterValue, SheetFilterError } from './types.ts';
import { KEYWORDS, type Source, type Token, type TokenType } from './tokens.ts';
import {
  all,
  any,
  comparison,
  COMPARISONS,
  compilePattern,
  type Condition,
  type Getter,
  hasOwn,
  matchPattern,
  not,
  type Operand,
} from './conditions.ts';

/** How deeply parentheses and NOT may nest. */
const MAX_DEPTH = 50;

export class Parser {
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
