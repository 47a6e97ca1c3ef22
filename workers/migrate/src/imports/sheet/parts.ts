// The parts of an .xlsx around the sheet: relationships, the workbook, shared strings and styles.

import { BUILTIN_FORMATS, type NumberKind, numberKind } from './number-format.ts';
import { attr, decodeXml, detach, stringText, TextPieces, type XmlHandler } from './xml.ts';

type Relationship = { type: string; target: string; external: boolean };

/** A part's path from a relationship's target, relative to the folder of the part that names it. */
export function resolvePart(folder: string, target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : folder + target;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '.' && segment !== '') out.push(segment);
  }
  return out.join('/');
}

export class RelsReader implements XmlHandler {
  wantText = false;
  done = false;
  readonly byId = new Map<string, Relationship>();
  readonly all: Relationship[] = [];
  open(name: string, attrs: string): void {
    if (name !== 'Relationship') return;
    const rel: Relationship = {
      type: attr(attrs, 'Type') ?? '',
      target: decodeXml(attr(attrs, 'Target') ?? ''),
      external: attr(attrs, 'TargetMode') === 'External',
    };
    const id = attr(attrs, 'Id');
    if (id !== undefined && !this.byId.has(id)) this.byId.set(id, rel);
    this.all.push(rel);
  }
  close(): void {}
  text(): void {}
  ofType(suffix: string): Relationship | undefined {
    return this.all.find((r) => !r.external && r.type.endsWith(suffix));
  }
}

export class WorkbookReader implements XmlHandler {
  wantText = false;
  done = false;
  date1904 = false;
  /** The first sheet: its name and relationship id. */
  sheet: { name: string; rid: string | undefined } | null = null;
  open(name: string, attrs: string): void {
    if (name === 'workbookPr') {
      const v = attr(attrs, 'date1904');
      this.date1904 = v === '1' || v === 'true';
    } else if (name === 'sheet' && !this.sheet) {
      this.sheet = { name: detach(decodeXml(attr(attrs, 'name') ?? '')), rid: attr(attrs, 'id') };
    }
  }
  close(name: string): void {
    if (name === 'sheets' && this.sheet) this.done = true;
  }
  text(): void {}
}

/** Every string of the shared-strings table: runs of rich text joined, phonetic runs left out. */
export class SharedStringsReader implements XmlHandler {
  wantText = false;
  done = false;
  readonly strings: string[] = [];
  private inItem = false;
  private phonetic = 0;
  private item = '';
  private readonly piece = new TextPieces();
  open(name: string): void {
    if (name === 'si') {
      this.inItem = true;
      this.phonetic = 0;
      this.item = '';
    } else if (!this.inItem) return;
    else if (name === 'rPh') this.phonetic++;
    else if (name === 't' && this.phonetic === 0) {
      this.wantText = true;
      this.piece.reset();
    }
  }
  close(name: string): void {
    if (!this.inItem) return;
    if (name === 't') {
      if (this.wantText) this.item += this.piece.text();
      this.wantText = false;
    } else if (name === 'rPh') this.phonetic = Math.max(0, this.phonetic - 1);
    else if (name === 'si') {
      this.strings.push(detach(stringText(this.item)));
      this.inItem = false;
      this.item = '';
    }
  }
  text(raw: string, cdata: boolean): void {
    this.piece.add(raw, cdata);
  }
}

/** The number format of each cell style (cellXfs), as a kind: plain number, date or time of day. */
export class StylesReader implements XmlHandler {
  wantText = false;
  done = false;
  private readonly formats = new Map<number, string>();
  private readonly xfFormats: number[] = [];
  private inNumFmts = false;
  private inCellXfs = false;
  private depth = 0;
  open(name: string, attrs: string): void {
    if (name === 'numFmts') this.inNumFmts = true;
    else if (name === 'cellXfs') {
      this.inCellXfs = true;
      this.depth = 0;
    } else if (this.inNumFmts && name === 'numFmt') {
      const id = parseInt(attr(attrs, 'numFmtId') ?? '', 10);
      const code = attr(attrs, 'formatCode');
      if (Number.isFinite(id) && code !== undefined) this.formats.set(id, decodeXml(code));
    } else if (this.inCellXfs) {
      if (name === 'xf' && this.depth === 0) {
        const id = parseInt(attr(attrs, 'numFmtId') ?? '', 10);
        this.xfFormats.push(Number.isFinite(id) ? id : 0);
      }
      this.depth++;
    }
  }
  close(name: string): void {
    if (name === 'numFmts') this.inNumFmts = false;
    else if (name === 'cellXfs') this.inCellXfs = false;
    else if (this.inCellXfs) this.depth--;
  }
  text(): void {}
  kinds(): NumberKind[] {
    const cache = new Map<string, NumberKind>();
    return this.xfFormats.map((id) => {
      const format = this.formats.get(id) ?? BUILTIN_FORMATS[id];
      return format === undefined || format === 'General' ? 'number' : numberKind(format, cache);
    });
  }
}
