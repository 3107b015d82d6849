import { type Bucket, STACK_ORDER } from '../buckets.ts';
import { formatDay, formatHourMinute } from '../format.ts';
import type { Timeseries } from '../queries/timeseries.ts';

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

/** The buckets drawn, bottom first; hiding OK lets a handful of failures show against a healthy day. */
export function drawnBuckets(showOk: boolean): Bucket[] {
  return STACK_ORDER.filter((bucket) => showOk || bucket !== 'ok');
}

/** Axis labels: the time of day, with the date once the range spans more than a day. */
export function axisLabel(rows: readonly BucketRow[]): (start: number) => string {
  const first = rows[0]?.start ?? 0;
  const last = rows.at(-1)?.end ?? 0;
  if (last - first > 24 * 3_600_000) return (start) => `${formatDay(start)} ${formatHourMinute(start)}`;
  return formatHourMinute;
}
