import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { addContext, contextGapByServer, contextTrend, emptyContextGap, isTrimmed, trimRate } from './context-gap.ts';
import { analysisEvent, shuffled, T0 } from './fixtures.ts';
import { toAnalysisEvent } from './from-event.ts';
import { HOUR_MS, MINUTE_MS } from './time-buckets.ts';
import type { AnalysisEvent, ContextObservation } from './types.ts';

/** One sampling call to `server` at T0 + offset with what the request asked for and the response said it applied. */
function sampling(
  context: Partial<ContextObservation>,
  { server = 'summariser', offsetMs = 0, counted = true } = {},
): AnalysisEvent {
  return analysisEvent({
    server,
    ts: T0 + offsetMs,
    counted,
    rpcMethod: 'sampling/createMessage',
    context: { requested: 'none', applied: null, reason: null, ...context },
  });
}

function gapOf(events: readonly AnalysisEvent[]) {
  const acc = emptyContextGap();
  for (const event of events) addContext(acc, event);
  return acc;
}

describe('isTrimmed', () => {
  it('orders scopes none < thisServer < allServers', () => {
    expect(isTrimmed('allServers', 'none')).toBe(true);
    expect(isTrimmed('allServers', 'thisServer')).toBe(true);
    expect(isTrimmed('thisServer', 'none')).toBe(true);
    expect(isTrimmed('thisServer', 'thisServer')).toBe(false);
    expect(isTrimmed('none', 'allServers')).toBe(false);
  });
});

describe('context gap accumulator', () => {
  it('fills the requested × applied matrix and counts only reported responses in the rate', () => {
    const gap = gapOf([
      sampling({ requested: 'allServers', applied: 'none', reason: 'policy.max_scope' }),
      sampling({ requested: 'thisServer', applied: 'thisServer' }),
      // requested absent: from-event reads it as none, and none applied to none is granted
      sampling({ requested: 'none', applied: 'none' }),
      sampling({ requested: 'allServers', applied: null }),
      sampling({ requested: 'allServers', applied: null }),
    ]);
    expect(gap.matrix).toEqual({
      none: { none: 1, thisServer: 0, allServers: 0, not_reported: 0 },
      thisServer: { none: 0, thisServer: 1, allServers: 0, not_reported: 0 },
      allServers: { none: 1, thisServer: 0, allServers: 0, not_reported: 2 },
    });
    expect(gap.reported).toBe(3);
    expect(gap.trimmed).toBe(1);
    expect(trimRate(gap)).toBeCloseTo(1 / 3);
  });

  it('gives a null rate when no response reported, never 0/0 as 0', () => {
    const gap = gapOf([sampling({ requested: 'allServers' }), sampling({ requested: 'thisServer' })]);
    expect(gap.matrix.allServers.not_reported).toBe(1);
    expect(gap.reported).toBe(0);
    expect(gap.trimmed).toBe(0);
    expect(trimRate(gap)).toBeNull();
    expect(trimRate(emptyContextGap())).toBeNull();
  });

  it('counts reasons among trimmed responses only, and trimmed ones without a reason apart', () => {
    const gap = gapOf([
      sampling({ requested: 'allServers', applied: 'none', reason: 'policy.max_scope' }),
      sampling({ requested: 'allServers', applied: 'thisServer', reason: 'policy.max_scope' }),
      sampling({ requested: 'thisServer', applied: 'none', reason: 'user.denied' }),
      sampling({ requested: 'thisServer', applied: 'none' }),
      sampling({ requested: 'thisServer', applied: 'thisServer', reason: 'policy.ok' }),
      sampling({ requested: 'allServers', applied: null, reason: 'constructor' }),
    ]);
    expect({ ...gap.reasons }).toEqual({ 'policy.max_scope': 2, 'user.denied': 1 });
    expect(gap.trimmedWithoutReason).toBe(1);
    expect(gap.trimmed).toBe(4);
  });

  it('ignores uncounted records and events that are not sampling calls', () => {
    const gap = gapOf([
      sampling({ requested: 'allServers', applied: 'none' }, { counted: false }),
      analysisEvent({ rpcMethod: 'tools/call', context: null }),
    ]);
    expect(gap).toEqual(emptyContextGap());
  });

  it('folds events in any order to the same accumulator', () => {
    const events = [
      sampling({ requested: 'allServers', applied: 'none', reason: 'policy.max_scope' }),
      sampling({ requested: 'allServers', applied: 'allServers' }, { offsetMs: 2 * MINUTE_MS }),
      sampling({ requested: 'thisServer', applied: null }, { offsetMs: 3 * MINUTE_MS }),
      sampling({ requested: 'thisServer', applied: 'none', reason: 'user.denied' }, { offsetMs: 90 * MINUTE_MS }),
      sampling({ requested: 'none', applied: 'none' }, { offsetMs: 91 * MINUTE_MS }),
    ];
    const whole = gapOf(events);
    expect(gapOf(shuffled(events, 7))).toEqual(whole);
  });

  it('takes any reason as a plain key', () => {
    const gap = gapOf([sampling({ requested: 'allServers', applied: 'none', reason: 'policy.max_scope' })]);
    addContext(gap, sampling({ requested: 'allServers', applied: 'none', reason: 'toString' }));
    expect({ ...gap.reasons }).toEqual({ 'policy.max_scope': 1, toString: 1 });
  });
});

