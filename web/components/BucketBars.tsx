import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { bucketColor } from '../buckets.ts';
import { axisLabel, type BucketRow, drawnBuckets } from '../prepare/bucket-series.ts';
import { BucketLegend, BucketTooltip } from './BucketTooltip.tsx';

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact' });

interface BucketBarsProps {
  rows: BucketRow[];
  showOk: boolean;
  height?: number;
  /** Called with the clicked step, to open the events behind a bar. */
  onSelect?: (row: BucketRow) => void;
}

/** Requests per bucket over time, stacked; hover shows the exact values of a step. Draws only: see prepare/. */
export function BucketBars({ rows, showOk, height = 240, onSelect }: BucketBarsProps) {
  const buckets = drawnBuckets(showOk);
  const label = axisLabel(rows);
  return (
    <div className="chart">
      <div style={{ height }} className={onSelect ? 'clickable' : undefined}>
        <BarChart
          responsive
          style={{ width: '100%', height: '100%' }}
          data={rows}
          margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          barCategoryGap={1}
          onClick={(state) => {
            const row = rows[Number(state.activeTooltipIndex)];
            if (row !== undefined && onSelect) onSelect(row);
          }}
        >
          <CartesianGrid vertical={false} stroke="var(--grid)" />
          <XAxis
            dataKey="start"
            tickFormatter={label}
            minTickGap={48}
            tick={{ fill: 'var(--muted)', fontSize: 12 }}
            stroke="var(--grid)"
          />
          <YAxis
            allowDecimals={false}
            width={44}
            tickFormatter={(value: number) => COMPACT.format(value)}
            tick={{ fill: 'var(--muted)', fontSize: 12 }}
            stroke="var(--grid)"
          />
          <Tooltip
            cursor={{ fill: 'var(--cursor)' }}
            isAnimationActive={false}
            content={({ active, activeIndex }) => (
              <BucketTooltip row={active ? rows[Number(activeIndex)] : undefined} buckets={buckets} />
            )}
          />
          {buckets.map((bucket) => (
            <Bar key={bucket} dataKey={bucket} stackId="buckets" fill={bucketColor(bucket)} isAnimationActive={false} />
          ))}
        </BarChart>
      </div>
      <BucketLegend buckets={buckets} />
    </div>
  );
}
