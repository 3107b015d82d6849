import type { ReactNode } from 'react';

export interface Column<Row> {
  /** The header, and the label a cell shows above itself where the table stacks on a phone. */
  label: string;
  cell: (row: Row) => ReactNode;
  /** A number: right-aligned, its header too. */
  num?: boolean;
  /** Classes of the column's cells (nowrap, wrap, a width), or of one row's cell. */
  className?: string | ((row: Row) => string | undefined);
  /** The cell that names its row, read out as the row's header. */
  rowHeader?: boolean;
  /** A hint on the header. */
  title?: string;
}

interface DataTableProps<Row> {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string | number;
  /** Each row a stack of labelled cells on a phone, instead of a table to scroll sideways. */
  stackOnPhone?: boolean;
  className?: string;
  rowClassName?: (row: Row) => string;
  rowTestId?: string;
  testId?: string;
}

function classes(...names: (string | false | undefined)[]): string | undefined {
  return names.filter(Boolean).join(' ') || undefined;
}

/**
 * A read-only table. The header and each cell's phone label come from one list of columns, so they cannot drift
 * apart, and every table marks numbers and row names the same way.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, rowKey, stackOnPhone, className, rowClassName, rowTestId, testId } = props;
  return (
    <table className={classes('table', stackOnPhone && 'stack-on-phone', className)} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.label} scope="col" className={classes(column.num && 'num')} title={column.title}>
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} className={rowClassName?.(row)} data-testid={rowTestId}>
            {columns.map((column) => {
              const Cell = column.rowHeader ? 'th' : 'td';
              const own = typeof column.className === 'function' ? column.className(row) : column.className;
              return (
                <Cell
                  key={column.label}
                  scope={column.rowHeader ? 'row' : undefined}
                  data-label={column.label}
                  className={classes(column.num && 'num', own)}
                >
                  {column.cell(row)}
                </Cell>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
