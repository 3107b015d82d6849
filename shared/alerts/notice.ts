import { isRatio, METRIC_INFO, type Metric } from './metrics.ts';
import type { Rule } from './rule.ts';
import type { AlertState, Severity } from './state.ts';

/**
 * What one notification says. The webhook payload is this, versioned (documented in README.md, "Alerts"); the
 * Slack message is rendered from it.
 */
export interface Notice {
  version: 1;
  /** Stable per transition: a receiver that sees the same key twice has seen the same notification twice. */
  key: string;
  status: 'firing' | 'resolved';
  severity: Severity | null;
  rule: Pick<Rule, 'id' | 'name' | 'metric' | 'comparator' | 'warning' | 'critical' | 'windowSeconds'>;
  group: { by: Rule['groupBy']; value: string };
  server: string | null;
  value: number | null;
  threshold: number | null;
  /** When the transition happened (ISO 8601). */
  at: string;
  /** The dashboard path of the rule. */
  path: string;
}

export function buildNotice(input: {
  key: string;
  rule: Rule;
  group: string;
  server: string | null;
  to: AlertState;
  severity: Severity | null;
  value: number | null;
  threshold: number | null;
  at: number;
}): Notice {
  const { rule } = input;
  return {
    version: 1,
    key: input.key,
    status: input.to === 'resolved' ? 'resolved' : 'firing',
    severity: input.severity,
    rule: {
      id: rule.id,
      name: rule.name,
      metric: rule.metric,
      comparator: rule.comparator,
      warning: rule.warning,
      critical: rule.critical,
      windowSeconds: rule.windowSeconds,
    },
    group: { by: rule.groupBy, value: input.group },
    server: input.server,
    value: input.value,
    threshold: input.threshold,
    at: new Date(input.at).toISOString(),
    path: `/alerts/${encodeURIComponent(rule.id)}`,
  };
}

/** A metric's reading as people read it: shares as percentages, counts as integers. */
export function formatMetricValue(metric: Metric, value: number | null): string {
  if (value === null) return 'no data';
  if (isRatio(metric)) return `${(value * 100).toFixed(1)}%`;
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/**
 * Names come from logs: Slack's three control characters are escaped (no injected link or <!here>), line breaks
 * flattened, and an @ followed by a word joiner, so chat tools that read a plain @channel do not ping anyone.
 */
function slackEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\r\n]+/g, ' ')
    .replace(/@/g, '@\u2060');
}

/** A Slack incoming-webhook message (also accepted by Mattermost and Rocket.Chat). */
export function slackMessage(notice: Notice): { text: string } {
  const icon =
    notice.status === 'resolved' ? ':white_check_mark:' : notice.severity === 'critical' ? ':red_circle:' : ':warning:';
  const state = notice.status === 'resolved' ? 'RESOLVED' : (notice.severity ?? 'firing').toUpperCase();
  const group =
    notice.group.by === 'none' ? '' : ` — ${notice.group.by} ${slackEscape(notice.group.value || '(none)')}`;
  const value = formatMetricValue(notice.rule.metric, notice.value);
  const threshold = formatMetricValue(notice.rule.metric, notice.threshold);
  return {
    text: `${icon} *${state}* ${slackEscape(notice.rule.name)}${group}\n${METRIC_INFO[notice.rule.metric].label}: ${value} (threshold ${notice.rule.comparator} ${threshold}) at ${notice.at}`,
  };
}
