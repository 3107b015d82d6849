import { APPLIED_COLUMNS } from '../../../shared/analysis/context-gap.ts';
import { formatCount } from '../../format.ts';
import { matrixRows } from '../../prepare/context-gap.ts';
import type { ContextGap } from '../../queries/context-gap.ts';

const LABEL: Readonly<Record<string, string>> = {
  none: 'none',
  thisServer: 'thisServer',
  allServers: 'allServers',
  not_reported: 'not reported',
};

/** requested × applied; trimmed cells (applied less than asked) in the refusal colour, unreported in grey. */
export function GapMatrix({ matrix }: { matrix: ContextGap['matrix'] }) {
  return (
    <div className="table-wrap">
      <table className="table matrix">
        <caption className="muted">Rows: includeContext requested. Columns: context the client applied.</caption>
        <thead>
          <tr>
            <th scope="col">requested ↓ / applied →</th>
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
    </div>
  );
}
