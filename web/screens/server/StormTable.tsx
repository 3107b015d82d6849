import { isActiveStorm } from '../../../shared/analysis/storms.ts';
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

/** The retry loops and probe storms against the server, newest first; each opens its attempt timeline. */
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
    { label: 'Client', className: 'nowrap', cell: (storm) => storm.client },
    { label: 'Key or paths', className: 'wrap', cell: stormTarget },
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
      title="Retry loops and probe storms"
      what="the storms"
      query={query}
      minHeight={160}
      isEmpty={(data) => data.storms.length === 0}
      empty="No retry loop or probe storm against this server in this range."
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
