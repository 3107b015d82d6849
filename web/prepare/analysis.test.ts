import { describe, expect, it } from 'vitest';
import type { ContextGap } from '../queries/context-gap.ts';
import type { IdentityRow } from '../queries/identities.ts';
import { conductFindings } from './conduct.ts';
import { matrixRows, reasonList, trendRows, worstTrim } from './context-gap.ts';
import { explainEvent, explainKind, gateText } from './explain-event.ts';
import { alarmedIdentities } from './identities.ts';

const row = { none: 0, thisServer: 0, allServers: 0, not_reported: 0 };

function gap(server: string, trimRate: number | null, trimmed = 0): ContextGap {
  return {
    server,
    matrix: { none: row, thisServer: row, allServers: { ...row, none: trimmed, allServers: 2 } },
    reported: trimRate === null ? 0 : 10,
    trimmed,
    trimRate,
    reasons: { 'policy.max_scope': 3, budget: 5 },
    trend: [
      { start: 0, sampled: 0, reported: 0, trimmed: 0, rate: null },
      { start: 60_000, sampled: 2, reported: 2, trimmed: 1, rate: 0.5 },
    ],
    step: 60_000,
  };
}

describe('context gap', () => {
  it('shows only the requested scopes that occur, and marks trimmed cells', () => {
    const rows = matrixRows(gap('s', 0.5, 3).matrix);
    expect(rows.map((r) => r.requested)).toEqual(['allServers']);
    expect(rows[0]?.total).toBe(5);
    expect(rows[0]?.cells.map((c) => c.verdict)).toEqual(['trimmed', 'trimmed', 'granted', 'not_reported']);
  });

  it('keeps unreported steps as gaps and ranks servers, unreported apart', () => {
    expect(trendRows(gap('s', 0.5).trend, 60_000)).toEqual([
      { start: 0, end: 60_000, reported: 0, trimmed: 0, rate: null },
      { start: 60_000, end: 120_000, reported: 2, trimmed: 1, rate: 0.5 },
    ]);
    const merged = trendRows(gap('s', 0.5).trend, 60_000, 1);
    expect(merged).toEqual([{ start: 0, end: 120_000, reported: 2, trimmed: 1, rate: 0.5 }]);
    const ranking = worstTrim([gap('a', 0.2), gap('b', null), gap('c', 0.8)], 5);
    expect(ranking.worst.map((g) => g.server)).toEqual(['c', 'a']);
    expect(ranking.unreported).toEqual(['b']);
    expect(reasonList(gap('s', 1).reasons)[0]).toEqual({ reason: 'budget', count: 5 });
  });
});

describe('identities over the alarm', () => {
  it('keeps only identities with an alarm, densest first', () => {
    const base = { method: 'm', sends: 50, represented: 49, firstSeen: 0, lastSeen: 9, series: [], step: 60_000 };
    const last = { ts: 9, seq: 0, id: 'e', bucket: 'refusal' as const, kind: 'policy_denied', rule: 'r' };
    const alarm = { identity: 'x', server: 's', method: 'm', count: 44, start: 0, end: 9, firstReachedAt: 7 };
    const rows: IdentityRow[] = [
      { ...base, identity: 's:quiet', server: 's', last, alarms: [] },
      { ...base, identity: 's:loud', server: 's', last, alarms: [alarm, { ...alarm, count: 41, firstReachedAt: 3 }] },
    ];
    expect(alarmedIdentities(rows)).toEqual([
      { identity: 's:loud', server: 's', method: 'm', peak: 44, represented: 49, firstReachedAt: 3, last },
    ]);
  });
});

describe('conduct and explanations', () => {
  it('lists a client findings in words, most frequent first', () => {
    const counts = {
      probedWithoutDiscovery: 66,
      retriedAfterRefusal: 1200,
      retriedBeforeRetryAfter: 0,
      retriedPastBudget: 0,
      identicalAfterAmbiguous: 0,
    };
    expect(conductFindings(counts)).toEqual([
      're-sent 1,200 requests the server had already refused',
      'probed undeclared paths 66 times without reading the discovery document',
    ]);
  });

  it('agrees a finding of one with its noun: "re-sent 1 request", never "1 requests" or "1 times"', () => {
    const one = {
      probedWithoutDiscovery: 1,
      retriedAfterRefusal: 1,
      retriedBeforeRetryAfter: 1,
      retriedPastBudget: 1,
      identicalAfterAmbiguous: 1,
    };
    const findings = conductFindings(one);
    expect(findings).toContain('re-sent 1 request the server had already refused');
    expect(findings).toContain('retried 1 time past the budget of 3 after transient failures');
    expect(findings).toContain('sent 1 request before Retry-After had elapsed');
    expect(findings).toContain('repeated 1 request unchanged after an ambiguous answer');
    expect(findings).toContain('probed undeclared paths 1 time without reading the discovery document');
    for (const finding of findings) expect(finding).not.toMatch(/\b1 (requests|times)\b/);
  });

  it('explains an event by its rule and kind, and the gate verdict', () => {
    const text = explainEvent({
      bucket: 'refusal',
      kind: 'not_declared',
      rule: 'http.404.not_declared',
      evidence: 'http_status',
    });
    expect(text.why).toContain('does not declare');
    expect(text.clientShould).toContain('Do not retry');
    expect(explainKind('transient', 'unavailable').clientShould).toContain('at most 3');
    expect(gateText(true, 'after_refusal')).toContain('refused before');
    expect(gateText(false, null)).toMatch(/^Needed/);
    expect(gateText(true, 'after_refusal', 'endpoint')).toContain('whatever the body');
    expect(gateText(true, 'after_refusal', 'method')).toContain('method not found');
    expect(gateText(true, 'after_refusal', 'key')).toContain('refused before');
  });

  it('reads names every object inherits as unknown names, not as its members', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(gateText(true, name)).toBe('Avoidable: a correct client would not have sent it.');
      expect(gateText(true, 'after_refusal', name)).toContain('refused before');
      const kind = explainKind('refusal', name);
      expect(typeof kind.means).toBe('string');
      expect(typeof kind.clientShould).toBe('string');
      const text = explainEvent({ bucket: name, kind: name, rule: name, evidence: 'none' });
      expect(text.why).toBe(`Rule "${name}" (unknown to this version).`);
    }
  });
});

describe('context gap reasons named like Object.prototype members', () => {
  it('lists a `__proto__` or `constructor` reason as a reason', () => {
    const reasons = JSON.parse('{"__proto__": 4, "constructor": 2, "budget": 3}');
    expect(reasonList(reasons)).toEqual([
      { reason: '__proto__', count: 4 },
      { reason: 'budget', count: 3 },
      { reason: 'constructor', count: 2 },
    ]);
    const ranking = worstTrim([gap('__proto__', 0.5), gap('constructor', null), gap('toString', 0.9)], 5);
    expect(ranking.worst.map((g) => g.server)).toEqual(['toString', '__proto__']);
    expect(ranking.unreported).toEqual(['constructor']);
  });
});
