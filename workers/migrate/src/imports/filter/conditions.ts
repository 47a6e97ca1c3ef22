// Evaluation pieces. A condition answers true, false, or null (unknown).

import type { FilterRow, FilterValue } from './types.ts';

type Tri = boolean | null;
export type Condition = (row: FilterRow) => Tri;
export type Getter = (row: FilterRow) => FilterValue;

export interface Operand {
  get: Getter;
  /** For messages. */
  text: string;
  start: number;
  literal: boolean;
  value: FilterValue;
}

export const hasOwn = Object.prototype.hasOwnProperty;

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

export const COMPARISONS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

export const not =
  (c: Condition): Condition =>
  (row) => {
    const v = c(row);
    return v === null ? null : !v;
  };

export function all(parts: Condition[]): Condition {
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

export function any(parts: Condition[]): Condition {
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

export function compilePattern(pattern: string): PatternItem[] {
  const items: PatternItem[] = [];
  for (const ch of pattern.toLowerCase()) {
    if (ch === '%') {
      if (items[items.length - 1] !== ANY) items.push(ANY);
    } else items.push(ch === '_' ? ONE : ch);
  }
  return items;
}

/** Whole-value wildcard match; linear backtracking to the last %, so no pattern can blow up. */
export function matchPattern(items: PatternItem[], value: string): boolean {
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

export function comparison(left: Getter, right: Getter, test: (c: number) => boolean): Condition {
  return (row) => {
    const c = compareValues(left(row), right(row));
    return c === null ? null : test(c);
  };
}
