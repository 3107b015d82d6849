import { isRatio, type Metric } from '../../../shared/alerts/metrics.ts';
import { TimeChart } from '../../components/charts.tsx';
import type { Preview } from '../../queries/alerts.ts';
import { formatMetricValue } from './alert-text.ts';
import { previewDrawing, type RuleThresholds, thresholdLines } from './preview-chart.ts';

interface PreviewChartProps {
  preview: Preview;
  metric: Metric;
  thresholds: RuleThresholds;
  height?: number;
}

/** The metric per group over the preview range, with the rule's thresholds as lines across it. */
export function PreviewChart({ preview, metric, thresholds, height = 220 }: PreviewChartProps) {
  const { rows, series, tooltips } = previewDrawing(preview, metric);
  return (
    <TimeChart
      kind="lines"
      rows={rows}
      series={series}
      height={height}
      legend={series.length > 1}
      tooltips={tooltips}
      thresholds={thresholdLines(thresholds)}
      valueAxis={{
        width: 52,
        domain: isRatio(metric) ? [0, 1] : [0, 'auto'],
        format: (value) => formatMetricValue(metric, value),
      }}
      testId="preview-chart"
    />
  );
}
