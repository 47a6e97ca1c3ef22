// The sheet itself, row by row.

import { columnIndex, columnName, errorName, excelDate, isoSerial, MAX_COLUMN } from './cells.ts';
import type { NumberKind } from './number-format.ts';
import { capital, checkText, clip, type Limits, type Sheet, SheetBuilder, type SheetCell, SheetError, type SheetRow } from './common.ts';
import { attr, detach, stringText, TextPieces, type XmlHandler } from './xml.ts';

type Into = 'nothing' | 'value' | 'formula' | 'inline';

/**
 * Reads <sheetData> as it streams past: each cell is converted when its </c> arrives and each row
 * goes to the builder at its </row>. Column 1 of the result is the first column that holds
 * anything in the whole sheet: while no cell of column A has been seen, the rows wait here (they
 * are the result's rows anyway), and a problem found meanwhile waits for the column to be known.
 */
export class SheetDataReader implements XmlHandler {
  wantText = false;
  done = false;
  /** The first column that holds anything; final once it is 0 or the sheet has been read. */
  startCol = 0;

  private readonly builder: SheetBuilder;
  /** Rows past this one are not read: one holding anything means too many rows. */
  private readonly lastRow: number;
  private minCol = Number.MAX_SAFE_INTEGER;
  /** Rows waiting for the first column to be known; null once it is (column A holds something). */
  private waiting: SheetRow[] | null = [];
  /** A problem found while rows were waiting: thrown once they have gone to the builder. */
  private pending: SheetError | null = null;

  private inData = false;
  private inRow = false;
  private row = 0;
  private cells: SheetCell[] = [];
  private rowHolds = false;
  private col = -1;

  private inCell = false;
  private cellType: string | undefined;
  private cellStyle: string | undefined;
  private value: string | undefined;
  private formula: string | undefined;
  private inline: string | undefined;
  private into: Into = 'nothing';
  private phonetic = 0;
  private readonly piece = new TextPieces();

  constructor(
    private readonly strings: string[],
    private readonly kinds: NumberKind[],
    private readonly date1904: boolean,
    private readonly lim: Limits,
    sheetName: string,
    private readonly damaged: (why: string) => SheetError,
  ) {
    this.lastRow = lim.maxRows + 2;
    this.builder = new SheetBuilder('xlsx', sheetName, lim, (line, column) => `cell ${columnName(this.startCol + column)}${line}`);
  }

  open(name: string, attrs: string): void {
    if (!this.inData) {
      if (name === 'sheetData') this.inData = true;
      return;
    }
    if (this.inCell) {
      switch (name) {
        case 'v':
          if (this.into !== 'inline') this.start('value');
          break;
        case 'f':
          this.start('formula');
          if (this.formula === undefined) this.formula = '';
          break;
        case 'is':
          this.into = 'inline';
          this.inline = '';
          this.phonetic = 0;
          break;
        case 'rPh':
          this.phonetic++;
          break;
        case 't':
          if (this.into === 'inline' && this.phonetic === 0) {
            this.wantText = true;
            this.piece.reset();
          }
          break;
      }
      return;
    }
    if (name === 'c') {
      if (!this.inRow) return;
      const ref = attr(attrs, 'r');
      const col = ref === undefined ? -1 : columnIndex(ref);
      this.col = col >= 0 ? col : this.col + 1;
      if (this.col > MAX_COLUMN) throw this.damaged(`cell ${ref ?? ''} of row ${this.row} is beyond column XFD`);
      this.inCell = true;
      this.cellType = attr(attrs, 't');
      this.cellStyle = attr(attrs, 's');
      this.value = undefined;
      this.formula = undefined;
      this.inline = undefined;
      this.into = 'nothing';
    } else if (name === 'row') {
      const r = attr(attrs, 'r');
      const line = r === undefined ? this.row + 1 : parseInt(r, 10);
      if (!(line > this.row)) {
        throw this.damaged(Number.isFinite(line) ? `row ${line} comes after row ${this.row}` : `a row is numbered "${clip(r ?? '')}"`);
      }
      this.row = line;
      // Waiting for the first column only: rows past the last one read do not count.
      if (this.pending && line > this.lastRow) this.done = true;
      this.inRow = true;
      // Once the header is known, a row's array is made the size the result keeps.
      const width = this.waiting === null ? this.builder.width : null;
      this.cells = width === null ? [] : new Array<SheetCell>(width).fill(null);
      this.rowHolds = false;
      this.col = -1;
    }
  }

  private start(into: Into): void {
    this.into = into;
    this.wantText = true;
    this.piece.reset();
  }

  close(name: string): void {
    if (!this.inData) return;
    if (this.inCell) {
      switch (name) {
        case 'v':
          if (this.into === 'value') {
            if (this.value === undefined) {
              const text = this.piece.text();
              if (text !== '') this.value = text;
            }
            this.into = 'nothing';
            this.wantText = false;
          }
          break;
        case 'f':
          if (this.into === 'formula') {
            if (this.formula === '') this.formula = this.piece.text();
            this.into = 'nothing';
            this.wantText = false;
          }
          break;
        case 't':
          if (this.into === 'inline' && this.wantText) {
            this.inline += this.piece.text();
            this.wantText = false;
          }
          break;
        case 'rPh':
          if (this.phonetic > 0) this.phonetic--;
          break;
        case 'is':
          if (this.into === 'inline') this.into = 'nothing';
          this.wantText = false;
          break;
        case 'c':
          this.inCell = false;
          this.into = 'nothing';
          this.wantText = false;
          this.endCell();
          break;
      }
      return;
    }
    if (name === 'row') {
      if (this.inRow) this.endRow();
      this.inRow = false;
    } else if (name === 'sheetData') {
      this.inData = false;
      this.done = true;
    }
  }

