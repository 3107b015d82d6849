import { BucketBars } from '../../components/BucketBars.tsx';
import { BucketTotals } from '../../components/BucketTotals.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { hasTraffic, toBucketRows } from '../../prepare/bucket-series.ts';
import type { ServerDetail } from '../../queries/servers.ts';

/** The server's requests per bucket: totals, then over time; a bar opens that step's events. */
export function TrafficPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  return (
    <>
      <BucketTotals counts={query.data?.counts} />
      <Panel
        title="Requests by bucket"
        what="the traffic"
        query={query}
        minHeight={280}
        isEmpty={(data) => !hasTraffic(toBucketRows(data.series))}
        empty="No requests to this server in this range."
        testId="server-series"
      >
        {(data) => <BucketBars series={data.series} server={server} />}
      </Panel>
    </>
  );
}
