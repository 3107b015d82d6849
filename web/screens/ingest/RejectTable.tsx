import { type Column, DataTable } from '../../components/DataTable.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount } from '../../format.ts';
import type { RejectRow } from './use-ingest.ts';

interface RejectTableProps {
  rows: readonly RejectRow[];
  total: number;
}

const COLUMNS: Column<RejectRow>[] = [
  { label: 'File', className: 'wrap', cell: (row) => row.file },
  { label: 'Line', num: true, cell: (row) => row.line },
  { label: 'Code', cell: (row) => <code>{row.code}</code> },
  {
    label: 'Field',
    cell: (row) => (row.field === null ? <span className="muted">–</span> : <code>{row.field}</code>),
  },
  { label: 'Message', className: 'wrap', cell: (row) => row.message },
];

/** The rejected lines, by file line number; text only, as the server worded them. */
export function RejectTable({ rows, total }: RejectTableProps) {
  if (total === 0) return <p className="empty">No line was rejected.</p>;
  const more = total - rows.length;
  return (
    <>
      <TableScroll>
        <DataTable columns={COLUMNS} rows={rows} rowKey={(row) => row.key} stackOnPhone testId="reject-table" />
      </TableScroll>
      {more > 0 ? (
        <p className="panel-foot muted">
          {formatCount(more)} more rejected {more === 1 ? 'line is' : 'lines are'} not listed.
        </p>
      ) : null}
    </>
  );
}
