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

import { type RowFilter, SheetFilterError } from './filter/types.ts';
import { Source, tokenize } from './filter/tokens.ts';
import { Parser } from './filter/parser.ts';

export { type FilterRow, type FilterValue, type RowFilter, SheetFilterError } from './filter/types.ts';

export const SHEET_FILTER_MAX_LENGTH = 2000;

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
