import { formatShare } from '../format.ts';
import { TREND_SERIES, type TrendRow, trendTooltip } from '../prepare/context-gap.ts';
import { TimeChart } from './charts.tsx';

/** The trim rate over time; a stretch where no response said what it applied is a gap, never a zero. */
export function TrimTrend({ rows, height = 150 }: { rows: TrendRow[]; height?: number }) {
  return (
    <TimeChart
      kind="lines"
      rows={rows}
      series={TREND_SERIES}
      height={height}
      dots
      valueAxis={{ width: 56, domain: [0, 1], ticks: [0, 0.5, 1], format: formatShare }}
      tooltips={rows.map(trendTooltip)}
      testId="trim-trend"
    />
  );
}
