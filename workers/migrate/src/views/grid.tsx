import type { Child } from 'hono/jsx';

/** The `data-*` hooks a table or its body is found by (page scripts, tests). */
type DataAttributes = Record<`data-${string}`, string | boolean>;

/** A wide table that scrolls sideways in its own box on a narrow screen. */
export const Scroll = ({ children, label }: { children?: Child; label: string }) => (
  <div class="table-scroll" role="region" aria-label={label} tabindex={0}>
    {children}
  </div>
);

/**
 * A table in the pages' `grid` style: a header row of `columns` and one row per item. With `scroll`
 * it sits in a scrolling box of that name; with `empty`, a list without items shows that sentence
 * instead of an empty table.
 */
export function Grid<T>({
  columns,
  rows,
  row,
  scroll,
  empty,
  data,
  body,
}: {
  columns: readonly string[];
  rows: readonly T[];
  row: (item: T) => Child;
  scroll?: string;
  empty?: string;
  data?: DataAttributes;
  body?: DataAttributes;
}) {
  if (empty !== undefined && rows.length === 0) return <p>{empty}</p>;
  const table = (
    <table class="grid" {...data}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th>{column}</th>
          ))}
        </tr>
      </thead>
      <tbody {...body}>{rows.map((item) => row(item))}</tbody>
    </table>
  );
  return scroll === undefined ? table : <Scroll label={scroll}>{table}</Scroll>;
}
