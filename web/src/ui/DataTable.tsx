import { Table, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';

/** One column of a DataTable: its header, its cell for a row, and (optionally) its sort key. */
export type Column<T> = {
  key: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Set: the header is a button that sorts by this column. */
  sortable?: boolean;
  width?: number | string;
  /** The cell is a row header (`<th scope="row">`): the row's name for screen readers. */
  rowHeader?: boolean;
};

export type SortState = { by: string; dir: 'asc' | 'desc' };

type Props<T> = {
  /** The table's accessible name; also names its sideways-scrolling region. */
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Below this width the table scrolls sideways (so it stays readable at 390 px). */
  minWidth?: number;
  busy?: boolean;
  sort?: SortState;
  onSort?: (by: string) => void;
  striped?: boolean;
};

/**
 * The dashboard's one data table: striped rows, sortable headers that say their order
 * (`aria-sort`), and a viewport that scrolls sideways on narrow screens and takes focus, so a
 * keyboard user scrolls it with the arrow keys (WCAG 2.1.1).
 */
export function DataTable<T>({ label, columns, rows, rowKey, minWidth = 560, busy, sort, onSort, striped = true }: Props<T>) {
  const ariaSort = (key: string) => (sort?.by === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
  const arrow = (key: string) => (sort?.by === key ? (sort.dir === 'asc' ? ' ↑' : ' ↓') : '');
  return (
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } }}>
      <Table striped={striped} highlightOnHover aria-label={label} aria-busy={busy}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.key} w={column.width} aria-sort={column.sortable ? ariaSort(column.key) : undefined}>
                {column.sortable && onSort ? (
                  <UnstyledButton onClick={() => onSort(column.key)} fw={600} fz="sm">
                    {column.header}
                    {arrow(column.key)}
                  </UnstyledButton>
                ) : (
                  column.header
                )}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((column) =>
                column.rowHeader ? (
                  <Table.Th key={column.key} scope="row" fw="normal">
                    {column.cell(row)}
                  </Table.Th>
                ) : (
                  <Table.Td key={column.key}>{column.cell(row)}</Table.Td>
                ),
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Sort state after a click on `by`: a new column sorts ascending, the same one flips. */
export const nextSort = (current: SortState, by: string): SortState => ({ by, dir: current.by === by && current.dir === 'asc' ? 'desc' : 'asc' });
