import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, ruleInputSchema } from '../../../shared/alerts/rule.ts';
import { formFromRule, NEW_RULE, ruleFromForm, withGroupBy, withMetric } from './rule-form.ts';

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
