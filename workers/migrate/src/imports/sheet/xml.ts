// A small streaming XML scanner, enough for the parts of an .xlsx (never a whole part at once), and
// the decoding of their text: entities and the _xHHHH_ escapes of OOXML strings, as SheetJS decodes them.

import { formatBytes, type SheetError } from './common.ts';

// ----- XML text: entities and the _xHHHH_ escapes of OOXML strings, decoded as SheetJS decodes them

const NAMED_ENTITIES: Record<string, string> = { quot: '"', apos: "'", gt: '>', lt: '<', amp: '&' };
const ENTITY = /&(?:(quot|apos|gt|lt|amp)|#[xX]([\da-fA-F]+)|#(\d+));/g;
const ESCAPE = /_x([\da-fA-F]{4})_/gi;

function entityText(match: string, name: string | undefined, hex: string | undefined, dec: string | undefined): string {
  if (name !== undefined) return NAMED_ENTITIES[name] ?? match;
  const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
  return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : match;
}

export function decodeXml(raw: string): string {
  let s = raw;
  if (s.indexOf('&') >= 0) s = s.replace(ENTITY, entityText);
  if (s.indexOf('_') >= 0) s = s.replace(ESCAPE, (_m: string, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return s;
}

/**
 * A copy of text cut from a chunk of a part, that does not keep the whole chunk alive: V8 makes a
 * longer piece of a string a view of it, and the rows would otherwise hold on to every chunk of the
 * sheet. (Pieces under 13 characters are copies already; a JSON round trip is the quickest flat copy.)
 */
export function detach(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** Text of a string cell: Windows line ends become \n (as SheetJS reads them). */
export function stringText(text: string): string {
  return text.indexOf('\r\n') >= 0 ? text.replace(/\r\n/g, '\n') : text;
}

// ----- A small streaming XML scanner: enough for the parts of an .xlsx, never the whole part at once

export interface XmlHandler {
  /** Whether the text between tags matters now (it is not even sliced out otherwise). It may come in pieces. */
  wantText: boolean;
  /** Set to stop reading the part. */
  done: boolean;
  /** name: without its namespace prefix; attrs: the raw attribute text. A self-closing tag is followed by close(). */
  open(name: string, attrs: string): void;
  close(name: string): void;
  /** raw: undecoded text (a piece of it: an entity may be cut in two), or the literal content of a CDATA section. */
  text(raw: string, cdata: boolean): void;
}

/** What a handler collects of the text of an element, decoded once it is complete. */
export class TextPieces {
  private raw = '';
  private decoded = '';
  reset(): void {
    this.raw = '';
    this.decoded = '';
  }
  add(raw: string, cdata: boolean): void {
    if (cdata) {
      this.decoded += decodeXml(this.raw) + raw;
      this.raw = '';
    } else this.raw += raw;
  }
  text(): string {
    const tail = decodeXml(this.raw);
    return this.decoded ? this.decoded + tail : tail;
  }
}

/** The longest tag (or comment, CDATA section…) that may wait for the rest of it in the next chunk. */
const MAX_TAG = 1024 * 1024;

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

export class XmlScanner {
  private rest = '';

  constructor(
    private readonly h: XmlHandler,
    private readonly damaged: (why: string) => SheetError,
  ) {}

  /** Scans what has arrived; keeps an unfinished tag or text for the next chunk. Returns true once the handler is done. */
  feed(chunk: string): boolean {
    const s = this.rest.length ? this.rest + chunk : chunk;
    const n = s.length;
    const h = this.h;
    let i = 0;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        // Text that may go on in the next chunk: what has come so far.
        if (h.wantText) h.text(s.slice(i), false);
        i = n;
        break;
      }
      if (lt > i && h.wantText) h.text(s.slice(i, lt), false);
      i = lt;
      if (lt + 1 >= n) break;
      const c = s.charCodeAt(lt + 1);
      if (c === 47 /* / */) {
        const gt = s.indexOf('>', lt + 2);
        if (gt < 0) break;
        h.close(localName(s.slice(lt + 2, gt).trim()));
        i = gt + 1;
      } else if (c === 63 /* ? */) {
        const end = s.indexOf('?>', lt + 2);
        if (end < 0) break;
        i = end + 2;
      } else if (c === 33 /* ! */) {
        if (n - lt < 9) break;
        if (s.startsWith('![CDATA[', lt + 1)) {
          const end = s.indexOf(']]>', lt + 9);
          if (end < 0) break;
          if (h.wantText) h.text(s.slice(lt + 9, end), true);
          i = end + 3;
        } else if (s.startsWith('!--', lt + 1)) {
          const end = s.indexOf('-->', lt + 4);
          if (end < 0) break;
          i = end + 3;
        } else {
          // <!DOCTYPE …>, possibly with an internal subset in brackets.
          const bracket = s.indexOf('[', lt);
          let gt = s.indexOf('>', lt);
          if (bracket >= 0 && gt >= 0 && bracket < gt) {
            const close = s.indexOf(']', bracket);
            gt = close < 0 ? -1 : s.indexOf('>', close);
          }
          if (gt < 0) break;
          i = gt + 1;
        }
      } else {
        let j = lt + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (d === 62 /* > */ || d === 47 /* / */ || isSpace(d)) break;
          j++;
        }
        // The end of the tag, past quoted attribute values (which may hold a >).
        let k = j;
        let quote = 0;
        while (k < n) {
          const d = s.charCodeAt(k);
          if (quote) {
            if (d === quote) quote = 0;
          } else if (d === 62) break;
          else if (d === 34 || d === 39) quote = d;
          k++;
        }
        if (k >= n) break;
        const empty = s.charCodeAt(k - 1) === 47 && k - 1 >= j;
        const name = localName(s.slice(lt + 1, j));
        h.open(name, s.slice(j, empty ? k - 1 : k));
        if (empty && !h.done) h.close(name);
        i = k + 1;
      }
      if (h.done) {
        this.rest = '';
        return true;
      }
    }
    this.rest = i < n ? s.slice(i) : '';
    if (this.rest.length > MAX_TAG) throw this.damaged(`a tag is longer than ${formatBytes(MAX_TAG)}`);
    return false;
  }
}

/** The value of an attribute, by its name without prefix (namespace declarations aside); raw, undecoded. */
export function attr(attrs: string, want: string): string | undefined {
  const n = attrs.length;
  let i = 0;
  while (i < n) {
    let c = attrs.charCodeAt(i);
    if (isSpace(c) || c === 47) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && (c = attrs.charCodeAt(i)) !== 61 /* = */ && !isSpace(c)) i++;
    const end = i;
    while (i < n && attrs.charCodeAt(i) !== 61) i++;
    i++;
    while (i < n && isSpace(attrs.charCodeAt(i))) i++;
    const q = attrs.charCodeAt(i);
    if (q !== 34 && q !== 39) return undefined;
    const close = attrs.indexOf(q === 34 ? '"' : "'", i + 1);
    if (close < 0) return undefined;
    const colon = attrs.lastIndexOf(':', end - 1);
    const local = colon >= start ? colon + 1 : start;
    if (end - local === want.length && attrs.startsWith(want, local) && !(colon >= start && attrs.startsWith('xmlns', start))) {
      return attrs.slice(i + 1, close);
    }
    i = close + 1;
  }
  return undefined;
}
