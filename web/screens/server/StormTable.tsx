import { isActiveStorm } from '../../../shared/analysis/storm-model.ts';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { StormsBuilding } from '../../components/StormsBuilding.tsx';
import type { TableDownload } from '../../download.ts';
import { formatCount, formatDateTime, formatDuration } from '../../format.ts';
import { STORM_KIND_LABEL, stormTarget } from '../../prepare/storms.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** The retry storms of the server's traffic (its clients' and its own), newest first; each opens its attempt timeline. */
export function StormTable({ query, download }: { query: PanelQuery<ServerDetail>; download: TableDownload }) {
  const { link } = useUrl();
  const now = Date.now();
  const columns: Column<ServerDetail['storms'][number]>[] = [
    {
      label: 'Storm',
      className: 'nowrap',
      cell: (storm) => (
        <>
          <Link href={link(routePath({ name: 'storm', id: storm.id }))}>{STORM_KIND_LABEL[storm.kind]}</Link>
          {isActiveStorm(storm, now) ? <span className="pill pill-live">active</span> : null}
        </>
      ),
    },
    {
      label: 'Sent by',
      className: 'nowrap',
      cell: (storm) => (storm.sentBy === 'server' ? `${storm.actor} (this server)` : storm.actor),
    },
    {
      label: 'What happened',
      className: 'wrap',
      cell: (storm) => (
        <>
          {storm.title}
          <div className="muted small">{stormTarget(storm)}</div>
        </>
      ),
    },
    { label: 'Attempts', num: true, cell: (storm) => formatCount(storm.attempts) },
    { label: 'Avoidable', num: true, cell: (storm) => formatCount(storm.avoidable) },
    { label: 'Span', num: true, className: 'nowrap', cell: (storm) => formatDuration(storm.lastTs - storm.firstTs) },
    {
      label: 'First failure',
      cell: (storm) => <BucketBadge bucket={storm.firstFailure.bucket} kind={storm.firstFailure.kind} />,
    },
    { label: 'Started', className: 'nowrap', cell: (storm) => formatDateTime(storm.firstTs) },
  ];
  return (
    <Panel
      title="Retry storms"
      what="the storms"
      query={query}
      minHeight={160}
      isEmpty={(data) => data.storms.length === 0}
      empty="No retry storm in this server's traffic in this range."
      testId="storm-table"
      actions={<DownloadButtons table={download} />}
    >
      {(data) => (
        <div className="table-wrap">
          <DataTable columns={columns} rows={data.storms} rowKey={(storm) => storm.id} stackOnPhone />
          <StormsBuilding complete={data.stormsComplete} />
          {data.stormsTotal > data.storms.length ? (
            <p className="muted panel-foot">
              The newest {formatCount(data.storms.length)} of {formatCount(data.stormsTotal)} storms in this range;
              narrow the range or filter by client to see the others.
            </p>
          ) : null}
        </div>
      )}
    </Panel>
  );
}
