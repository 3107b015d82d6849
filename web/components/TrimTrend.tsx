import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount, formatDay, formatHourMinute, formatShare } from '../format.ts';
import type { TrendRow } from '../prepare/context-gap.ts';

/** The trim rate over time; a stretch where no response said what it applied is a gap, never a zero. */
export function TrimTrend({ rows, height = 150 }: { rows: TrendRow[]; height?: number }) {
  return (
    <div style={{ height }} className="chart">
      <LineChart
        responsive
        style={{ width: '100%', height: '100%' }}
        data={rows}
        margin={{ top: 12, right: 8, left: 0, bottom: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--grid)" />
        <XAxis
          dataKey="start"
          tickFormatter={formatHourMinute}
          minTickGap={48}
          tick={{ fill: 'var(--muted)', fontSize: 12 }}
          stroke="var(--grid)"
        />
        <YAxis
          domain={[0, 1]}
          ticks={[0, 0.5, 1]}
          width={48}
          tickFormatter={formatShare}
          tick={{ fill: 'var(--muted)', fontSize: 12 }}
          stroke="var(--grid)"
        />
        <Tooltip
          isAnimationActive={false}
          content={({ active, activeIndex }) => {
            const row = active ? rows[Number(activeIndex)] : undefined;
            if (row === undefined) return null;
            return (
              <div className="chart-tooltip">
                <p className="tooltip-title">
                  {formatDay(row.start)} {formatHourMinute(row.start)}–{formatHourMinute(row.end)} UTC
                </p>
                <p>
                  {row.rate === null
                    ? 'nothing reported'
                    : `${formatShare(row.rate)} trimmed (${formatCount(row.trimmed)} of ${formatCount(row.reported)})`}
                </p>
              </div>
            );
          }}
        />
        <Line
          dataKey="rate"
          stroke="var(--throttled)"
          strokeWidth={2}
          dot={{ r: 2 }}
          connectNulls={false}
          isAnimationActive={false}
        />
      </LineChart>
    </div>
  );
}
