// The tokens of a row filter, and where in the text they are (for messages).

import { SheetFilterError } from './types.ts';

export type TokenType = 'name' | 'quoted' | 'string' | 'number' | 'op' | '(' | ')' | ',' | 'end';

export interface Token {
  type: TokenType;
  /** The text as typed (for messages). */
  text: string;
  /** name: lower-cased; quoted: the name without quotes; string: the value; op: the operator. */
  value: string;
  number: number;
  /** Index (UTF-16) of the first character in the filter. */
  start: number;
}

export const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'like', 'ilike', 'is', 'null', 'between', 'true', 'false']);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isNameStart = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isNamePart = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);
const WHITESPACE = /\s/;

export class Source {
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

export function tokenize(src: Source): Token[] {
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
