import { type Comparator, meets } from '../../../shared/alerts/compare.ts';
import { METRIC_INFO, type Metric } from '../../../shared/alerts/metrics.ts';
import { formatMetricValue } from '../../../shared/alerts/notice.ts';
import { formatDuration, formatTime, shortIdentity } from '../../format.ts';

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

/** An alert instance as the alerts list answers it, with its rule's thresholds and how it resolves. */
export interface AlertFacts {
  state: string;
  severity: string | null;
  value: number | null;
  metric: Metric;
  comparator: Comparator;
  warning: number | null;
  critical: number | null;
  resolveThreshold: number | null;
  keepFiringForSeconds: number;
  /** While firing: since when the value is clear again (keep-firing-for runs from there). */
  clearSince: number | null;
}

/**
 * The threshold the instance was held to, named by its severity: "critical at ≥ 50.0%". A rule has two; naming
 * which one answers why a rule called "… at 20%" shows 50 %: its value passed the critical one.
 */
export function severityThreshold(alert: AlertFacts): string {
  const threshold = alert.severity === 'critical' ? alert.critical : alert.warning;
  if (alert.severity === null || threshold === null) return '';
  return `${alert.severity} at ${thresholdText(alert.metric, alert.comparator, threshold)}`;
}

/**
 * Why an instance fires on though its value no longer meets its threshold, and when it clears: after
 * keep-firing-for, past the resolve threshold, or (dropped to the warning level) only once it resolves. Null while
 * the value still meets its threshold, or for an instance not firing.
 */
export function clearingText(alert: AlertFacts): string | null {
  const { value, severity, comparator, metric } = alert;
  const threshold = severity === 'critical' ? alert.critical : alert.warning;
  if (alert.state !== 'firing' || value === null || threshold === null || meets(comparator, value, threshold)) {
    return null;
  }
  const no = `No longer ${thresholdText(metric, comparator, threshold)}`;
  const keep = formatDuration(alert.keepFiringForSeconds * 1000);
  if (alert.clearSince !== null) {
    const at = alert.clearSince + alert.keepFiringForSeconds * 1000;
    return `${no} since ${formatTime(alert.clearSince)} UTC: resolves at ${formatTime(at)} UTC if it stays so (${keep} clear).`;
  }
  const resolve = alert.resolveThreshold;
  if (resolve !== null && meets(comparator, value, resolve)) {
    const past = thresholdText(metric, comparator, resolve);
    return `${no}, but still ${past}, the resolve threshold: fires until it is not, then resolves after ${keep} clear.`;
  }
  if (severity === 'critical' && alert.warning !== null && meets(comparator, value, alert.warning)) {
    const warning = thresholdText(metric, comparator, alert.warning);
    return `${no} but still ${warning} (warning): stays critical until it resolves, ${keep} after it clears.`;
  }
  return null;
}

/**
 * How often the rule runs, and how often the preview sampled it: a day's preview replays at most 96 evaluations,
 * so a 60 s rule is drawn every 15 min. Saying only the preview's step read as the rule's own interval.
 */
export function cadenceText(intervalSeconds: number, previewStepMs: number): string {
  const every = formatDuration(intervalSeconds * 1000);
  if (previewStepMs <= intervalSeconds * 1000) return `the rule runs every ${every}; each run is shown`;
  return `the rule runs every ${every}; this preview replays one run every ${formatDuration(previewStepMs)}`;
}
