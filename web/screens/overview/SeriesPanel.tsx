import { useQuery } from '@tanstack/react-query';
import { BucketBars } from '../../components/BucketBars.tsx';
import { Panel } from '../../components/Panel.tsx';
import { hasTraffic, showsOk, toBucketRows } from '../../prepare/bucket-series.ts';
import type { Scope } from '../../queries/scope.ts';
import { timeseriesQuery } from '../../queries/timeseries.ts';
import { useUrl } from '../../use-url.ts';

/** Requests by bucket over time; a click on a bar opens the events of that step. */
export function SeriesPanel({ scope, title = 'Requests by bucket' }: { scope: Scope; title?: string }) {
  const { params, setParams } = useUrl();
  const showOk = showsOk(params);
  const series = useQuery(timeseriesQuery(scope));
  const toggle = (
    <label className="toggle">
      <input
        type="checkbox"
        checked={showOk}
        onChange={(event) => setParams({ ok: event.target.checked ? null : 'hide' }, { replace: true })}
      />{' '}
      Show OK
    </label>
  );
  return (
    <Panel
      title={title}
      what="the time series"
      query={series}
      minHeight={280}
      actions={toggle}
      isEmpty={(data) => !hasTraffic(toBucketRows(data))}
      empty="No requests in this range."
      testId="series"
    >
      {(data) => <BucketBars series={data} server={scope.server} />}
    </Panel>
  );
}
