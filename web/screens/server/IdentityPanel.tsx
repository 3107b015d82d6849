import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import type { TableDownload } from '../../download.ts';
import { formatCount, shortDigest } from '../../format.ts';
import type { ServerDetail } from '../../queries/servers.ts';

type Identity = ServerDetail['identities'][number];

const COLUMNS: Column<Identity>[] = [
  {
    label: 'Request',
    cell: (row) => (
      <span>
        <code title={row.identity}>{shortDigest(row.identity)}</code>
        <span className="muted small block">{row.method ?? 'no method'}</span>
      </span>
    ),
  },
  { label: 'Sends', num: true, cell: (row) => formatCount(row.sends) },
  { label: 'Sent again', num: true, cell: (row) => formatCount(row.represented) },
  {
    label: '40+ in 10 min',
    title: 'The most sends within 10 minutes, where they reached the retry-loop alarm of 40',
    num: true,
    cell: (row) => {
      const peak = Math.max(0, ...row.alarms.map((alarm) => alarm.count));
      return peak > 0 ? <span className="pill pill-live">{formatCount(peak)}</span> : '–';
    },
  },
  { label: 'Last', cell: (row) => <BucketBadge bucket={row.last.bucket} kind={row.last.kind} stacked /> },
];

/** The requests this server is sent again and again: one identity is one request, whoever encoded it. */
export function IdentityPanel({ query, download }: { query: PanelQuery<ServerDetail>; download: TableDownload }) {
  return (
    <Panel
      title="Requests sent most often"
      what="the identities"
      query={query}
      minHeight={200}
      isEmpty={(data) => data.identities.length === 0}
      empty="No request with an identity in this range."
      testId="identity-table"
      actions={<DownloadButtons table={download} />}
    >
      {(data) => (
        <>
          <TableScroll>
            <DataTable columns={COLUMNS} rows={data.identities} rowKey={(row) => row.identity} stackOnPhone />
          </TableScroll>
          {!data.identitiesExact && (
            <p className="muted panel-foot">
              Ranked from each hour's most sent requests: one sent only a few times an hour may be missing.
            </p>
          )}
        </>
      )}
    </Panel>
  );
}
