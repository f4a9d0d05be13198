// The console's lists: a `table.list` in its scrolling wrapper, with a caption (shown, or only for
// screen readers), one header row (a column marked wide is hidden on a phone) and the rows given.
import type { ComponentChildren } from 'preact';

export type Column = ComponentChildren | { label: ComponentChildren; wide: true };

function isWide(column: Column): column is { label: ComponentChildren; wide: true } {
  return typeof column === 'object' && column !== null && 'wide' in column;
}

export function ListTable({
  class: kind,
  wrap,
  caption,
  hiddenCaption,
  columns,
  children,
}: {
  /** Classes beside `list`. */
  class?: string;
  /** Classes beside the wrapper's `table-wrap`. */
  wrap?: string;
  caption: ComponentChildren;
  hiddenCaption?: boolean;
  columns: Column[];
  children: ComponentChildren;
}) {
  return (
    <div class={wrap ? `table-wrap ${wrap}` : 'table-wrap'}>
      <table class={kind ? `list ${kind}` : 'list'}>
        <caption class={hiddenCaption ? 'visually-hidden' : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, i) =>
              isWide(column) ? (
                <th key={i} scope="col" class="wide-only">
                  {column.label}
                </th>
              ) : (
                <th key={i} scope="col">
                  {column}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
