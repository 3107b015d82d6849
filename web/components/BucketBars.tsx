import { bucketSeries, bucketTooltip, drawnBuckets, showsOk, toBucketRows } from '../prepare/bucket-series.ts';
import type { Timeseries } from '../queries/timeseries.ts';
import { navigate } from '../router.ts';
import { useUrl } from '../use-url.ts';
import { TimeChart } from './charts.tsx';

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact' });

/**
 * Requests per bucket over time, stacked (OK left out when the URL says `ok=hide`); hover shows the exact values of
 * a step, and a click opens the events of that step, of `server` alone when given.
 */
export function BucketBars({ series, server, height = 240 }: { series: Timeseries; server?: string; height?: number }) {
  const { params, link } = useUrl();
  const rows = toBucketRows(series);
  const buckets = bucketSeries(drawnBuckets(showsOk(params)));
  return (
    <TimeChart
      kind="stacked-bars"
      rows={rows}
      series={buckets}
      height={height}
      legend
      valueAxis={{ width: 44, integers: true, format: (value) => COMPACT.format(value) }}
      tooltips={rows.map((row) => bucketTooltip(row, buckets))}
      onSelect={(index) => {
        const row = rows[index];
        if (row === undefined) return;
        const step = { from: new Date(row.start).toISOString(), to: new Date(row.end).toISOString() };
        navigate(link('/events', { ...step, range: null, server }));
      }}
    />
  );
}
