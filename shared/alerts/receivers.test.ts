import { describe, expect, it } from 'vitest';
import { buildNotice, type Notice } from './notice.ts';
import {
  ALERTMANAGER_HOLD_MS,
  alertmanagerAlert,
  alertmanagerEndpoint,
  clip,
  pagerDutyDedupKey,
  pagerDutyEvent,
  requestFor,
} from './receivers.ts';
import { type Rule, ruleInputSchema } from './rule.ts';

const AT = Date.parse('2026-11-02T12:00:00Z');
const HOSTILE = 'ide-"host"\n</script>{{x}} @here \u202e 🚨 \\';

const rule: Rule = {
  ...ruleInputSchema.parse({ name: 'Retries after a refusal', metric: 'retries_after_refusal', critical: 10 }),
  groupBy: 'client',
  targets: [],
  id: 'rule-1',
  createdAt: AT,
  updatedAt: AT,
};

function notice(to: 'firing' | 'resolved', group = HOSTILE, at = AT): Notice {
  return buildNotice({
    key: `k-${to}`,
    rule,
    group,
    server: 'docs',
    to,
    severity: 'critical',
    value: 91,
    threshold: 10,
    at,
  });
}

describe('PagerDuty events', () => {
  it('trigger and resolve one alert per rule and group, with a key PagerDuty accepts', () => {
    const trigger = pagerDutyEvent(notice('firing'), 'KEY', null);
    const resolve = pagerDutyEvent(notice('resolved', HOSTILE, AT + 600_000), 'KEY', null);
    expect(trigger).toMatchObject({ routing_key: 'KEY', event_action: 'trigger' });
    expect(resolve).toEqual({ routing_key: 'KEY', event_action: 'resolve', dedup_key: trigger.dedup_key });
    expect(trigger.dedup_key).toMatch(/^refusal-lens\/rule-1\/[0-9a-f]{32}$/);
    expect(pagerDutyDedupKey(notice('firing', 'another client'))).not.toBe(trigger.dedup_key);
    expect(pagerDutyDedupKey(notice('firing', 'x'.repeat(10_000))).length).toBeLessThanOrEqual(255);
  });

  it('carries names from logs as data, and the reading in custom details', () => {
    const event = pagerDutyEvent(notice('firing'), 'KEY', 'https://lens.example/base/alerts/rule-1');
    expect(event.payload).toMatchObject({
      source: 'docs',
      severity: 'critical',
      timestamp: '2026-11-02T12:00:00.000Z',
      custom_details: { metric: 'retries_after_refusal', value: 91, threshold: 10, group: HOSTILE, server: 'docs' },
    });
    expect(event.payload?.summary).toBe(
      `CRITICAL Retries after a refusal — client ${HOSTILE} · Retries after a refusal: 91 (threshold >= 10)`,
    );
    expect(event.links).toEqual([
      { href: 'https://lens.example/base/alerts/rule-1', text: 'The rule in Refusal Lens' },
    ]);
    // Whatever the name holds, the body is one JSON document that reads back to the same strings.
    expect(JSON.parse(JSON.stringify(event)).payload.custom_details.group).toBe(HOSTILE);
    expect(pagerDutyEvent(notice('firing'), 'KEY', null)).not.toHaveProperty('links');
  });

  it('cuts a summary to 1024 characters, never inside a surrogate pair', () => {
    const event = pagerDutyEvent(notice('firing', '🚨'.repeat(2000)), 'KEY', null);
    const summary = event.payload?.summary ?? '';
    expect(summary.length).toBeLessThanOrEqual(1024);
    expect(summary.endsWith('…')).toBe(true);
    expect(() => encodeURIComponent(summary)).not.toThrow(); // a lone surrogate would throw
  });
});

describe('Alertmanager alerts', () => {
  it('label an alert the same when it fires and when it resolves, with valid label names', () => {
    const firing = alertmanagerAlert(notice('firing'), AT + 5_000, null);
    const resolved = alertmanagerAlert(notice('resolved', HOSTILE, AT + 600_000), AT + 601_000, null);
    expect(firing.labels).toEqual({
      alertname: 'Retries after a refusal',
      rule_id: 'rule-1',
      metric: 'retries_after_refusal',
      severity: 'critical',
      client: HOSTILE,
    });
    expect(resolved.labels).toEqual(firing.labels);
    for (const name of Object.keys(firing.labels)) expect(name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]*$/);
    expect(firing).toMatchObject({
      startsAt: '2026-11-02T12:00:00.000Z',
      endsAt: new Date(AT + 5_000 + ALERTMANAGER_HOLD_MS).toISOString(),
    });
    expect(resolved).not.toHaveProperty('startsAt');
    expect(resolved.endsAt).toBe('2026-11-02T12:10:00.000Z');
    expect(firing.annotations).toEqual({
      summary: `Retries after a refusal — client ${HOSTILE}`,
      description: 'Retries after a refusal: 91 (threshold >= 10)',
      server: 'docs',
    });
  });

  it('posts to the Alerts API under the URL given, with or without the path', () => {
    expect(alertmanagerEndpoint('http://am.example:9093')).toBe('http://am.example:9093/api/v2/alerts');
    expect(alertmanagerEndpoint('http://am.example:9093/')).toBe('http://am.example:9093/api/v2/alerts');
    expect(alertmanagerEndpoint('https://u:p@ops.example/alertmanager/?x=1')).toBe(
      'https://u:p@ops.example/alertmanager/api/v2/alerts?x=1',
    );
    expect(alertmanagerEndpoint('http://am.example/api/v2/alerts')).toBe('http://am.example/api/v2/alerts');
    const request = requestFor({ type: 'alertmanager', url: 'http://am.example', routingKey: null }, notice('firing'), {
      now: AT,
      publicUrl: 'https://lens.example/',
    });
    expect(request.url).toBe('http://am.example/api/v2/alerts');
    expect(request.body).toEqual([expect.objectContaining({ generatorURL: 'https://lens.example/alerts/rule-1' })]);
  });
});

describe('clip', () => {
  it('keeps short text and cuts long text to the limit', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('abcdefghijk', 5)).toBe('abcd…');
    expect(clip('abc🚨', 4)).toBe('abc…');
    expect(clip('ab🚨x', 4)).toBe('ab…');
  });
});
