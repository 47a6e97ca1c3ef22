import { GraphError } from './http.ts';

/**
 * The OData query options Graph's mail endpoints take ($top, $skip, $skiptoken, $select,
 * $orderby, $filter, $search, $count, $expand), parsed and checked the way Graph checks them.
 */

export type Getter = (item: never) => unknown;
export type Properties<T> = Record<string, (item: T) => unknown>;

/** Reads a query option by its `$name`; Graph also accepts the name without the dollar. */
export function option(query: URLSearchParams, name: string): string | null {
  return query.get('$' + name) ?? query.get(name);
}

export function parseTop(query: URLSearchParams, fallback: number, max = 1000): number {
  const raw = option(query, 'top');
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new GraphError(400, 'BadRequest', `Invalid value '${raw}' for query parameter $top.`);
  const top = Number(raw);
  if (top < 1 || top > max)
    throw new GraphError(400, 'BadRequest', `Invalid value '${raw}' for query parameter $top: it must be between 1 and ${max}.`);
  return top;
}

export function parseSkip(query: URLSearchParams): number {
  const raw = option(query, 'skip');
  if (raw === null) return 0;
  if (!/^\d+$/.test(raw)) throw new GraphError(400, 'BadRequest', `Invalid value '${raw}' for query parameter $skip.`);
  return Number(raw);
}

export function parseCount(query: URLSearchParams): boolean {
  const raw = option(query, 'count');
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new GraphError(400, 'BadRequest', `Invalid value '${raw}' for query parameter $count.`);
}

/** `$select=a,b`: the names, checked against the entity's properties (Graph's RequestBroker wording). */
export function parseSelect(query: URLSearchParams, known: readonly string[], entity: string): string[] | null {
  const raw = option(query, 'select');
  if (raw === null || raw.trim() === '') return null;
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!known.some((k) => k.toLowerCase() === name.toLowerCase())) {
      throw new GraphError(
        400,
        'RequestBroker--ParseUri',
        `Could not find a property named '${name}' on type 'microsoft.graph.${entity}'.`,
      );
    }
  }
  return names.map((name) => known.find((k) => k.toLowerCase() === name.toLowerCase())!);
}

/** Keeps `id`, the etag and the selected properties of an entity, as Graph does for $select. */
export function applySelect(entity: Record<string, unknown>, select: string[] | null): Record<string, unknown> {
  if (!select) return entity;
  const out: Record<string, unknown> = {};
  if ('@odata.etag' in entity) out['@odata.etag'] = entity['@odata.etag'];
  if ('@odata.type' in entity) out['@odata.type'] = entity['@odata.type'];
  out.id = entity.id;
  for (const name of select) if (name in entity) out[name] = entity[name];
  return out;
}

export type OrderBy = { property: string; descending: boolean }[];

export function parseOrderBy<T>(query: URLSearchParams, properties: Properties<T>): OrderBy | null {
  const raw = option(query, 'orderby');
  if (raw === null || raw.trim() === '') return null;
  return raw.split(',').map((part) => {
    const [name = '', direction = 'asc', ...rest] = part.trim().split(/\s+/);
    const property = Object.keys(properties).find((k) => k.toLowerCase() === name.toLowerCase());
    if (!property || rest.length > 0 || !/^(asc|desc)$/i.test(direction)) {
      throw new GraphError(400, 'BadRequest', `Invalid $orderby clause '${part.trim()}'.`);
    }
    return { property, descending: direction.toLowerCase() === 'desc' };
  });
}

