import { BucketBadge } from '../../components/BucketBadge.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { codeParts, kindRows } from '../../prepare/kinds.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';

/**
 * Why this server's requests failed in the range: per bucket and kind, and per code. The events screen filters by
 * bucket and kind, not by code, so a code row opens the events of the kind it was classified as.
 */
export function KindsPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  const eventsOf = (bucket: string, kind: string) => link('/events', { server, bucket, kind });
  return (
    <Panel
      title="Failures by kind and code"
      what="the failure kinds"
      query={query}
      minHeight={160}
      isEmpty={(data) => data.counts.total === data.counts.buckets.ok}
      empty="No failed request to this server in this range."
      testId="server-kinds"
    >
      {(data) => (
        <div className="grid kind-tables">
          <div className="table-wrap">
            <h3>Per bucket and kind</h3>
            <table className="table" data-testid="kind-table">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col" className="num">
                    Requests
                  </th>
                  <th scope="col" className="num" title="Of the failed requests">
                    Share
                  </th>
                </tr>
              </thead>
              <tbody>
                {kindRows(data.counts).map((row) => (
                  <tr key={`${row.bucket}/${row.kind}`}>
                    <td>
                      <Link href={eventsOf(row.bucket, row.kind)} title="Open these events">
                        <BucketBadge bucket={row.bucket} kind={row.kind} />
                      </Link>
                    </td>
                    <td className="num">{formatCount(row.requests)}</td>
                    <td className="num">{formatShare(row.share)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="table-wrap">
            <h3>Per code</h3>
            <table className="table" data-testid="code-table">
              <thead>
                <tr>
                  <th scope="col">Code</th>
                  <th scope="col">Classified as</th>
                  <th scope="col" className="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.codes.map((row) => (
                  <tr key={`${row.rpcCode}/${row.httpStatus}/${row.bucket}/${row.kind}`}>
                    <td>
                      {codeParts(row).map((part, index) => (
                        <span key={part}>
                          {index > 0 ? ' · ' : ''}
                          <span className="nowrap">{part}</span>
                        </span>
                      ))}
                    </td>
                    <td>
                      <Link href={eventsOf(row.bucket, row.kind)} title="Open the events of this kind">
                        <BucketBadge bucket={row.bucket} kind={row.kind} />
                      </Link>
                    </td>
                    <td className="num">{formatCount(row.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Panel>
  );
}