  text(raw: string, cdata: boolean): void {
    this.piece.add(raw, cdata);
  }

  /** What SheetJS keeps of a cell (the rest is as good as absent, even for the first column). */
  private holds(): boolean {
    if (this.formula) return true;
    const t = this.cellType;
    if (t === undefined) return this.value !== undefined;
    if (t === 'n' || t === 's') return this.value !== undefined && this.value !== '';
    return true;
  }

  private endCell(): void {
    if (this.pending || this.row > this.lastRow) {
      if (!this.holds()) return;
      if (this.row > this.lastRow) this.fail(this.tooManyRows(), true);
      else this.seeColumn(this.col);
      return;
    }
    let value: SheetCell | undefined;
    try {
      value = this.convert();
    } catch (error) {
      if (error instanceof SheetError) {
        this.seeColumn(this.col);
        this.fail(error, false);
        return;
      }
      throw error;
    }
    if (value === undefined) return;
    this.seeColumn(this.col);
    const cells = this.cells;
    while (cells.length < this.col) cells.push(null);
    cells[this.col] = value;
    this.rowHolds = true;
  }

  private seeColumn(col: number): void {
    if (col < this.minCol) this.minCol = col;
    if (this.pending && this.minCol === 0) this.done = true;
  }

  private tooManyRows(): SheetError {
    return new SheetError(`The sheet has more than ${this.lim.maxRows} data rows: split it into smaller files`);
  }

  /** A problem at the current cell: at once if every earlier row has gone to the builder, else once they have. */
  private fail(error: SheetError, final: boolean): void {
    if (this.waiting === null) throw error;
    this.pending ??= error;
    // Done once the first column is known: column A holds something, or the rows past the last
    // one read (which do not count) have begun.
    if (final || this.minCol === 0) this.done = true;
  }

  private endRow(): void {
    if (this.pending || !this.rowHolds) return;
    const row: SheetRow = { line: this.row, cells: this.cells };
    if (this.waiting === null) {
      this.builder.add(row.line, row.cells);
      return;
    }
    this.waiting.push(row);
    if (this.minCol === 0) this.release(0);
  }

  /** The rows that waited go to the builder, from the first column on. */
  private release(startCol: number): void {
    const waiting = this.waiting ?? [];
    this.waiting = null;
    this.startCol = startCol;
    for (let k = 0; k < waiting.length; k++) {
      const row = waiting[k]!;
      this.builder.add(row.line, startCol ? row.cells.slice(startCol) : row.cells);
    }
  }

  /** After the sheet has been read (or given up on): the result, or the first problem in row order. */
  finish(): Sheet {
    if (this.waiting !== null) this.release(this.minCol === Number.MAX_SAFE_INTEGER ? 0 : this.minCol);
    if (this.pending) throw this.pending;
    return this.builder.finish();
  }

  private where = (): string => `cell ${columnName(this.col)}${this.row}`;

  private convert(): SheetCell | undefined {
    const where = this.where;
    if (this.formula) {
      const formula = `=${stringText(this.formula).replace(/_xlfn\./g, '')}`;
      throw new SheetError(`${capital(where())} holds a formula (${clip(formula)}): save the sheet with values only`);
    }
    const t = this.cellType;
    const v = this.value;
    if (t === undefined && v === undefined) return undefined;
    switch (t ?? 'n') {
      case 'n':
        if (v === undefined || v === '') return undefined;
        return this.number(parseFloat(v));
      case 's': {
        if (v === undefined) return undefined;
        const text = this.strings[parseInt(v, 10)];
        if (text === undefined) throw this.damaged(`${where()} names shared string ${clip(v)}, which does not exist`);
        return this.textCell(text);
      }
      case 'str':
        return this.textCell(stringText(v ?? ''));
      case 'inlineStr':
        return this.textCell(stringText(this.inline ?? ''));
      case 'b':
        return v === '1' || v === 'true';
      case 'e':
        throw new SheetError(`${capital(where())} holds an error (${errorName(v)}): correct it or clear the cell`);
      case 'd':
        return v === undefined ? null : this.number(isoSerial(v, this.date1904));
      default:
        return null;
    }
  }

  private textCell(raw: string): SheetCell {
    const value = raw.trim();
    if (value === '') return null;
    checkText(value, this.lim, this.where);
    return detach(value);
  }

  private number(v: number): SheetCell {
    if (!Number.isFinite(v)) return null;
    const style = this.cellStyle;
    const kind = style === undefined ? 'number' : (this.kinds[parseInt(style, 10)] ?? 'number');
    if (kind === 'date') return excelDate(v, this.date1904, this.where);
    if (kind === 'time') return Math.round(v * 86_400_000) / 1000;
    return v;
  }
}
