/**
 * The readable text of a mail attachment or body, with web-standard APIs only (it runs in the
 * Worker and in the command line): plain text as it is, HTML without its markup, and PDF text
 * drawn with the standard fonts (the text-showing operators of each content stream, Flate
 * streams inflated with DecompressionStream). PDFs whose fonts use their own encodings (CID,
 * Type0 subsets) come out partly or not at all: `text` is then what could be read.
 */

import { readCapped } from '#shared/body.ts';

export type TextKind = 'text' | 'html' | 'pdf';

/** Which reader a content type (or, failing that, a file name) calls for; null when none. */
export function textKindOf(contentType: string, name = ''): TextKind | null {
  const type = contentType.toLowerCase().split(';')[0]!.trim();
  const ext = name.toLowerCase().split('.').pop() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml' || ['html', 'htm'].includes(ext)) return 'html';
  if (type === 'application/pdf' || ext === 'pdf') return 'pdf';
  if (type.startsWith('text/') || ['application/json', 'application/xml', 'application/csv'].includes(type)) return 'text';
  if (['txt', 'csv', 'ics', 'json', 'xml', 'md', 'eml'].includes(ext)) return 'text';
  return null;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  copy: '©',
  reg: '®',
};

const DROPPED = new Set(['script', 'style', 'head', 'title']);
const BLOCK_END = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'section']);
const BLOCK_START = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'section']);
const TAG_NAME = /<(\/?)([a-z][a-z0-9]*)/iy;

/**
 * HTML's markup removed in one pass (linear in the input, whatever its shape): script, style,
 * head and title elements and comments go; `<br>` and block ends become line breaks (block
 * starts too when `blockStarts`), `<hr>` becomes `hr`; entities are left for the caller.
 */
export function stripTags(html: string, options: { blockStarts?: boolean; hr?: string } = {}): string {
  const out: string[] = [];
  const missing = new Set<string>(); // closings searched for and not found: none further on either
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    out.push(html.slice(i, lt));
    if (html.startsWith('<!--', lt) && !missing.has('-->')) {
      const end = html.indexOf('-->', lt + 4);
      if (end >= 0) {
        i = end + 3;
        continue;
      }
      missing.add('-->');
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) {
      // no tag can close: the rest is text
      i = lt;
      break;
    }
    if (gt === lt + 1) {
      out.push('<>');
      i = gt + 1;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const m = TAG_NAME.exec(html);
    const name = m && m.index === lt ? m[2]!.toLowerCase() : '';
    const closing = m?.[1] === '/';
    i = gt + 1;
    if (!name) continue;
    if (!closing && DROPPED.has(name) && !missing.has(name)) {
      const close = new RegExp(`</${name}\\s*>`, 'gi');
      close.lastIndex = gt + 1;
      const found = close.exec(html);
      if (found) {
        i = found.index + found[0].length;
        continue;
      }
      missing.add(name);
    }
    if (name === 'br') out.push('\n');
    else if (name === 'hr') out.push(options.hr ?? '\n');
    else if (closing ? BLOCK_END.has(name) : options.blockStarts && BLOCK_START.has(name)) out.push('\n');
  }
  out.push(html.slice(i));
  return out.join('');
}

