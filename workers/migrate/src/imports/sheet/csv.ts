// CSV (RFC 4180, plus: ; or tab delimiters, CR / LF / CRLF line ends, lenient text after quotes).

import { capital, checkText, clip, type Limits, type Sheet, SheetBuilder, type SheetCell, SheetError, type Where } from './common.ts';

function detectDelimiter(text: string): string {
  // The first non-empty line (outside quotes) is the header.
  let comma = 0;
  let semicolon = 0;
  let tab = 0;
  let quoted = false;
  let seen = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (quoted) continue;
    else if (c === 10 || c === 13) {
      if (seen) break;
    } else if (c === 44) comma++;
    else if (c === 59) semicolon++;
    else if (c === 9) tab++;
    if (c !== 10 && c !== 13 && c !== 32) seen = true;
  }
  if (semicolon > comma && semicolon >= tab) return ';';
  if (tab > comma && tab > semicolon) return '\t';
  return ',';
}

function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) n++;
  }
  return n;
}

export function readCsv(input: string, lim: Limits): Sheet {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const D = detectDelimiter(text).charCodeAt(0);
  const where: Where = (line, column) => `line ${line}, column ${column + 1}`;
  const builder = new SheetBuilder('csv', null, lim, where);
  const n = text.length;
  let i = 0;
  let line = 1;

  const cell = (raw: string, rowLine: number, column: number): SheetCell => {
    const value = raw.trim();
    if (value === '') return null;
    checkText(value, lim, () => where(rowLine, column));
    if (value.charCodeAt(0) === 61 /* = */) {
      throw new SheetError(`${capital(where(rowLine, column))} holds a formula (${clip(value)}): save the sheet with values only`);
    }
    return value;
  };

  while (i < n) {
    const rowLine = line;
    const cells: SheetCell[] = [];
    for (;;) {
      let c = text.charCodeAt(i);
      if (c === 32 && D !== 32) {
        // Spaces before an opening quote: `a, "b"`.
        let j = i;
        while (text.charCodeAt(j) === 32) j++;
        if (text.charCodeAt(j) === 34) {
          i = j;
          c = 34;
        }
      }
      let raw: string;
      if (c === 34) {
        const quoteLine = line;
        let from = i + 1;
        raw = '';
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            throw new SheetError(`Line ${quoteLine}, column ${cells.length + 1}: a quoted value is never closed (a " is missing)`);
          }
          raw += text.slice(from, q);
          line += countLineBreaks(text, from, q);
          if (text.charCodeAt(q + 1) === 34) {
            raw += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        // Anything between the closing quote and the delimiter is kept as text.
        let j = i;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === D || d === 10 || d === 13) break;
          j++;
        }
        if (j > i) raw += text.slice(i, j);
        i = j;
      } else {
        let j = i;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === D || d === 10 || d === 13) break;
          j++;
        }
        raw = text.slice(i, j);
        i = j;
      }
      cells.push(cell(raw, rowLine, cells.length));
      if (i >= n) break;
      c = text.charCodeAt(i);
      if (c === D) {
        i++;
        if (i >= n) cells.push(null);
        continue;
      }
      i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
      line++;
      break;
    }
    builder.add(rowLine, cells);
  }
  return builder.finish();
}
