import { useQuery } from '@tanstack/react-query';
import { BucketBars } from '../../components/charts.tsx';
import { Panel } from '../../components/Panel.tsx';
import { hasTraffic, toBucketRows } from '../../prepare/bucket-series.ts';
import type { Scope } from '../../queries/scope.ts';
import { timeseriesQuery } from '../../queries/timeseries.ts';
import { navigate } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** Requests by bucket over time; a click on a bar opens the events of that step. */
export function SeriesPanel({ scope, title = 'Requests by bucket' }: { scope: Scope; title?: string }) {
  const { params, setParams, link } = useUrl();
  const showOk = params.get('ok') !== 'hide';
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
      {(data) => (
        <BucketBars
          rows={toBucketRows(data)}
          showOk={showOk}
          onSelect={(row) => {
            const step = { from: new Date(row.start).toISOString(), to: new Date(row.end).toISOString() };
            navigate(link('/events', { ...step, range: null, server: scope.server }));
          }}
        />
      )}
    </Panel>
  );
}
