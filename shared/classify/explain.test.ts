import { describe, expect, it } from 'vitest';
import { BUCKETS, explain, explainRule, KIND_INFO, KINDS, RULES, SESSION_SCOPED_KINDS } from './index.ts';

describe('rule table', () => {
  it("has unique ids, MCP 2026-07-28's rounds and ok first, and the catch-all last", () => {
    const ids = RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 6)).toEqual([
      'record.server_event',
      'record.outcome_unknown',
      'record.connection',
      'mrtr.input_required',
      'mrtr.user_declined',
      'ok',
    ]);
    expect(ids.at(-1)).toBe('fallback.ambiguous');
  });

  it('explains every rule and only known buckets', () => {
    for (const rule of RULES) {
      const explained = explainRule(rule.id);
      expect(explained?.description.length).toBeGreaterThan(10);
      for (const bucket of rule.buckets) expect(BUCKETS).toContain(bucket);
    }
    expect(explainRule('no.such.rule')).toBeUndefined();
  });
});

describe('kinds', () => {
  it('gives every kind a bucket, a meaning and advice', () => {
    for (const kind of KINDS) {
      const info = KIND_INFO[kind];
      expect(BUCKETS).toContain(info.bucket);
      expect(info.means).not.toBe('');
      expect(info.clientShould).not.toBe('');
    }
    for (const kind of SESSION_SCOPED_KINDS) expect(KIND_INFO[kind].bucket).toBe('refusal');
  });
});

describe('explain', () => {
  it('answers why and what the client should have done', () => {
    const answer = explain({
      bucket: 'refusal',
      kind: 'not_declared',
      rule: 'http.404.not_declared',
      evidence: 'http_status',
    });
    expect(answer.why).toMatch(/does not declare/);
    expect(answer.clientShould).toMatch(/^Do not retry/);
  });

  it('falls back to the bucket advice for an operator kind, or a kind paired with another bucket', () => {
    const custom = explain({ bucket: 'throttled', kind: 'quota_hit', rule: 'override.rpc_code', evidence: 'override' });
    expect(custom.clientShould).toMatch(/Retry-After/);
    const mismatched = explain({
      bucket: 'transient',
      kind: 'forbidden',
      rule: 'override.http_status',
      evidence: 'override',
    });
    expect(mismatched.clientShould).toMatch(/backoff/);
  });

  it('still answers for a rule id this version does not know', () => {
    expect(explain({ bucket: 'ambiguous', kind: 'x', rule: 'retired.rule', evidence: 'none' }).why).toMatch(/unknown/);
  });
});
