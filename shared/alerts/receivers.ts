import { hash } from 'node:crypto';
import { type Notice, type NoticeFacts, noticeSummary, noticeWords, slackMessage } from './notice.ts';
import type { TargetType } from './rule.ts';

/**
 * What each type of target is sent for one notice, and where. Names in a notice come from logs: they travel as JSON
 * strings (JSON.stringify escapes them), never as markup, and are cut where the receiver documents a limit.
 */

/** One target as the outbox keeps it: the URL, and the second secret a PagerDuty target has. */
export interface OutboxTarget {
  type: TargetType;
  url: string;
  routingKey: string | null;
}

export interface SendContext {
  /** When the attempt is made (epoch ms): an Alertmanager alert's end is counted from it. */
  now: number;
  /** The dashboard as people reach it (`serve --public-url`), for links; null when not known. */
  publicUrl: string | null;
}

export function requestFor(target: OutboxTarget, notice: Notice, context: SendContext): { url: string; body: unknown } {
  const link = dashboardLink(context.publicUrl, notice.path);
  switch (target.type) {
    case 'webhook':
      return { url: target.url, body: notice };
    case 'slack':
      return { url: target.url, body: slackMessage(notice) };
    case 'pagerduty':
      return { url: target.url, body: pagerDutyEvent(notice, target.routingKey ?? '', link) };
    case 'alertmanager':
      return { url: alertmanagerEndpoint(target.url), body: [alertmanagerAlert(notice, context.now, link)] };
  }
}

/** The rule's page on the dashboard, when the dashboard's public address is known. */
export function dashboardLink(publicUrl: string | null, path: string): string | null {
  return publicUrl === null ? null : `${publicUrl.replace(/\/+$/, '')}${path}`;
}

/** PagerDuty's documented limits (Events API v2, "Send an Alert Event"). */
const PAGERDUTY_SUMMARY_MAX = 1024;
const PAGERDUTY_DEDUP_KEY_MAX = 255;

/**
 * One alert per rule and group: a trigger sent again (a retry, an escalation) lands on the open alert, and the
 * resolve closes it. PagerDuty opens a new alert for a trigger once the last one is resolved, so the key can stay
 * the same for the group's next episode. The group is hashed: a name from logs may be long and is no key material.
 */
export function pagerDutyDedupKey(notice: Pick<NoticeFacts, 'rule' | 'group'>): string {
  const key = `refusal-lens/${notice.rule.id}/${hash('sha256', notice.group.value).slice(0, 32)}`;
  return key.slice(0, PAGERDUTY_DEDUP_KEY_MAX);
}

/** An Events API v2 alert event, as PagerDuty documents it ("Send an Alert Event"). */
export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    timestamp: string;
    class: string;
    custom_details: Record<string, string | number | null>;
  };
  client?: string;
  client_url?: string;
  links?: { href: string; text: string }[];
}

/** A trigger while firing; a resolve (which needs nothing but the key) after. */
export function pagerDutyEvent(notice: Notice, routingKey: string, link: string | null): PagerDutyEvent {
  const dedupKey = pagerDutyDedupKey(notice);
  if (notice.status === 'resolved') {
    return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  }
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: clip(noticeSummary(notice), PAGERDUTY_SUMMARY_MAX),
      // The affected system: the server when there is one, else the client or identity the rule groups by.
      source: notice.server || notice.group.value || 'refusal-lens',
      severity: notice.severity ?? 'error',
      timestamp: notice.at,
      class: notice.rule.metric,
      custom_details: {
        rule: notice.rule.name,
        rule_id: notice.rule.id,
        metric: notice.rule.metric,
        value: notice.value,
        comparator: notice.rule.comparator,
        threshold: notice.threshold,
        window_seconds: notice.rule.windowSeconds,
        group_by: notice.group.by,
        group: notice.group.value,
        server: notice.server,
      },
    },
    client: 'Refusal Lens',
    ...(link !== null && { client_url: link, links: [{ href: link, text: 'The rule in Refusal Lens' }] }),
  };
}

/** Alertmanager's Alerts API (`api/v2/alerts`) under the URL given: its base, or the endpoint itself. */
export function alertmanagerEndpoint(url: string): string {
  const endpoint = new URL(url);
  if (!endpoint.pathname.endsWith('/api/v2/alerts')) {
    endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/api/v2/alerts`;
  }
  return endpoint.toString();
}

/**
 * How often firing alerts are sent to an Alertmanager again, and how long each sending keeps one firing there: its
 * `endsAt` lies four re-sends ahead, as Prometheus does, so an alert Refusal Lens stops speaking of (a stopped
 * server) resolves itself, and one missed re-send does not. Alertmanager forgets alerts when it restarts; re-sends
 * bring them back.
 */
export const ALERTMANAGER_RESEND_MS = 60_000;
export const ALERTMANAGER_HOLD_MS = 4 * ALERTMANAGER_RESEND_MS;
/** Alertmanager asks for resolved alerts to be sent again for five minutes: it may have restarted in between. */
export const ALERTMANAGER_RESOLVED_RESEND_MS = 5 * 60_000;

/**
 * The labels that make an instance one alert in Alertmanager: only what stays the same from firing to resolve,
 * so the two match (the server a client's reading came from may change; it goes in the annotations). The label
 * names are ours, all valid Prometheus names; the values (the group: a server, client or identity) are data.
 */
export function alertmanagerLabels(notice: NoticeFacts): Record<string, string> {
  const labels: Record<string, string> = {
    alertname: notice.rule.name,
    rule_id: notice.rule.id,
    metric: notice.rule.metric,
  };
  // Severity is a label so that routes can page on critical alone: an escalation is a second alert.
  if (notice.severity !== null) labels.severity = notice.severity;
  if (notice.group.by !== 'none' && notice.group.value !== '') labels[notice.group.by] = notice.group.value;
  return labels;
}

/**
 * One alert: firing, it starts when the notice was made and holds for `ALERTMANAGER_HOLD_MS` from `now`; resolved,
 * it ends when the notice was made (its start is the one Alertmanager already has).
 */
export function alertmanagerAlert(notice: NoticeFacts, now: number, link: string | null) {
  const { group, reading } = noticeWords(notice);
  const firing = notice.status === 'firing';
  return {
    labels: alertmanagerLabels(notice),
    annotations: {
      summary: `${notice.rule.name}${group === null ? '' : ` — ${group}`}`,
      description: reading,
      ...(notice.server !== null && { server: notice.server }),
    },
    ...(firing && { startsAt: notice.at }),
    endsAt: firing ? new Date(now + ALERTMANAGER_HOLD_MS).toISOString() : notice.at,
    ...(link !== null && { generatorURL: link }),
  };
}

/** `text` cut to at most `max` UTF-16 units (so to at most `max` characters by any count), never inside a pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
