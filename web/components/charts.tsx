import { type ComponentProps, lazy, Suspense } from 'react';

/**
 * The charts load after the numbers: recharts is most of the bundle, and at 3 a.m. the totals and the storms
 * matter first. The fallback holds the chart's height, so nothing moves when it arrives.
 */
const LazyTimeChart = lazy(async () => ({ default: (await import('./charts/TimeChart.tsx')).TimeChart }));

/** A legend is one line on a desktop, two on a phone. */
const LEGEND_PX = 34;

export function TimeChart(props: ComponentProps<typeof LazyTimeChart>) {
  const height = props.height + (props.legend ? LEGEND_PX : 0);
  return (
    <Suspense fallback={<div className="skeleton" style={{ height }} />}>
      <LazyTimeChart {...props} />
    </Suspense>
  );
}
