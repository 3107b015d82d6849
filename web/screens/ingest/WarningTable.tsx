import { useMemo, useState } from 'react';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount } from '../../format.ts';
import { groupWarnings, type WarningGroup, type WarningRow } from './warnings.ts';

interface WarningTableProps {
  rows: readonly WarningRow[];
  /** Every warning the server counted, listed or not. */
  total: number;
}

/** Kinds of warning shown before "Show all". */
const FIRST_GROUPS = 10;

function lineList(lines: readonly number[], count: number): string {
  const text = lines.map(formatCount).join(', ');
  return count > lines.length ? `${text}, …` : text;
}

const COLUMNS: Column<WarningGroup>[] = [
  { label: 'Lines', num: true, className: 'w-count', cell: (group) => formatCount(group.count) },
  { label: 'File', className: 'wrap w-file', cell: (group) => group.file },
  { label: 'Field', className: 'w-field', cell: (group) => <code>{group.field}</code> },
  { label: 'Message', className: 'wrap w-message', cell: (group) => group.message },
  { label: 'First lines', className: 'w-lines', cell: (group) => lineList(group.lines, group.count) },
];

/** Warnings of stored lines, identical ones folded into one row with their count and first line numbers. */
export function WarningTable({ rows, total }: WarningTableProps) {
  const [all, setAll] = useState(false);
  const groups = useMemo(() => groupWarnings(rows), [rows]);
  if (total === 0) return <p className="empty">No warning: every stored line was read whole.</p>;
  const shown = all ? groups : groups.slice(0, FIRST_GROUPS);
  const unlisted = total - rows.length;
  return (
    <>
      <p className="muted small warning-intro">
        These lines were stored, each with a remark: a member that could not be read was left out, or no server was
        named for the line and one was chosen for it. Identical warnings share a row.
      </p>
      <TableScroll>
        <DataTable
          columns={COLUMNS}
          rows={shown}
          rowKey={(group) => group.key}
          className="warning-table"
          testId="warning-table"
        />
      </TableScroll>
      {groups.length > shown.length ? (
        <p className="panel-foot">
          <button type="button" className="quiet" onClick={() => setAll(true)}>
            Show all {formatCount(groups.length)} kinds of warning
          </button>
        </p>
      ) : null}
      {unlisted > 0 ? (
        <p className="panel-foot muted" data-testid="warnings-unlisted">
          {formatCount(unlisted)} more {unlisted === 1 ? 'warning is' : 'warnings are'} counted but not listed.
        </p>
      ) : null}
    </>
  );
}
