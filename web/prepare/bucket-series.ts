import { BUCKET_LABEL, type Bucket, STACK_ORDER } from '../buckets.ts';
import { formatCount, formatWindow } from '../format.ts';
import type { Timeseries } from '../queries/timeseries.ts';
import { type ChartSeries, seriesColours, type TooltipContent } from './chart.ts';

export interface BucketRow extends Record<Bucket, number> {
  start: number;
  end: number;
  requests: number;
  avoidable: number;
}

/**
 * One row per time bucket, every step of the range present (the API lists empty steps as zeros: a count, not a
 * gap). The row is flat so that each bucket is one `dataKey` of a stacked bar.
 */
export function toBucketRows(series: Timeseries): BucketRow[] {
  return series.points.map((point) => ({
    start: point.start,
    end: point.start + series.step,
    requests: point.requests,
    avoidable: point.avoidable,
    ...point.buckets,
  }));
}

export function hasTraffic(rows: readonly BucketRow[]): boolean {
  return rows.some((row) => row.requests > 0);
}

/** Whether the URL leaves OK in the charts: it does unless `ok=hide`. */
export function showsOk(params: URLSearchParams): boolean {
  return params.get('ok') !== 'hide';
}

/** The buckets drawn, bottom first; hiding OK lets a handful of failures show against a healthy day. */
export function drawnBuckets(showOk: boolean): Bucket[] {
  return STACK_ORDER.filter((bucket) => showOk || bucket !== 'ok');
}

/** The drawn buckets as series, bottom of the stack first. */
export function bucketSeries(buckets: readonly Bucket[]): ChartSeries<Bucket>[] {
  const colours = seriesColours(buckets);
  return buckets.map((bucket) => ({ key: bucket, name: BUCKET_LABEL[bucket], colour: colours(bucket) }));
}

/** The exact numbers of one step: every drawn bucket (zeros included), top of the stack first, then the sums. */
export function bucketTooltip(row: BucketRow, series: readonly ChartSeries<Bucket>[]): TooltipContent {
  const buckets = [...series].reverse().map((s) => ({
    label: s.name,
    value: formatCount(row[s.key]),
    colour: s.colour,
  }));
  return {
    title: formatWindow(row.start, row.end),
    lines: [
      ...buckets,
      { label: 'Requests', value: formatCount(row.requests), total: true },
      { label: 'Avoidable', value: formatCount(row.avoidable) },
    ],
  };
}
