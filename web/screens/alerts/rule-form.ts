import type { Comparator, NoData } from '../../../shared/alerts/compare.ts';
import { type GroupBy, isRatio, METRIC_INFO, type Metric } from '../../../shared/alerts/metrics.ts';
import { PAGERDUTY_EVENTS_URL, type TargetType } from '../../../shared/alerts/rule.ts';

/**
 * The rule editor's state: what the inputs hold, as text. Operators think of shares in percent and of windows in
 * minutes; the API takes fractions and seconds. This module is the one translation between the two.
 */
export interface RuleForm {
  name: string;
  metric: Metric;
  server: string;
  client: string;
  groupBy: GroupBy;
  comparator: Comparator;
  warning: string;
  critical: string;
  resolveThreshold: string;
  windowMinutes: string;
  intervalSeconds: string;
  pendingMinutes: string;
  keepFiringForMinutes: string;
  noData: NoData;
  enabled: boolean;
  /**
   * A saved target has its `id` and the `host` it goes to, never its URL or routing key (secrets the API does not
   * give back): they stay empty unless new ones are typed, and the target is sent by id, which keeps the saved ones.
   */
  targets: FormTarget[];
}

export interface FormTarget {
  id?: string;
  type: TargetType;
  url: string;
  /** A PagerDuty target's integration key, as typed. */
  routingKey?: string;
  host?: string;
}

/** How the editor offers each type of target, and what its URL field suggests for a new one. */
export const TARGET_KINDS: Record<TargetType, { label: string; urlHint: string }> = {
  webhook: { label: 'Webhook (JSON)', urlHint: 'https://hooks.example.com/…' },
  slack: { label: 'Slack incoming webhook', urlHint: 'https://hooks.slack.com/services/…' },
  pagerduty: { label: 'PagerDuty (Events API v2)', urlHint: `${PAGERDUTY_EVENTS_URL} (default; EU: your own)` },
  alertmanager: { label: 'Prometheus Alertmanager', urlHint: 'http://alertmanager.example:9093' },
};

/** The API's rule shape, as far as the editor needs to read one. */
export interface RuleFields {
  name: string;
  metric: Metric;
  scope: { server?: string; client?: string };
  groupBy: GroupBy;
  comparator: Comparator;
  warning: number | null;
  critical: number | null;
  resolveThreshold: number | null;
  windowSeconds: number;
  intervalSeconds: number;
  pendingSeconds: number;
  keepFiringForSeconds: number;
  noData: NoData;
  enabled: boolean;
  /** As the API answers: `{id, type, host, secretSet}`, no URL. */
  targets: { id?: string; type: TargetType; url?: string; host?: string }[];
}

export const NEW_RULE: RuleForm = {
  name: '',
  metric: 'refusal_rate',
  server: '',
  client: '',
  groupBy: 'server',
  comparator: '>=',
  warning: '10',
  critical: '',
  resolveThreshold: '',
  windowMinutes: '15',
  intervalSeconds: '60',
  pendingMinutes: '0',
  keepFiringForMinutes: '5',
  noData: 'ok',
  enabled: true,
  targets: [],
};

function thresholdText(metric: Metric, value: number | null): string {
  if (value === null) return '';
  return String(isRatio(metric) ? Math.round(value * 100_000) / 1000 : value);
}

function minutesText(seconds: number): string {
  return String(Math.round((seconds / 60) * 100) / 100);
}

export function formFromRule(rule: RuleFields): RuleForm {
  return {
    name: rule.name,
    metric: rule.metric,
    server: rule.scope.server ?? '',
    client: rule.scope.client ?? '',
    groupBy: rule.groupBy,
    comparator: rule.comparator,
    warning: thresholdText(rule.metric, rule.warning),
    critical: thresholdText(rule.metric, rule.critical),
    resolveThreshold: thresholdText(rule.metric, rule.resolveThreshold),
    windowMinutes: minutesText(rule.windowSeconds),
    intervalSeconds: String(rule.intervalSeconds),
    pendingMinutes: minutesText(rule.pendingSeconds),
    keepFiringForMinutes: minutesText(rule.keepFiringForSeconds),
    noData: rule.noData,
    enabled: rule.enabled,
    targets: rule.targets.map((target) => ({
      ...(target.id !== undefined && { id: target.id }),
      type: target.type,
      url: target.url ?? '',
      ...(target.host !== undefined && { host: target.host }),
    })),
  };
}

/** A number typed into a field; text that is not one is sent as it is, so the API's answer names the field. */
function numberOf(text: string, scale = 1): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? Math.round(value * scale * 1e6) / 1e6 : trimmed;
}

function secondsOf(minutes: string): number | string | null {
  const value = numberOf(minutes, 60);
  return typeof value === 'number' ? Math.round(value) : value;
}

/** The body for POST/PUT /api/v1/alerts/rules and the preview. */
export function ruleFromForm(form: RuleForm): Record<string, unknown> {
  const scale = isRatio(form.metric) ? 0.01 : 1;
  const scope: Record<string, string> = {};
  if (form.server.trim() !== '') scope.server = form.server.trim();
  if (form.client.trim() !== '') scope.client = form.client.trim();
  return {
    name: form.name,
    metric: form.metric,
    scope,
    groupBy: form.groupBy,
    comparator: form.comparator,
    warning: numberOf(form.warning, scale),
    critical: numberOf(form.critical, scale),
    resolveThreshold: numberOf(form.resolveThreshold, scale),
    windowSeconds: secondsOf(form.windowMinutes),
    intervalSeconds: numberOf(form.intervalSeconds),
    pendingSeconds: secondsOf(form.pendingMinutes) ?? 0,
    keepFiringForSeconds: secondsOf(form.keepFiringForMinutes) ?? 0,
    noData: form.noData,
    enabled: form.enabled,
    targets: form.targets.flatMap(targetBody),
  };
}

/**
 * A target as sent: with what was typed (a URL, a PagerDuty routing key), a saved target by its id (which keeps
 * what was not typed anew), and nothing for a new row left empty.
 */
function targetBody(target: FormTarget): Record<string, string>[] {
  const url = target.url.trim();
  const routingKey = target.type === 'pagerduty' ? (target.routingKey ?? '').trim() : '';
  const typed = { ...(url !== '' && { url }), ...(routingKey !== '' && { routingKey }) };
  if (target.id === undefined && url === '' && routingKey === '') return [];
  return [{ ...(target.id !== undefined && { id: target.id }), type: target.type, ...typed }];
}

/** A metric change keeps the grouping when the new metric allows it, else takes the metric's first. */
export function withMetric(form: RuleForm, metric: Metric): RuleForm {
  const allowed = METRIC_INFO[metric].groupBys;
  return withGroupBy({ ...form, metric }, allowed.includes(form.groupBy) ? form.groupBy : (allowed[0] ?? 'none'));
}

/** A grouped rule reads a group with no traffic as clear: only an ungrouped one chooses what no data means. */
export function withGroupBy(form: RuleForm, groupBy: GroupBy): RuleForm {
  return { ...form, groupBy, noData: groupBy === 'none' ? form.noData : 'ok' };
}