describe('from a logged event', () => {
  /** A logged sampling call, through validation and the analysis view, as ingest builds it. */
  function logged(params: Record<string, unknown>, result: Record<string, unknown>): AnalysisEvent {
    const parsed = validateEvent({
      ts: T0,
      source: 'client',
      client: 'agent-7',
      server: 'summariser',
      request: { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: { messages: [], ...params } },
      response: { jsonrpc: '2.0', id: 1, result },
    });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const ok = { bucket: 'ok', kind: 'ok', rule: 'ok', evidence: 'none' } as const;
    return toAnalysisEvent(parsed.event, ok, { id: 'e1', seq: 1, identity: null, counted: true });
  }

  it('reads an absent includeContext as none, and a response without _meta.context as not reported', () => {
    const gap = gapOf([
      logged({}, { _meta: { context: { requested: 'none', applied: 'none' } } }),
      logged({ includeContext: 'allServers' }, { content: { type: 'text', text: 'ok' } }),
      logged(
        { includeContext: 'allServers' },
        { _meta: { context: { applied: 'thisServer', reason: 'policy.max_scope' } } },
      ),
    ]);
    expect(gap.matrix.none.none).toBe(1);
    expect(gap.matrix.allServers.not_reported).toBe(1);
    expect(gap.matrix.allServers.thisServer).toBe(1);
    expect({ reported: gap.reported, trimmed: gap.trimmed, reasons: { ...gap.reasons } }).toEqual({
      reported: 2,
      trimmed: 1,
      reasons: { 'policy.max_scope': 1 },
    });
  });
});

describe('contextGapByServer', () => {
  it('keeps one accumulator per server that made sampling calls', () => {
    const byServer = contextGapByServer([
      sampling({ requested: 'allServers', applied: 'none' }, { server: 'summariser' }),
      sampling({ requested: 'thisServer', applied: 'thisServer' }, { server: 'release-notes' }),
      sampling({ requested: 'thisServer', applied: 'none' }, { server: 'release-notes' }),
      analysisEvent({ server: 'files', context: null }),
    ]);
    expect([...byServer.keys()].sort()).toEqual(['release-notes', 'summariser']);
    expect(trimRate(byServer.get('summariser') ?? emptyContextGap())).toBe(1);
    expect(trimRate(byServer.get('release-notes') ?? emptyContextGap())).toBe(0.5);
  });
});

describe('contextTrend', () => {
  it('lists every bucket: counts 0 and rate null where nothing was reported', () => {
    const gap = gapOf([
      sampling({ requested: 'allServers', applied: 'none' }, { offsetMs: 5 * MINUTE_MS }),
      sampling({ requested: 'allServers', applied: 'allServers' }, { offsetMs: 20 * MINUTE_MS }),
      sampling({ requested: 'allServers', applied: null }, { offsetMs: 70 * MINUTE_MS }),
      sampling({ requested: 'thisServer', applied: 'thisServer' }, { offsetMs: 190 * MINUTE_MS }),
    ]);
    expect(contextTrend(gap, T0, T0 + 4 * HOUR_MS, HOUR_MS)).toEqual([
      { start: T0, sampled: 2, reported: 2, trimmed: 1, rate: 0.5 },
      { start: T0 + HOUR_MS, sampled: 1, reported: 0, trimmed: 0, rate: null },
      { start: T0 + 2 * HOUR_MS, sampled: 0, reported: 0, trimmed: 0, rate: null },
      { start: T0 + 3 * HOUR_MS, sampled: 1, reported: 1, trimmed: 0, rate: 0 },
    ]);
  });

  it("puts the window's first, partial minute in the bucket that holds it", () => {
    const gap = gapOf([
      sampling({ requested: 'allServers', applied: 'none' }, { offsetMs: 30_000 }),
      sampling({ requested: 'allServers', applied: 'none' }, { offsetMs: 90_000 }),
    ]);
    expect(contextTrend(gap, T0 + 20_000, T0 + 5 * MINUTE_MS, 5 * MINUTE_MS)).toEqual([
      { start: T0, sampled: 2, reported: 2, trimmed: 2, rate: 1 },
    ]);
  });

  it('needs a step that is a multiple of the kept one', () => {
    expect(() => contextTrend(emptyContextGap(HOUR_MS), T0, T0 + HOUR_MS, MINUTE_MS)).toThrow(RangeError);
  });
});
