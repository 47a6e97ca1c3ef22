import { parse } from 'pgsql-ast-parser';
import { ident, literal } from './db.ts';
import { FilterError, type ColumnInfo, type SchemaInfo, type TableInfo } from './types.ts';
import { CAST_TYPES, EXTRACT_FIELDS, FUNCTIONS, KEYWORDS, type FunctionRule } from './condition-rules.ts';

// An operator's WHERE condition is parsed by a PostgreSQL-grammar parser (pgsql-ast-parser) and
// accepted only when every node of its tree is on the allow-list below; the statement the database
// runs is printed from that tree, never the typed text. Literals are re-quoted, columns resolved
// against the introspected table (and printed quoted), functions printed schema-qualified, every
// operation parenthesised. See the migrate README ("Row filters") for the rules.

export const CONDITION_MAX_LENGTH = 2_000;
/** Deeper trees than this are refused (they are never a hand-written condition). */
const MAX_DEPTH = 256;
const MAX_NODES = 2_000;
/** Subqueries inside subqueries are refused. */
const MAX_SUBQUERY_DEPTH = 1;

/** A condition ready for a statement: its printed SQL and the columns it reads (for explanations). */
export type Condition = { sql: string; columns: { table: string; column: ColumnInfo }[] };

/** The table a condition filters, and the schema its subqueries may read. */
export type ConditionScope = { table: string; schema: SchemaInfo };

// Loose view of the parser's nodes: every field is checked before use, so no parser type is trusted.
type Node = { type?: unknown; _location?: { start: number; end: number } } & Record<string, unknown>;

