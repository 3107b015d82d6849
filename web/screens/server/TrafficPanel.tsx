import { BucketTotals } from '../../components/BucketTotals.tsx';
import { BucketBars } from '../../components/charts.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { hasTraffic, toBucketRows } from '../../prepare/bucket-series.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { navigate } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** The server's requests per bucket: totals, then over time; a bar opens that step's events. */
export function TrafficPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { params, link } = useUrl();
  const showOk = params.get('ok') !== 'hide';
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
        {(data) => (
          <BucketBars
            rows={toBucketRows(data.series)}
            showOk={showOk}
            onSelect={(row) => {
              const step = { from: new Date(row.start).toISOString(), to: new Date(row.end).toISOString() };
              navigate(link('/events', { ...step, range: null, server }));
            }}
          />
        )}
      </Panel>
    </>
  );
}
