import type { Comparator } from '../../../shared/alerts/compare.ts';
import { METRIC_INFO, type Metric } from '../../../shared/alerts/metrics.ts';
import { formatMetricValue } from '../../../shared/alerts/notice.ts';
import { shortIdentity } from '../../format.ts';

/** "≥ 40", "< 5%": a threshold as the rule states it. */
export function thresholdText(metric: Metric, comparator: Comparator, threshold: number | null): string {
  if (threshold === null) return '–';
  return `${comparator.replace('>=', '≥').replace('<=', '≤')} ${formatMetricValue(metric, threshold)}`;
}

/** What an instance is about: "server docs", "identity release-notes:5d0c…", or the whole federation. */
export function groupText(groupBy: string, group: string): string {
  if (groupBy === 'none') return 'all traffic';
  if (groupBy === 'identity') return `identity ${shortIdentity(group)}`;
  return `${groupBy} ${group === '' ? '(none)' : group}`;
}

export function metricLabel(metric: Metric): string {
  return METRIC_INFO[metric].label;
}

export { formatMetricValue };
