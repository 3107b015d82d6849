import { type ComponentProps, lazy, Suspense } from 'react';

/**
 * The charts load after the numbers: recharts is most of the bundle, and at 3 a.m. the totals and the storms
 * matter first. The fallback holds the chart's height, so nothing moves when it arrives.
 */
const LazyBucketBars = lazy(async () => ({ default: (await import('./BucketBars.tsx')).BucketBars }));
const LazyTrimTrend = lazy(async () => ({ default: (await import('./TrimTrend.tsx')).TrimTrend }));

/** Chart plus legend: the legend is one line on a desktop, two on a phone. */
const LEGEND_PX = 34;

export function BucketBars(props: ComponentProps<typeof LazyBucketBars>) {
  const height = (props.height ?? 240) + LEGEND_PX;
  return (
    <Suspense fallback={<div className="skeleton" style={{ height }} />}>
      <LazyBucketBars {...props} />
    </Suspense>
  );
}

export function TrimTrend(props: ComponentProps<typeof LazyTrimTrend>) {
  return (
    <Suspense fallback={<div className="skeleton" style={{ height: props.height ?? 150 }} />}>
      <LazyTrimTrend {...props} />
    </Suspense>
  );
}
