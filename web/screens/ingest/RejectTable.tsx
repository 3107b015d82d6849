import { formatCount } from '../../format.ts';
import type { RejectRow } from './use-ingest.ts';

interface RejectTableProps {
  rows: readonly RejectRow[];
  total: number;
}

/** The rejected lines, by file line number; text only, as the server worded them. */
export function RejectTable({ rows, total }: RejectTableProps) {
  if (total === 0) return <p className="empty">No line was rejected.</p>;
  const more = total - rows.length;
  return (
    <>
      <div className="table-wrap">
        <table className="table stack-on-phone" data-testid="reject-table">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col" className="num">
                Line
              </th>
              <th scope="col">Code</th>
              <th scope="col">Field</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <td data-label="File" className="wrap">
                  {row.file}
                </td>
                <td data-label="Line" className="num">
                  {row.line}
                </td>
                <td data-label="Code">
                  <code>{row.code}</code>
                </td>
                <td data-label="Field">
                  {row.field === null ? <span className="muted">–</span> : <code>{row.field}</code>}
                </td>
                <td data-label="Message" className="wrap">
                  {row.message}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more > 0 ? (
        <p className="panel-foot muted">
          {formatCount(more)} more rejected {more === 1 ? 'line is' : 'lines are'} not listed.
        </p>
      ) : null}
    </>
  );
}
