// What a row filter reads and gives, and the error whose message the user sees.

export type FilterValue = string | number | boolean | null;
export type FilterRow = Readonly<Record<string, FilterValue>>;
export type RowFilter = (row: FilterRow) => boolean;

/** Message shown to the user as is: say what is wrong and where (character position). */
export class SheetFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SheetFilterError';
  }
}
