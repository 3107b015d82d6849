import { describe, expect, it } from 'vitest';
import { countNotHeld } from '../analysis/denials.ts';
import { seed000, T0 } from '../analysis/fixtures.ts';
import { replayGate } from '../analysis/gate.ts';
import { detectStorms } from '../analysis/storms.ts';
import { METRIC_INFO, METRICS } from './metrics.ts';
import {
  type CountLike,
  valuesFromConduct,
  valuesFromContext,
  valuesFromCounts,
  valuesFromDenials,
  valuesFromSends,
  valuesFromStorms,
} from './values.ts';

const row = (overrides: Partial<CountLike>): CountLike => ({
  server: 'alpha',
  client: 'c1',
  bucket: 'ok',
  kind: 'ok',
  requests: 0,
  avoidable: 0,
  ...overrides,
});

/** alpha: 6 ok, 3 refusals (2 not_declared, 2 avoidable), 1 throttled; beta: 4 transient from another client. */
const ROWS: CountLike[] = [
  row({ requests: 6 }),
  row({ bucket: 'refusal', kind: 'not_declared', requests: 2, avoidable: 2 }),
  row({ bucket: 'refusal', kind: 'invalid_params', requests: 1 }),
  row({ bucket: 'throttled', kind: 'rate_limited', requests: 1 }),
  row({ server: 'beta', client: 'c2', bucket: 'transient', kind: 'unavailable', requests: 4, avoidable: 1 }),
];

const byGroup = (values: { group: string; value: number | null }[]) =>
  Object.fromEntries(values.map((v) => [v.group, v.value]));

describe('alert metrics from rollup counts', () => {
  it('counts and rates each bucket per server, per client and overall', () => {
    expect(byGroup(valuesFromCounts('refusal_count', ROWS, 'server'))).toEqual({ alpha: 3, beta: 0 });
    expect(byGroup(valuesFromCounts('refusal_rate', ROWS, 'server'))).toEqual({ alpha: 0.3, beta: 0 });
    expect(byGroup(valuesFromCounts('transient_count', ROWS, 'client'))).toEqual({ c1: 0, c2: 4 });
    expect(byGroup(valuesFromCounts('throttled_rate', ROWS, 'none'))).toEqual({ '': 1 / 14 });
    expect(byGroup(valuesFromCounts('ambiguous_count', ROWS, 'none'))).toEqual({ '': 0 });
  });

  it('counts avoidable requests and their share, and requests to undeclared paths', () => {
    expect(byGroup(valuesFromCounts('avoidable_count', ROWS, 'none'))).toEqual({ '': 3 });
    expect(byGroup(valuesFromCounts('avoidable_share', ROWS, 'server'))).toEqual({ alpha: 0.2, beta: 0.25 });
    expect(byGroup(valuesFromCounts('undeclared_requests', ROWS, 'server'))).toEqual({ alpha: 2, beta: 0 });
  });

  it('reads no traffic as a count of 0 but a rate with no data', () => {
    expect(valuesFromCounts('refusal_count', [], 'none')).toEqual([{ group: '', value: 0, server: null }]);
    expect(valuesFromCounts('refusal_rate', [], 'none')).toEqual([{ group: '', value: null, server: null }]);
    expect(valuesFromCounts('refusal_rate', [], 'server')).toEqual([]);
  });

  it('names the server of a per-server reading', () => {
    expect(valuesFromCounts('refusal_count', ROWS, 'server').map((v) => v.server)).toEqual(['alpha', 'beta']);
  });
});

