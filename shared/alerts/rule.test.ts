import { describe, expect, it } from 'vitest';
import { PAGERDUTY_EVENTS_URL, ruleInputSchema, type StoredTarget, targetSecrets } from './rule.ts';

const base = { name: 'r', metric: 'refusal_count', critical: 1 };

function targetIssue(target: object) {
  const parsed = ruleInputSchema.safeParse({ ...base, targets: [target] });
  return parsed.success
    ? null
    : { path: parsed.error.issues[0]?.path.join('.'), message: parsed.error.issues[0]?.message };
}

describe('paging targets in a rule', () => {
  it('take a routing key on a pagerduty target only, and only one that looks like a key', () => {
    expect(targetIssue({ type: 'pagerduty', routingKey: 'R0123456789abcdef0123456789abcd' })).toBeNull();
    expect(targetIssue({ type: 'alertmanager', url: 'http://am.example:9093' })).toBeNull();
    expect(targetIssue({ type: 'webhook', url: 'https://h.example/x', routingKey: 'abc' })).toEqual({
      path: 'targets.0.routingKey',
      message: 'only a pagerduty target takes a routing key',
    });
    const spaced = targetIssue({ type: 'pagerduty', routingKey: 'SECRET with "quotes"' });
    expect(spaced?.path).toBe('targets.0.routingKey');
    expect(spaced?.message).not.toContain('SECRET');
    expect(targetIssue({ type: 'pagerduty', routingKey: '' })?.path).toBe('targets.0.routingKey');
    expect(targetIssue({ type: 'pagerduty', routingKey: 'k'.repeat(201) })?.path).toBe('targets.0.routingKey');
  });

  it('default a new PagerDuty target to the events URL, and keep saved secrets not sent anew', () => {
    expect(targetSecrets({ type: 'pagerduty', routingKey: 'K1' }, undefined)).toEqual({
      url: PAGERDUTY_EVENTS_URL,
      routingKey: 'K1',
      keyLeftBehind: false,
    });
    expect(targetSecrets({ type: 'pagerduty' }, undefined)).toEqual({
      url: PAGERDUTY_EVENTS_URL,
      routingKey: undefined,
      keyLeftBehind: false,
    });
    const saved: StoredTarget = {
      id: 'a',
      type: 'pagerduty',
      url: 'https://events.eu.pagerduty.com/v2/enqueue',
      routingKey: 'K1',
    };
    expect(targetSecrets({ id: 'a', type: 'pagerduty' }, saved)).toEqual({
      url: saved.url,
      routingKey: 'K1',
      keyLeftBehind: false,
    });
    expect(targetSecrets({ id: 'a', type: 'pagerduty', url: saved.url }, saved).routingKey).toBe('K1');
    expect(targetSecrets({ id: 'a', type: 'pagerduty', routingKey: 'K2' }, saved)).toEqual({
      url: saved.url,
      routingKey: 'K2',
      keyLeftBehind: false,
    });
    // A target turned into another type keeps no routing key; other types have no default URL.
    expect(targetSecrets({ id: 'a', type: 'webhook' }, saved)).toEqual({
      url: saved.url,
      routingKey: undefined,
      keyLeftBehind: false,
    });
    expect(targetSecrets({ type: 'alertmanager' }, undefined)).toEqual({
      url: undefined,
      routingKey: undefined,
      keyLeftBehind: false,
    });
  });

  it('leave a saved routing key behind when the URL changes: a key goes only where it was saved for', () => {
    const saved: StoredTarget = { id: 'a', type: 'pagerduty', url: 'https://events.pagerduty.com/x', routingKey: 'K1' };
    expect(targetSecrets({ id: 'a', type: 'pagerduty', url: 'https://evil.example/' }, saved)).toEqual({
      url: 'https://evil.example/',
      routingKey: undefined,
      keyLeftBehind: true,
    });
    expect(
      targetSecrets({ id: 'a', type: 'pagerduty', url: 'https://evil.example/', routingKey: 'K2' }, saved),
    ).toEqual({ url: 'https://evil.example/', routingKey: 'K2', keyLeftBehind: false });
  });
});
