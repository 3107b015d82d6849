import { APPLIED_COLUMNS } from '../../../shared/analysis/context-gap.ts';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount } from '../../format.ts';
import { matrixRows } from '../../prepare/context-gap.ts';
import type { ContextGap } from '../../queries/context-gap.ts';

const LABEL: Readonly<Record<string, string>> = {
  none: 'none',
  thisServer: 'this server',
  allServers: 'all servers',
  not_reported: 'not reported',
};

/** requested × applied; trimmed cells (applied less than asked) in the refusal colour, unreported in grey. */
export function GapMatrix({ matrix }: { matrix: ContextGap['matrix'] }) {
  return (
    <>
      <p className="muted small matrix-key">
        Rows: the context a request asked for (includeContext). Columns: the context the client says it applied.
      </p>
      <TableScroll>
        <table className="table matrix sticky-first">
          <thead>
            <tr>
              <th scope="col">
                asked ↓<br />
                applied →
              </th>
              {APPLIED_COLUMNS.map((applied) => (
                <th key={applied} scope="col" className="num">
                  {LABEL[applied]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {matrixRows(matrix).map((row) => (
              <tr key={row.requested}>
                <th scope="row">{LABEL[row.requested]}</th>
                {row.cells.map((cell) => (
                  <td key={cell.applied} className={`num cell-${cell.count === 0 ? 'zero' : cell.verdict}`}>
                    {formatCount(cell.count)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}