describe('alert metrics from the analyses', () => {
  it("reads seed 000's probe storm of 22 attempts as the largest, per client, per server or overall", () => {
    const { prober } = seed000();
    const storms = detectStorms(prober, replayGate(prober)).filter((s) => s.kind === 'probe_storm');
    const rows = [
      ...storms,
      { client: 'other', server: 'docs', attempts: 7 },
      { client: 'other', server: 'docs', attempts: 9 },
    ];
    expect(byGroup(valuesFromStorms(rows, 'client'))).toEqual({ prober: 22, other: 9 });
    expect(byGroup(valuesFromStorms(rows, 'server'))).toEqual({ 'release-notes': 22, docs: 9 });
    expect(byGroup(valuesFromStorms(rows, 'none'))).toEqual({ '': 22 });
    expect(valuesFromStorms(rows, 'client').find((v) => v.group === 'other')?.server).toBe('docs');
    expect(valuesFromStorms([], 'none')).toEqual([{ group: '', value: 0, server: null }]);
  });

  it('sums retries after a refusal from the conduct counters, per client, per server or overall', () => {
    const rows = [
      { client: 'a', server: 's1', after_refusal: 2 },
      { client: 'a', server: 's2', after_refusal: 3 },
      { client: 'b', server: 's1', after_refusal: 1 },
    ];
    expect(byGroup(valuesFromConduct(rows, 'client'))).toEqual({ a: 5, b: 1 });
    expect(byGroup(valuesFromConduct(rows, 'server'))).toEqual({ s1: 3, s2: 3 });
    expect(byGroup(valuesFromConduct(rows, 'none'))).toEqual({ '': 6 });
    expect(valuesFromConduct([], 'none')).toEqual([{ group: '', value: 0, server: null }]);
  });

  it('reads the re-presentations of the most re-presented identity per group, as GET /identities ranks them', () => {
    const rows = [
      { identity: 'release-notes:abc', server: 'release-notes', sends: 45 },
      { identity: 'release-notes:def', server: 'release-notes', sends: 3 },
      { identity: 'docs:123', server: 'docs', sends: 12 },
    ];
    expect(byGroup(valuesFromSends(rows, 'identity'))).toEqual({
      'release-notes:abc': 44,
      'release-notes:def': 2,
      'docs:123': 11,
    });
    expect(byGroup(valuesFromSends(rows, 'server'))).toEqual({ 'release-notes': 44, docs: 11 });
    expect(byGroup(valuesFromSends(rows, 'none'))).toEqual({ '': 44 });
    expect(valuesFromSends(rows, 'identity')[0]?.server).toBe('release-notes');
    expect(valuesFromSends([], 'none')).toEqual([{ group: '', value: 0, server: null }]);
  });

  it('computes the context trim rate over reported sampling requests; none reported is no data', () => {
    const row = (server: string, applied: 'none' | 'thisServer' | 'allServers' | null, requests: number) => ({
      start: T0,
      server,
      requested: 'allServers' as const,
      applied,
      reason: applied === 'none' ? 'policy.max_scope' : null,
      requests,
    });
    const rows = [row('summarizer', 'none', 2), row('summarizer', 'thisServer', 1), row('summarizer', 'allServers', 1)];
    rows.push(row('quiet', null, 3));
    expect(byGroup(valuesFromContext(rows, 'server'))).toEqual({ summarizer: 0.75, quiet: null });
    expect(byGroup(valuesFromContext(rows, 'none'))).toEqual({ '': 0.75 });
    expect(valuesFromContext([], 'none')).toEqual([{ group: '', value: null, server: null }]);
  });

  it('counts denials that did not hold per server, per client and in all', () => {
    const counts = countNotHeld([
      { client: 'a', server: 'x' },
      { client: 'a', server: 'y' },
      { client: 'b', server: 'x' },
    ]);
    expect(byGroup(valuesFromDenials(counts, 'server'))).toEqual({ x: 2, y: 1 });
    expect(byGroup(valuesFromDenials(counts, 'client'))).toEqual({ a: 2, b: 1 });
    expect(byGroup(valuesFromDenials(counts, 'none'))).toEqual({ '': 3 });
    expect(valuesFromDenials(countNotHeld([]), 'none')).toEqual([{ group: '', value: 0, server: null }]);
  });

  it('has exactly one home for every metric', () => {
    for (const metric of METRICS) {
      const { source } = METRIC_INFO[metric];
      if (source === 'rollup') expect(() => valuesFromCounts(metric, ROWS, 'none')).not.toThrow();
      else expect(() => valuesFromCounts(metric, ROWS, 'none'), metric).toThrow(RangeError);
      if (source === 'storms') expect(metric).toBe('probe_storm_size');
      if (source === 'conduct') expect(metric).toBe('retries_after_refusal');
      if (source === 'context') expect(metric).toBe('context_trim_rate');
      if (source === 'identities') expect(metric).toBe('identity_representations');
      if (source === 'denials') expect(metric).toBe('denials_not_held');
      if (source === 'actionability') {
        expect(['failures_without_policy', 'hidden_failures', 'hidden_throttles']).toContain(metric);
      }
    }
  });
});