export function sortBy<T>(items: T[], order: OrderBy, properties: Properties<T>): T[] {
  return [...items].sort((a, b) => {
    for (const { property, descending } of order) {
      const get = properties[property]!;
      const c = compareValues(get(a), get(b));
      if (c !== 0) return descending ? -c : c;
    }
    return 0;
  });
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    const da = isoDate(a);
    const db = isoDate(b);
    if (da !== null && db !== null) return da - db;
    return a.localeCompare(b, undefined, { sensitivity: 'base' });
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

function isoDate(value: string): number | null {
  return /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : null;
}

// ------------------------------------------------------------------ $filter

type Token = { kind: 'string' | 'word' | '(' | ')' | ','; text: string };

type FilterNode =
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; operand: FilterNode }
  | { kind: 'compare'; property: string; op: 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le'; value: unknown }
  | { kind: 'startswith'; property: string; value: string };

export type Filter<T> = { test(item: T): boolean; properties: string[] };

function invalidFilter(detail: string): GraphError {
  return new GraphError(400, 'BadRequest', `Invalid filter clause: ${detail}`);
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === "'") {
      let text = '';
      i += 1;
      for (;;) {
        if (i >= input.length) throw invalidFilter('unterminated string literal.');
        if (input[i] === "'") {
          if (input[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        text += input[i];
        i += 1;
      }
      tokens.push({ kind: 'string', text });
    } else if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: ch, text: ch });
      i += 1;
    } else {
      const match = /^[A-Za-z0-9_./:+-]+/.exec(input.slice(i));
      if (!match) throw invalidFilter(`unexpected character '${ch}'.`);
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

/**
 * Parses `$filter` over the given properties: comparisons (eq ne gt ge lt le) with strings,
 * booleans, null, numbers and unquoted date-times, `startswith(p,'x')`, `and`, `or`, `not`
 * and parentheses. Anything else is Graph's 400.
 */
export function parseFilter<T>(raw: string, properties: Properties<T>): Filter<T> {
  const tokens = tokenize(raw);
  let pos = 0;
  const seen: string[] = [];
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos];
    if (!t) throw invalidFilter('unexpected end of expression.');
    pos += 1;
    return t;
  };
  const property = (name: string) => {
    const found = Object.keys(properties).find((k) => k.toLowerCase() === name.toLowerCase());
    if (!found) throw new GraphError(400, 'BadRequest', `Could not find a property named '${name}' on type 'microsoft.graph.message'.`);
    seen.push(found);
    return found;
  };
  const literal = (t: Token): unknown => {
    if (t.kind === 'string') return t.text;
    if (t.kind !== 'word') throw invalidFilter(`expected a value, found '${t.text}'.`);
    if (t.text === 'true') return true;
    if (t.text === 'false') return false;
    if (t.text === 'null') return null;
    if (/^-?\d+(\.\d+)?$/.test(t.text)) return Number(t.text);
    if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(t.text) && !Number.isNaN(Date.parse(t.text)))
      return new Date(t.text).toISOString();
    throw invalidFilter(`unrecognised literal '${t.text}'.`);
  };
  const primary = (): FilterNode => {
    const t = next();
    if (t.kind === '(') {
      const inner = orExpr();
      if (next().kind !== ')') throw invalidFilter('missing closing parenthesis.');
      return inner;
    }
    if (t.kind !== 'word') throw invalidFilter(`unexpected '${t.text}'.`);
    if (t.text.toLowerCase() === 'not') return { kind: 'not', operand: primary() };
    if (t.text.toLowerCase() === 'startswith' && peek()?.kind === '(') {
      next();
      const prop = next();
      if (prop.kind !== 'word') throw invalidFilter('startswith expects a property.');
      const name = property(prop.text);
      if (next().kind !== ',') throw invalidFilter('startswith expects two arguments.');
      const value = next();
      if (value.kind !== 'string') throw invalidFilter('startswith expects a string.');
      if (next().kind !== ')') throw invalidFilter('missing closing parenthesis.');
      return { kind: 'startswith', property: name, value: value.text };
    }
    if (peek()?.kind === '(') throw new GraphError(400, 'BadRequest', `The function '${t.text}' is not supported.`);
    const name = property(t.text);
    const op = next();
    if (op.kind !== 'word' || !/^(eq|ne|gt|ge|lt|le)$/i.test(op.text)) throw invalidFilter(`expected an operator after '${t.text}'.`);
    return { kind: 'compare', property: name, op: op.text.toLowerCase() as 'eq', value: literal(next()) };
  };
  const andExpr = (): FilterNode => {
    let left = primary();
    while (peek()?.kind === 'word' && peek()!.text.toLowerCase() === 'and') {
      next();
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const orExpr = (): FilterNode => {
    let left = andExpr();
    while (peek()?.kind === 'word' && peek()!.text.toLowerCase() === 'or') {
      next();
      left = { kind: 'or', left, right: andExpr() };
    }
    return left;
  };
  if (tokens.length === 0) throw invalidFilter('the expression is empty.');
  const tree = orExpr();
  if (pos !== tokens.length) throw invalidFilter(`unexpected '${tokens[pos]!.text}'.`);
  const evaluate = (node: FilterNode, item: T): boolean => {
    switch (node.kind) {
      case 'and':
        return evaluate(node.left, item) && evaluate(node.right, item);
      case 'or':
        return evaluate(node.left, item) || evaluate(node.right, item);
      case 'not':
        return !evaluate(node.operand, item);
      case 'startswith': {
        const v = properties[node.property]!(item);
        return typeof v === 'string' && v.toLowerCase().startsWith(node.value.toLowerCase());
      }
      case 'compare': {
        const actual = properties[node.property]!(item);
        const c =
          typeof actual === 'string' && typeof node.value === 'string' && isoDate(actual) === null
            ? actual.toLowerCase() === node.value.toLowerCase()
              ? 0
              : compareValues(actual, node.value)
            : compareValues(actual, node.value);
        switch (node.op) {
          case 'eq':
            return c === 0;
          case 'ne':
            return c !== 0;
          case 'gt':
            return c > 0;
          case 'ge':
            return c >= 0;
          case 'lt':
            return c < 0;
          case 'le':
            return c <= 0;
        }
      }
    }
  };
  return { test: (item) => evaluate(tree, item), properties: seen };
}

/**
 * Graph's rule for $filter with $orderby on messages: every $orderby property must also appear in
 * $filter, first and in the same order, or the request fails with InefficientFilter.
 */
export function checkFilterWithOrder(filter: Filter<unknown>, order: OrderBy) {
  const distinct = [...new Set(filter.properties)];
  order.forEach(({ property }, i) => {
    if (distinct[i] !== property) {
      throw new GraphError(400, 'InefficientFilter', 'The restriction or sort order is too complex for this operation.');
    }
  });
}

// ------------------------------------------------------------------ paging links

/** A nextLink: the same request with its paging option replaced, `$` kept literal as Graph writes it. */
export function nextLink(base: string, query: URLSearchParams, replace: Record<string, string>): string {
  const parts: string[] = [];
  const drop = new Set(['$skip', 'skip', '$skiptoken', 'skiptoken', ...Object.keys(replace)]);
  for (const [key, value] of query) if (!drop.has(key)) parts.push(`${key}=${encodeQueryValue(value)}`);
  for (const [key, value] of Object.entries(replace)) parts.push(`${key}=${encodeQueryValue(value)}`);
  return `${base}?${parts.join('&')}`;
}

function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',').replace(/%24/g, '$').replace(/%2F/g, '/').replace(/%3A/g, ':');
}

export function encodeSkipToken(offset: number): string {
  return Buffer.from(`MSG|${offset}`).toString('base64url');
}

export function decodeSkipToken(token: string): number {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const match = /^MSG\|(\d+)$/.exec(text);
  if (!match) throw new GraphError(400, 'BadRequest', 'The $skiptoken is invalid.');
  return Number(match[1]);
}