/** HTML as plain text: no script or style, block ends as line breaks, entities decoded. */
export function htmlToText(html: string): string {
  return decodeEntities(stripTags(html))
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Named, decimal and hexadecimal character references decoded (unknown names kept). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const latin1 = new TextDecoder('latin1');

/** The most bytes a document's Flate streams inflate to, all together (a zip bomb stops there). */
export const MAX_INFLATED_BYTES = 20 * 1024 * 1024;

/** A document whose streams inflate past MAX_INFLATED_BYTES. */
export class InflatedTooLarge extends Error {
  constructor() {
    super(`the document's compressed streams inflate to more than ${MAX_INFLATED_BYTES} bytes`);
  }
}

/** A Flate stream inflated, read with a byte cap of what is left of the budget; null when it is not valid. */
async function inflate(bytes: Uint8Array<ArrayBuffer>, budget: { left: number }): Promise<Uint8Array | null> {
  let out: Uint8Array | undefined;
  try {
    out = await readCapped(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate')), budget.left, undefined, 0);
  } catch {
    return null;
  }
  if (!out) throw new InflatedTooLarge();
  budget.left -= out.byteLength;
  return out;
}

/** A PDF string literal's bytes (after the opening parenthesis) and where it ends. */
function literal(src: string, start: number): { text: string; end: number } {
  let depth = 1;
  let out = '';
  let i = start;
  for (; i < src.length && depth > 0; i++) {
    const ch = src[i]!;
    if (ch === '\\') {
      const next = src[++i] ?? '';
      const octal = /^[0-7]{1,3}/.exec(src.slice(i, i + 3));
      if (octal) {
        out += String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff);
        i += octal[0].length - 1;
      } else if (next === '\r' || next === '\n') {
        if (next === '\r' && src[i + 1] === '\n') i++;
      } else out += ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[next] ?? next;
    } else if (ch === '(') {
      depth++;
      out += ch;
    } else if (ch === ')') {
      if (--depth > 0) out += ch;
    } else out += ch;
  }
  return { text: out, end: i };
}

const hexString = (hex: string) => {
  const clean = hex.replace(/\s+/g, '');
  let out = '';
  for (let i = 0; i < clean.length; i += 2) out += String.fromCharCode(Number.parseInt(clean.slice(i, i + 2).padEnd(2, '0'), 16));
  return out;
};

/** The text drawn by one content stream: each text object's strings, a line break per move down. */
function contentText(src: string): string {
  let out = '';
  let pending: string[] = [];
  const tokenRe = /\(|<(?!<)([0-9A-Fa-f\s]*)>|\[|\]|\/[^\s/[\]()<>{}%]+|-?\d*\.?\d+|[A-Za-z'"*]+|%[^\r\n]*/g;
  let operands: string[] = [];
  let inArray = false;
  let arrayParts: string[] = [];
  let match: RegExpExecArray | null;
  const show = (text: string) => {
    out += text;
  };
  while ((match = tokenRe.exec(src))) {
    const token = match[0];
    if (token === '(') {
      const { text, end } = literal(src, tokenRe.lastIndex);
      tokenRe.lastIndex = end;
      (inArray ? arrayParts : pending).push(text);
    } else if (match[1] !== undefined) {
      (inArray ? arrayParts : pending).push(hexString(match[1]));
    } else if (token === '[') {
      inArray = true;
      arrayParts = [];
    } else if (token === ']') {
      inArray = false;
      pending.push(arrayParts.join(''));
    } else if (token.startsWith('%')) {
      continue;
    } else if (/^-?\d*\.?\d+$/.test(token) || token.startsWith('/')) {
      if (inArray) {
        // A large negative kerning inside TJ is a word gap.
        if (Number(token) < -200) arrayParts.push(' ');
      } else operands.push(token);
    } else {
      switch (token) {
        case 'Tj':
          show(pending.join(''));
          break;
        case 'TJ':
          show(pending.join(''));
          break;
        case "'":
        case '"':
          show(`${out && !out.endsWith('\n') ? '\n' : ''}${pending.join('')}`);
          break;
        case 'T*':
          show('\n');
          break;
        case 'Td':
        case 'TD':
          if (Number(operands[1] ?? 0) !== 0) show('\n');
          else if (Number(operands[0] ?? 0) > 0 && !out.endsWith(' ') && !out.endsWith('\n')) show(' ');
          break;
        case 'Tm':
          if (out && !out.endsWith('\n')) show('\n');
          break;
        case 'ET':
          if (out && !out.endsWith('\n')) show('\n');
          break;
      }
      pending = [];
      operands = [];
    }
  }
  return out;
}

/** The text of a PDF document's content streams, in file order; InflatedTooLarge past MAX_INFLATED_BYTES. */
export async function pdfToText(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const src = latin1.decode(bytes);
  if (!src.startsWith('%PDF-')) throw new Error('not a PDF document');
  const parts: string[] = [];
  const budget = { left: MAX_INFLATED_BYTES };
  const streamRe = /<<((?:[^<>]|<<(?:[^<>]|<<[^<>]*>>)*>>|<[^<>]*>)*)>>\s*stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamRe.exec(src))) {
    const dict = match[1]!;
    const start = streamRe.lastIndex;
    const lengthMatch = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    let end = lengthMatch ? start + Number(lengthMatch[1]) : -1;
    if (end < start || src.slice(end, end + 12).search(/^\s*endstream/) !== 0) end = src.indexOf('endstream', start);
    if (end < 0) break;
    streamRe.lastIndex = end;
    if (/\/Subtype\s*\/(Image|Form|XML)|\/Type\s*\/(XObject|Metadata|XRef|ObjStm|EmbeddedFile)|\/Length1|\/FontFile/.test(dict)) continue;
    let data: Uint8Array | null = bytes.subarray(start, end);
    const filters = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(dict)?.[1] ?? '';
    if (filters) {
      if (filters.replace(/[[\]\s]/g, '') !== '/FlateDecode') continue;
      data = await inflate(bytes.slice(start, end), budget);
      if (!data) continue;
    }
    const text = contentText(latin1.decode(data));
    if (text.trim()) parts.push(text);
  }
  return parts
    .join('\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The readable text of bytes of the given kind. */
export async function extractText(kind: TextKind, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  if (kind === 'pdf') return pdfToText(bytes);
  const text = new TextDecoder('utf-8').decode(bytes);
  return kind === 'html' ? htmlToText(text) : text;
}
