import type { Metric } from '../../../shared/alerts/metrics.ts';
import { formatDateTime } from '../../format.ts';
import {
  type ChartSeries,
  seriesColours,
  type Threshold,
  type TimeRow,
  type TooltipContent,
} from '../../prepare/chart.ts';
import type { Preview } from '../../queries/alerts.ts';
import { formatMetricValue } from './alert-text.ts';

export type PreviewRow = TimeRow & Record<string, number | null>;

export interface PreviewDrawing {
  rows: PreviewRow[];
  series: ChartSeries[];
  tooltips: TooltipContent[];
}

/**
 * One row per evaluation, one series per group. A series is read by its position (`s0`), since a group's name
 * may hold the dots that a chart reads as a path, but coloured by its name: a server keeps its colour as the form
 * changes which groups are drawn.
 */
export function previewDrawing(preview: Preview, metric: Metric): PreviewDrawing {
  const colours = seriesColours(preview.series.map((s) => s.group));
  const series = preview.series.map((s, index) => ({
    key: `s${index}`,
    name: s.group || 'all traffic',
    colour: colours(s.group),
  }));
  const rows = preview.points.map((start, index) => {
    const row: PreviewRow = { start };
    for (const [s, { key }] of series.entries()) row[key] = preview.series[s]?.values[index] ?? null;
    return row;
  });
  const tooltips = rows.map((row) => ({
    title: formatDateTime(row.start),
    lines: series.map((s) => ({
      label: s.name,
      value: formatMetricValue(metric, row[s.key] ?? null),
      colour: s.colour,
    })),
  }));
  return { rows, series, tooltips };
}

export interface RuleThresholds {
  warning: number | null;
  critical: number | null;
  resolve: number | null;
}

/** The rule's thresholds as lines across the chart, coloured as the severities they start. */
export function thresholdLines(thresholds: RuleThresholds): Threshold[] {
  const lines = [
    { value: thresholds.critical, label: 'critical', colour: 'var(--refusal)' },
    { value: thresholds.warning, label: 'warning', colour: 'var(--throttled)' },
    { value: thresholds.resolve, label: 'resolve', colour: 'var(--muted)', dashed: true },
  ];
  return lines.flatMap((line) => (line.value === null ? [] : [{ ...line, value: line.value }]));
}