const COMPARISON = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
const BINARY = new Set([...COMPARISON, 'AND', 'OR', '+', '-', '*', '/', '%', '||', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE']);
const UNARY_PREFIX = new Set(['NOT', '-', '+']);
const UNARY_SUFFIX = new Set(['IS NULL', 'IS NOT NULL', 'IS TRUE', 'IS NOT TRUE', 'IS FALSE', 'IS NOT FALSE']);
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${[...flat].slice(0, max - 1).join('')}…` : flat;
}

/** Refusals that a look at the characters explains better than the parser's syntax error. */
function lexicalCheck(text: string): void {
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = text[i + 1] === quote ? (i++, quote) : null;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const before = text.slice(Math.max(0, i - 2), i);
      if (/u&$/i.test(before) && !/[\w$]/.test(text[i - 3] ?? '')) {
        const close = text.indexOf(ch, i + 1);
        throw new FilterError(
          `Unicode escapes (${clip(text.slice(i - 2, close < 0 ? undefined : close + 1), 30)}) are not accepted: type the name or text as it is`,
        );
      }
      quote = ch;
    } else if (ch === ';') {
      throw new FilterError('The filter must be one condition: no semicolons');
    } else if (ch === '$') {
      throw new FilterError(`"$" at character ${i + 1} is not accepted: no dollar-quoted strings or parameters; quote text with '…'`);
    } else if (ch === '-' && text[i + 1] === '-') {
      // A line comment hides the rest of the line; skip it as the parser does.
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    }
  }
  if (quote) throw new FilterError('The filter has an unterminated quote');
}

/**
 * Parses, checks and prints an operator's condition on `scope.table`. Throws FilterError naming the
 * refused part; never sends anything to a database.
 */
export function compileCondition(text: string, scope: ConditionScope): Condition {
  const trimmed = text.trim();
  if (!trimmed) throw new FilterError('The filter is empty');
  if (trimmed.includes('\u0000')) throw new FilterError('The filter contains a NUL character');
  if (trimmed.length > CONDITION_MAX_LENGTH) throw new FilterError(`The filter is longer than ${CONDITION_MAX_LENGTH} characters`);
  if (/^where\b/i.test(trimmed)) throw new FilterError('Type the condition without the WHERE keyword');
  lexicalCheck(trimmed);
  const table = scope.schema.tables.find((t) => t.name === scope.table);
  if (!table) throw new FilterError(`The table ${scope.table} is not a table of the source`);
  let tree: unknown;
  try {
    const parsed: unknown = parse(trimmed, { entry: 'expr', locationTracking: true });
    tree = Array.isArray(parsed) ? (parsed.length === 1 ? parsed[0] : undefined) : parsed;
  } catch (error) {
    const where = /line \d+ col (\d+)/.exec(error instanceof Error ? error.message : '');
    const at = where ? Number(where[1]) : undefined;
    throw new FilterError(
      at !== undefined
        ? `The filter is not a condition PostgreSQL can read, near character ${at}: "${clip(trimmed.slice(at - 1, at + 29), 30)}"`
        : 'The filter is not a condition PostgreSQL can read',
    );
  }
  if (!isNode(tree)) throw new FilterError('The filter is not a condition PostgreSQL can read');
  const printer = new Printer(trimmed, scope.schema);
  const sql = printer.expr(tree, { table, qualifiers: [table.name], printAs: null, depth: 0, subqueries: 0 });
  return { sql, columns: printer.used };
}

/** The condition's SQL for a statement: `true` when there is none. */
export function conditionSql(condition: Condition | undefined): string {
  return condition ? condition.sql : 'true';
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a column name is resolved: its table, the names that may qualify it, how it is printed. */
type Frame = { table: TableInfo; qualifiers: string[]; printAs: string | null; depth: number; subqueries: number };

class Printer {
  readonly used: Condition['columns'] = [];
  private nodes = 0;
  private aliases = 0;

  constructor(
    private readonly text: string,
    private readonly schema: SchemaInfo,
  ) {}

  /** The typed text of a node, for messages. */
  private source(node: Node): string {
    const loc = node._location;
    return loc && typeof loc.start === 'number' && typeof loc.end === 'number'
      ? clip(this.text.slice(loc.start, loc.end))
      : String(node.type);
  }

  private refuse(node: Node, why: string): never {
    throw new FilterError(`"${this.source(node)}" is not allowed in a filter: ${why}`);
  }

  private child(value: unknown, frame: Frame): string {
    if (!isNode(value)) throw new FilterError('The filter is not a condition PostgreSQL can read');
    return this.expr(value, { ...frame, depth: frame.depth + 1 });
  }

  expr(node: Node, frame: Frame): string {
    if (++this.nodes > MAX_NODES || frame.depth > MAX_DEPTH) throw new FilterError('The filter is too complex: split it or simplify it');
    switch (node.type) {
      case 'ref':
        return this.column(node, frame);
      case 'integer':
      case 'numeric':
        return this.number(node);
      case 'string':
        return stringLiteral(node);
      case 'boolean':
        return node.value === true ? 'TRUE' : 'FALSE';
      case 'null':
        return 'NULL';
      case 'keyword':
        if (typeof node.keyword === 'string' && KEYWORDS.has(node.keyword.toLowerCase())) return node.keyword.toUpperCase();
        return this.refuse(node, `of the SQL keywords only ${[...KEYWORDS].join(', ')} may be used as values`);
      case 'binary':
        return this.binary(node, frame);
      case 'unary':
        return this.unary(node, frame);
      case 'ternary': {
        if (node.op !== 'BETWEEN' && node.op !== 'NOT BETWEEN') return this.refuse(node, 'only BETWEEN takes three operands');
        return `(${this.child(node.value, frame)} ${node.op} ${this.child(node.lo, frame)} AND ${this.child(node.hi, frame)})`;
      }
      case 'case':
        return this.caseExpr(node, frame);
      case 'cast':
        return this.cast(node, frame);
      case 'call':
        return this.call(node, frame);
      case 'extract': {
        const field = isNode(node.field) && typeof node.field.name === 'string' ? node.field.name.toLowerCase() : '';
        if (!EXTRACT_FIELDS.has(field)) return this.refuse(node, `EXTRACT takes one of ${[...EXTRACT_FIELDS].join(', ')}`);
        return `EXTRACT(${field.toUpperCase()} FROM ${this.child(node.from, frame)})`;
      }
      case 'substring': {
        const args = [this.child(node.value, frame), node.from ? this.child(node.from, frame) : '1'];
        if (node.for) args.push(this.child(node.for, frame));
        return `pg_catalog.substring(${args.join(', ')})`;
      }
      case 'select':
        return this.refuse(node, 'a subquery is only allowed as the list of IN or NOT IN');
      case 'list':
        return this.refuse(node, 'a list is only allowed after IN or NOT IN');
      case 'parameter':
        return this.refuse(node, 'no parameters');
      default:
        return this.refuse(
          node,
          'it is not one of the expressions a filter may use (columns, literals, comparisons, AND/OR/NOT, arithmetic, IN, BETWEEN, LIKE, IS NULL, CASE, casts, and the listed functions)',
        );
    }
  }

  private column(node: Node, frame: Frame): string {
    const name = node.name;
    if (typeof name !== 'string' || name === '*') return this.refuse(node, 'name a column');
    if (node.table !== undefined) {
      const qualifier = isNode(node.table) ? node.table : {};
      const allowed = qualifier.schema === undefined && typeof qualifier.name === 'string' && frame.qualifiers.includes(qualifier.name);
      if (!allowed) return this.refuse(node, `only columns of ${frame.table.name} may be used here`);
    }
    const column = frame.table.columns.find((c) => c.ColumnName === name);
    if (!column) {
      const names = frame.table.columns.map((c) => c.ColumnName);
      const list = names.length > 30 ? `${names.slice(0, 30).join(', ')}, …` : names.join(', ');
      throw new FilterError(
        `"${name}" is not a column of ${frame.table.name}${frame.subqueries > 0 ? ' (a subquery reads its own table only)' : ''}. Its columns: ${list}`,
      );
    }
    this.used.push({ table: frame.table.name, column });
    return frame.printAs ? `${frame.printAs}.${ident(column.ColumnName)}` : ident(column.ColumnName);
  }

  private number(node: Node): string {
    const loc = node._location;
    const typed = loc ? this.text.slice(loc.start, loc.end) : String(node.value);
    if (!NUMBER.test(typed)) return this.refuse(node, 'not a plain number');
    return typed.startsWith('-') ? `(${typed})` : typed;
  }

  private binary(node: Node, frame: Frame): string {
    const op = typeof node.op === 'string' ? node.op : '';
    if (op === 'IN' || op === 'NOT IN') {
      const right = isNode(node.right) ? node.right : undefined;
      const left = this.child(node.left, frame);
      if (right?.type === 'list' && Array.isArray(right.expressions) && right.expressions.length > 0) {
        return `(${left} ${op} (${right.expressions.map((e) => this.child(e, frame)).join(', ')}))`;
      }
      if (right?.type === 'select') return `(${left} ${op} ${this.subquery(right, frame)})`;
      return this.refuse(node, `${op} takes a list of values in brackets or one subquery`);
    }
    if (!BINARY.has(op))
      return this.refuse(
        node,
        `the operator ${op || '?'} is not one a filter may use (${[...BINARY].filter((o) => o !== '!=').join(' ')})`,
      );
    const left =
      isNode(node.left) && node.left.type === 'list'
        ? this.refuse(node.left, 'a row of values cannot be compared')
        : this.child(node.left, frame);
    return `(${left} ${op === '!=' ? '<>' : op} ${this.child(node.right, frame)})`;
  }

  private unary(node: Node, frame: Frame): string {
    const op = typeof node.op === 'string' ? node.op : '';
    if (UNARY_PREFIX.has(op)) return `(${op} ${this.child(node.operand, frame)})`;
    if (UNARY_SUFFIX.has(op)) return `(${this.child(node.operand, frame)} ${op})`;
    return this.refuse(node, `the operator ${op || '?'} is not one a filter may use`);
  }

  private caseExpr(node: Node, frame: Frame): string {
    const whens = Array.isArray(node.whens) ? node.whens : [];
    if (whens.length === 0) return this.refuse(node, 'CASE needs at least one WHEN');
    const parts = ['CASE'];
    if (node.value) parts.push(this.child(node.value, frame));
    for (const when of whens) {
      if (!isNode(when)) return this.refuse(node, 'a WHEN is not readable');
      parts.push('WHEN', this.child(when.when, frame), 'THEN', this.child(when.value, frame));
    }
    if (node.else) parts.push('ELSE', this.child(node.else, frame));
    parts.push('END');
    return `(${parts.join(' ')})`;
  }

  private cast(node: Node, frame: Frame): string {
    const to = isNode(node.to) ? node.to : {};
    const name = typeof to.name === 'string' ? to.name.toLowerCase().replace(/\s+/g, ' ') : '';
    const rule = to.schema === undefined && to.kind === undefined && to.doubleQuoted !== true ? CAST_TYPES.get(name) : undefined;
    if (!rule)
      return this.refuse(node, `casts are allowed to ${[...new Set(CAST_TYPES.values()).values()].map((r) => r.name).join(', ')} only`);
    const config = Array.isArray(to.config) ? to.config : [];
    if (config.length > rule.modifiers || !config.every((n) => Number.isInteger(n) && n >= 0 && n <= 10_485_760)) {
      return this.refuse(node, `${rule.name} takes at most ${rule.modifiers} whole-number modifier${rule.modifiers === 1 ? '' : 's'}`);
    }
    return `CAST(${this.child(node.operand, frame)} AS ${rule.name}${config.length ? `(${config.join(', ')})` : ''})`;
  }

  private call(node: Node, frame: Frame): string {
    const fn = isNode(node.function) ? node.function : {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const rule: FunctionRule | undefined = fn.schema === undefined ? FUNCTIONS.get(name) : undefined;
    if (!rule) {
      const why =
        fn.schema !== undefined
          ? 'functions are not named with a schema'
          : `it is not one of the functions a filter may call (${[...FUNCTIONS.keys()].join(', ')})`;
      return this.refuse(node, why);
    }
    if (node.distinct || node.orderBy || node.filter || node.over || node.withinGroup)
      return this.refuse(node, 'no aggregates, window functions or function options');
    const args = Array.isArray(node.args) ? node.args : [];
    if (args.length < rule.min || args.length > rule.max) {
      return this.refuse(
        node,
        `${name} takes ${rule.min === rule.max ? rule.min : `${rule.min} to ${rule.max === Infinity ? 'any number of' : rule.max}`} argument${rule.max === 1 ? '' : 's'}`,
      );
    }
    const printed = args.map((a) => this.child(a, frame));
    return `${rule.print}(${printed.join(', ')})`;
  }

  /** `IN (SELECT column FROM table [WHERE condition])` over one of the source's own tables, not correlated. */
  private subquery(node: Node, frame: Frame): string {
    if (frame.subqueries >= MAX_SUBQUERY_DEPTH) return this.refuse(node, 'subqueries inside subqueries are not allowed');
    const extra = ['with', 'groupBy', 'having', 'orderBy', 'limit', 'distinct', 'window', 'for'].filter(
      (k) => node[k] !== undefined && node[k] !== null,
    );
    if (extra.length) return this.refuse(node, 'a subquery is SELECT one column FROM one table, with an optional WHERE');
    const from = Array.isArray(node.from) ? node.from : [];
    const columns = Array.isArray(node.columns) ? node.columns : [];
    const source = from.length === 1 && isNode(from[0]) && from[0].type === 'table' && isNode(from[0].name) ? from[0].name : undefined;
    if (!source || columns.length !== 1 || !isNode(columns[0]) || columns[0].alias !== undefined) {
      return this.refuse(node, 'a subquery is SELECT one column FROM one table, with an optional WHERE');
    }
    if (source.schema !== undefined && source.schema !== 'public')
      return this.refuse(node, 'a subquery reads a table of the source itself (no schema but public)');
    const table = this.schema.tables.find((t) => t.name === source.name);
    if (!table)
      return this.refuse(node, `${String(source.name)} is not a table of the source; a subquery may read the source's own tables only`);
    const expr =
      isNode(columns[0].expr) && columns[0].expr.type === 'ref'
        ? columns[0].expr
        : this.refuse(node, 'a subquery selects one column by name');
    const alias = isNode(source.alias) ? source.alias.name : source.alias;
    const printAs = `s${++this.aliases}`;
    const inner: Frame = {
      table,
      qualifiers: typeof alias === 'string' ? [alias] : [table.name],
      printAs,
      depth: frame.depth + 1,
      subqueries: frame.subqueries + 1,
    };
    const column = this.expr(expr, inner);
    const where = node.where ? ` WHERE ${this.expr(requireNode(node.where), inner)}` : '';
    return `(SELECT ${column} FROM ${ident('public')}.${ident(table.name)} AS ${printAs}${where})`;
  }
}

function requireNode(value: unknown): Node {
  if (!isNode(value)) throw new FilterError('The filter is not a condition PostgreSQL can read');
  return value;
}

/** A string literal, read the same whatever standard_conforming_strings says (db.ts `literal`). */
function stringLiteral(node: Node): string {
  const value = typeof node.value === 'string' ? node.value : '';
  if (value.includes('\u0000')) throw new FilterError('The filter contains a NUL character');
  return literal(value);
}
