// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact';

/** One column of a DataTable: its head, and what each row shows in it. */
export interface Column<T> {
  head: string;
  cell: (row: T) => ComponentChildren;
  /** On a phone, in the row's first line (the order number and its state, the checkbox); the rest go beneath. */
  top?: boolean;
  /** On a phone, beneath without its head before it: the cell says what it is (a claim id that links). */
  bare?: boolean;
  /** The head read out but not shown (a checkbox column). */
  hideHead?: boolean;
  /** A class of its cells (`text`: the words as written, wrapped anywhere). */
  class?: string;
}

/**
 * The one table of the dashboard's lists (D50): a caption, a head per column, a row per item.
 * Words are never broken inside, on a desktop or a phone; below 640 px each row is a block of
 * its own (style.css, `table.data`): the `top` cells on the first line, the others beneath,
 * each after its head, so a phone never scrolls sideways and a row stays a few lines tall.
 */
export function DataTable<T>(props: {
  label: string;
  caption: ComponentChildren;
  /** The caption for screen readers only. */
  quietCaption?: boolean;
  columns: Column<T>[];
  rows: T[];
  rowClass?: (row: T) => string | undefined;
}) {
  const { columns } = props;
  return (
    <section class="table-wrap" aria-label={props.label}>
      <table class="data">
        <caption class={props.quietCaption ? 'visually-hidden' : 'muted'}>{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col">{c.hideHead ? <span class="visually-hidden">{c.head}</span> : c.head}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr class={props.rowClass?.(row)}>
              {columns.map((c) => (
                <td
                  class={[c.top ? 'top' : '', c.class ?? ''].filter(Boolean).join(' ') || undefined}
                  data-label={c.top || c.bare ? undefined : c.head}
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
