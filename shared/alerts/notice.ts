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

/** What a notification is about, without its key: a notice, or the state an Alertmanager is told again. */
export type NoticeFacts = Omit<Notice, 'version' | 'key'>;

export interface NoticeInput {
  rule: Rule;
  group: string;
  server: string | null;
  to: AlertState;
  severity: Severity | null;
  value: number | null;
  threshold: number | null;
  at: number;
}

export function buildNotice(input: NoticeInput & { key: string }): Notice {
  return { version: 1, key: input.key, ...noticeFacts(input) };
}

export function noticeFacts(input: NoticeInput): NoticeFacts {
  const { rule } = input;
  return {
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

/**
 * A notice in words, unescaped (names in it come from logs): each receiver's format escapes them its own way, or
 * carries them as JSON strings.
 */
export function noticeWords(notice: NoticeFacts): { state: string; group: string | null; reading: string } {
  const value = formatMetricValue(notice.rule.metric, notice.value);
  const threshold = formatMetricValue(notice.rule.metric, notice.threshold);
  return {
    state: notice.status === 'resolved' ? 'RESOLVED' : (notice.severity ?? 'firing').toUpperCase(),
    group: notice.group.by === 'none' ? null : `${notice.group.by} ${notice.group.value || '(none)'}`,
    reading: `${METRIC_INFO[notice.rule.metric].label}: ${value} (threshold ${notice.rule.comparator} ${threshold})`,
  };
}

/** One line for a pager's title: `CRITICAL Any refusal — client ide-host · Refusal count: 3 (threshold >= 1)`. */
export function noticeSummary(notice: NoticeFacts): string {
  const { state, group, reading } = noticeWords(notice);
  return `${state} ${notice.rule.name}${group === null ? '' : ` — ${group}`} · ${reading}`;
}

/** A Slack incoming-webhook message (also accepted by Mattermost and Rocket.Chat). */
export function slackMessage(notice: Notice): { text: string } {
  const icon =
    notice.status === 'resolved' ? ':white_check_mark:' : notice.severity === 'critical' ? ':red_circle:' : ':warning:';
  const { state, group, reading } = noticeWords(notice);
  const about = group === null ? '' : ` — ${slackEscape(group)}`;
  return { text: `${icon} *${state}* ${slackEscape(notice.rule.name)}${about}\n${reading} at ${notice.at}` };
}
