import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, ruleInputSchema } from '../../../shared/alerts/rule.ts';
import {
  type FormTarget,
  formFromRule,
  NEW_RULE,
  type RuleForm,
  ruleFromForm,
  withGroupBy,
  withMetric,
} from './rule-form.ts';

describe('the rule editor form', () => {
  it('round-trips every default rule through the form unchanged', () => {
    for (const rule of DEFAULT_RULES) {
      expect(ruleInputSchema.parse(ruleFromForm(formFromRule(rule)))).toEqual(rule);
    }
  });

  it('shows shares in percent and windows in minutes, and sends fractions and seconds', () => {
    const share = DEFAULT_RULES.find((rule) => rule.metric === 'avoidable_share');
    if (share === undefined) throw new Error('no avoidable_share default');
    const form = formFromRule(share);
    expect(form).toMatchObject({ warning: '20', critical: '50', windowMinutes: '15', pendingMinutes: '2' });
    expect(ruleFromForm({ ...form, warning: '12.5', windowMinutes: '7.5' })).toMatchObject({
      warning: 0.125,
      windowSeconds: 450,
    });
  });

  it('sends text that is not a number as it is, so that the API names the field, and blanks as null', () => {
    const body = ruleFromForm({ ...NEW_RULE, name: 'x', warning: 'ten', critical: ' ' });
    expect(body).toMatchObject({ warning: 'ten', critical: null });
    const parsed = ruleInputSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['warning']);
  });

  it('leaves out an empty scope and targets without a URL', () => {
    const body = ruleFromForm({ ...NEW_RULE, server: '  ', targets: [{ type: 'webhook', url: '' }] });
    expect(body.scope).toEqual({});
    expect(body.targets).toEqual([]);
  });

  it('shows a saved target by its host, sends it back by id unless a new URL is typed', () => {
    const saved = { ...DEFAULT_RULES[0], targets: [] } as Parameters<typeof formFromRule>[0];
    const form = formFromRule({
      ...saved,
      targets: [
        { id: 'a', type: 'slack', host: 'hooks.slack.com' },
        { id: 'b', type: 'webhook', host: 'hooks.example.com' },
      ],
    });
    expect(form.targets).toEqual([
      { id: 'a', type: 'slack', url: '', host: 'hooks.slack.com' },
      { id: 'b', type: 'webhook', url: '', host: 'hooks.example.com' },
    ]);
    const [slack, webhook] = form.targets as [FormTarget, FormTarget];
    const edited: RuleForm = {
      ...form,
      targets: [
        slack,
        { ...webhook, url: ' https://hooks.example.com/new ' },
        { type: 'webhook', url: 'https://other.example/x' },
      ],
    };
    expect(ruleFromForm(edited).targets).toEqual([
      { id: 'a', type: 'slack' },
      { id: 'b', type: 'webhook', url: 'https://hooks.example.com/new' },
      { type: 'webhook', url: 'https://other.example/x' },
    ]);
    expect(ruleInputSchema.safeParse(ruleFromForm(edited)).success).toBe(true);
  });

  it('sends a PagerDuty routing key only when typed, and a new PagerDuty target without a URL', () => {
    const body = ruleFromForm({
      ...NEW_RULE,
      name: 'paged',
      targets: [
        { type: 'pagerduty', url: '', routingKey: ' R0KEY ' },
        { id: 'p', type: 'pagerduty', url: '', routingKey: '', host: 'events.pagerduty.com' },
        { type: 'alertmanager', url: 'http://am.example:9093' },
        { type: 'webhook', url: 'https://h.example/x', routingKey: 'left from a type change' },
        { type: 'pagerduty', url: '', routingKey: '  ' },
      ],
    });
    expect(body.targets).toEqual([
      { type: 'pagerduty', routingKey: 'R0KEY' },
      { id: 'p', type: 'pagerduty' },
      { type: 'alertmanager', url: 'http://am.example:9093' },
      { type: 'webhook', url: 'https://h.example/x' },
    ]);
    expect(ruleInputSchema.safeParse(body).success).toBe(true);
  });

  it('keeps a grouping the new metric allows and replaces one it does not', () => {
    expect(withMetric({ ...NEW_RULE, groupBy: 'client' }, 'avoidable_count').groupBy).toBe('client');
    expect(withMetric({ ...NEW_RULE, groupBy: 'client' }, 'identity_representations').groupBy).toBe('none');
    expect(withMetric({ ...NEW_RULE, groupBy: 'identity' }, 'refusal_count').groupBy).toBe('none');
  });

  it('lets only an ungrouped rule choose what no data means', () => {
    const ungrouped = { ...NEW_RULE, groupBy: 'none' as const, noData: 'alerting' as const };
    expect(withGroupBy(ungrouped, 'none').noData).toBe('alerting');
    expect(withGroupBy(ungrouped, 'server').noData).toBe('ok');
    expect(withMetric(ungrouped, 'identity_representations').noData).toBe('alerting');
  });
});
