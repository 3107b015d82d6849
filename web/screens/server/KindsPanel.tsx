import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { codeParts, type KindRow, kindRows } from '../../prepare/kinds.ts';
import type { CodeCount, ServerDetail } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';

/**
 * Why this server's requests failed in the range: per bucket and kind, and per code. The events screen filters by
 * bucket and kind, not by code, so a code row opens the events of the kind it was classified as.
 */
export function KindsPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  const eventsOf = (bucket: string, kind: string) => link('/events', { server, bucket, kind });
  const kindColumns: Column<KindRow>[] = [
    {
      label: 'Kind',
      cell: (row) => (
        <Link href={eventsOf(row.bucket, row.kind)} title="Open these events">
          <BucketBadge bucket={row.bucket} kind={row.kind} />
        </Link>
      ),
    },
    { label: 'Requests', num: true, cell: (row) => formatCount(row.requests) },
    { label: 'Share', num: true, title: 'Of the failed requests', cell: (row) => formatShare(row.share) },
  ];
  const codeColumns: Column<CodeCount>[] = [
    {
      label: 'Code',
      cell: (row) =>
        codeParts(row).map((part, index) => (
          <span key={part}>
            {index > 0 ? ' · ' : ''}
            <span className="nowrap">{part}</span>
          </span>
        )),
    },
    {
      label: 'Classified as',
      cell: (row) => (
        <Link href={eventsOf(row.bucket, row.kind)} title="Open the events of this kind">
          <BucketBadge bucket={row.bucket} kind={row.kind} />
        </Link>
      ),
    },
    { label: 'Requests', num: true, cell: (row) => formatCount(row.requests) },
  ];
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
          <div>
            <h3>Per bucket and kind</h3>
            <TableScroll>
              <DataTable
                columns={kindColumns}
                rows={kindRows(data.counts)}
                rowKey={(row) => `${row.bucket}/${row.kind}`}
                testId="kind-table"
              />
            </TableScroll>
          </div>
          <div>
            <h3>Per code</h3>
            {data.codes.length === 0 ? (
              <p className="empty">No code: these records show neither a JSON-RPC error code nor an HTTP status.</p>
            ) : (
              <TableScroll>
                <DataTable
                  columns={codeColumns}
                  rows={data.codes}
                  rowKey={(row) => `${row.rpcCode}/${row.httpStatus}/${row.bucket}/${row.kind}`}
                  testId="code-table"
                />
              </TableScroll>
            )}
          </div>
        </div>
      )}
    </Panel>
  );
}
