import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { isRatio } from '../../../shared/alerts/metrics.ts';
import { formatDay, formatHourMinute } from '../../format.ts';
import type { Preview } from '../../queries/alerts.ts';
import { formatMetricValue } from './alert-text.ts';

/** Okabe-Ito, as the buckets: told apart by people with colour blindness, in both themes. */
const SERIES_COLOURS = ['#0072b2', '#cc79a7', '#009e73', '#56b4e9', '#e69f00', '#7f7f7f', '#d55e00', '#f0e442'];

interface PreviewChartProps {
  preview: Preview;
  metric: Metric;
  thresholds: { warning: number | null; critical: number | null; resolve: number | null };
  height?: number;
}

/** The metric per group over the preview range, with the rule's thresholds as lines across it. */
export function PreviewChart({ preview, metric, thresholds, height = 220 }: PreviewChartProps) {
  const ratio = isRatio(metric);
  const rows = preview.points.map((at, index) => {
    const row: Record<string, number | null> = { at };
    preview.series.forEach((series, s) => {
      row[`s${s}`] = series.values[index] ?? null;
    });
    return row;
  });
  const lines = [
    { value: thresholds.critical, label: 'critical', colour: 'var(--refusal)', dash: undefined },
    { value: thresholds.warning, label: 'warning', colour: 'var(--throttled)', dash: undefined },
    { value: thresholds.resolve, label: 'resolve', colour: 'var(--muted)', dash: '4 4' },
  ];
  return (
    <div style={{ height }} className="chart" data-testid="preview-chart">
      <LineChart
        responsive
        style={{ width: '100%', height: '100%' }}
        data={rows}
        margin={{ top: 12, right: 12, left: 0, bottom: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--grid)" />
        <XAxis
          dataKey="at"
          type="number"
          domain={['dataMin', 'dataMax']}
          tickFormatter={formatHourMinute}
          minTickGap={48}
          tick={{ fill: 'var(--muted)', fontSize: 12 }}
          stroke="var(--grid)"
        />
        <YAxis
          width={52}
          domain={ratio ? [0, 1] : [0, 'auto']}
          tickFormatter={(value: number) => formatMetricValue(metric, value)}
          tick={{ fill: 'var(--muted)', fontSize: 12 }}
          stroke="var(--grid)"
        />
        <Tooltip
          isAnimationActive={false}
          labelFormatter={(at) => `${formatDay(Number(at))} ${formatHourMinute(Number(at))} UTC`}
          formatter={(value, name) => {
            const series = preview.series[Number(String(name).slice(1))];
            return [formatMetricValue(metric, value === null ? null : Number(value)), series?.group || 'all traffic'];
          }}
          contentStyle={{ background: 'var(--bg)', border: '1px solid var(--border)' }}
        />
        {preview.series.length > 1 ? (
          <Legend formatter={(name) => preview.series[Number(String(name).slice(1))]?.group || 'all traffic'} />
        ) : null}
        {lines.map((line) =>
          line.value === null ? null : (
            <ReferenceLine
              key={line.label}
              y={line.value}
              stroke={line.colour}
              strokeDasharray={line.dash}
              label={{ value: line.label, position: 'insideTopLeft', fill: line.colour, fontSize: 11 }}
            />
          ),
        )}
        {preview.series.map((series, s) => (
          <Line
            key={series.group}
            dataKey={`s${s}`}
            stroke={SERIES_COLOURS[s % SERIES_COLOURS.length]}
            strokeWidth={2}
            dot={false}
            connectNulls={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </div>
  );
}
