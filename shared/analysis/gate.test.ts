import { describe, expect, it } from 'vitest';
import { SESSION_SCOPED_KINDS } from '../classify/kinds.ts';
import { analysisEvent, at, seed000, shuffled } from './fixtures.ts';
import {
  byTimeOrder,
  createGateState,
  GateOrderError,
  type GateState,
  gateStep,
  partitionKey,
  replayGate,
  stepsInOrder,
} from './gate.ts';
import type { GateVerdict } from './gate-types.ts';
import { endpointLabel, pathOnly, requestKey } from './request-key.ts';
import type { AnalysisEvent } from './types.ts';

/** Each event's verdict as one word: 'needed' or the reason it was avoidable. */
function judge(events: readonly AnalysisEvent[]): string[] {
  const verdicts = replayGate(events);
  return events.map((e) => {
    const v = verdicts.get(e.id);
    if (v === undefined) throw new Error(`no verdict for ${e.id}`);
    return v.avoidable ? (v.reason ?? 'avoidable without reason') : 'needed';
  });
}

const ID_A = 'release-notes:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** An attempt of the key (agent-7, release-notes, POST /mcp, ID_A) at `seconds`, unless told otherwise. */
const attempt = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  analysisEvent({ ts: at(seconds), identity: ID_A, ...fields });

describe('requestKey', () => {
  it('is client + server + method + path + identity, the query string left out', () => {
    const a = attempt(0, { httpPath: '/mcp?session=1' });
    const b = attempt(1, { httpPath: '/mcp#x' });
    expect(requestKey(a)).toBe(requestKey(b));
    expect(JSON.parse(requestKey(a))).toEqual(['agent-7', 'release-notes', 'POST', '/mcp', ID_A, null]);
    expect(pathOnly('/mcp/a2a/?x=1')).toBe('/mcp/a2a/');
    expect(pathOnly(null)).toBeNull();
  });

  it('falls back to the JSON-RPC method without an identity, and keeps the two apart', () => {
    const byMethod = attempt(0, { identity: null, rpcMethod: 'tools/list' });
    expect(JSON.parse(requestKey(byMethod))).toEqual(['agent-7', 'release-notes', 'POST', '/mcp', null, 'tools/list']);
    expect(requestKey(attempt(0, { identity: 'tools/list' }))).not.toBe(requestKey(byMethod));
  });

  it('cannot be made ambiguous by separators in names', () => {
    const a = attempt(0, { client: 'a:b', server: 'c' });
    const b = attempt(0, { client: 'a', server: 'b:c' });
    expect(requestKey(a)).not.toBe(requestKey(b));
  });

  it('labels endpoints for display', () => {
    expect(endpointLabel(attempt(0, { httpPath: '/mcp/sse?x' }))).toBe('POST /mcp/sse');
    expect(endpointLabel(attempt(0, { httpMethod: null, httpPath: null, rpcMethod: 'tools/call' }))).toBe('tools/call');
  });
});

describe('after a refusal', () => {
  it('makes every later attempt of the key avoidable, a lucky 200 included', () => {
    const trace = [
      attempt(0, { kind: 'invalid_params', rpcCode: -32602 }),
      attempt(1, { kind: 'invalid_params', rpcCode: -32602 }),
      attempt(2),
      attempt(3600, { kind: 'invalid_params', rpcCode: -32602 }),
    ];
    expect(judge(trace)).toEqual(['needed', 'after_refusal', 'after_refusal', 'after_refusal']);
  });

  it('does not block another key, another client or another server', () => {
    const trace = [
      attempt(0, { kind: 'invalid_params', rpcCode: -32602 }),
      attempt(1, { identity: ID_B }),
      attempt(2, { httpPath: '/mcp/other' }),
      attempt(3, { client: 'agent-8' }),
      attempt(4, { server: 'billing' }),
    ];
    expect(judge(trace)).toEqual(['needed', 'needed', 'needed', 'needed', 'needed']);
  });

  it('of a non-session kind, blocks the key in every session', () => {
    const trace = [attempt(0, { session: 's1', kind: 'forbidden' }), attempt(1, { session: 's2' })];
    expect(judge(trace)).toEqual(['needed', 'after_refusal']);
  });
});

describe('session-scoped refusals', () => {
  it.each(SESSION_SCOPED_KINDS)('%s blocks the key in that session only: a new session starts clean', (kind) => {
    const trace = [
      attempt(0, { session: 's1', kind }),
      attempt(1, { session: 's1', kind }),
      attempt(2, { session: 's2' }),
      attempt(3, { session: 's1' }),
      attempt(4, { session: 's2' }),
    ];
    expect(judge(trace)).toEqual(['needed', 'after_refusal', 'needed', 'after_refusal', 'needed']);
  });

  it('blocks a key refused for a missing session on requests without one, not on those with one', () => {
    const trace = [
      attempt(0, { session: null, kind: 'session_missing', httpStatus: 400 }),
      attempt(1, { session: null }),
      attempt(2, { session: 'null' }),
    ];
    expect(judge(trace)).toEqual(['needed', 'after_refusal', 'needed']);
  });

  it('blocks only that key in the session', () => {
    const trace = [
      attempt(0, { session: 's1', kind: 'session_expired' }),
      attempt(1, { session: 's1', identity: ID_B }),
    ];
    expect(judge(trace)).toEqual(['needed', 'needed']);
  });
});

describe('the transient budget', () => {
  const fail = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
    attempt(seconds, { kind: 'unavailable', httpStatus: 503, ...fields });

  it('lets attempts 1-4 through (the failure and 3 retries) and makes the 5th on avoidable', () => {
    const trace = [fail(0), fail(1), fail(2), fail(3), fail(4), fail(5), attempt(6)];
    expect(judge(trace)).toEqual([
      'needed',
      'needed',
      'needed',
      'needed',
      'past_transient_budget',
      'past_transient_budget',
      'past_transient_budget',
    ]);
  });

  it('ends at the 4th attempt when that one succeeds', () => {
    expect(judge([fail(0), fail(1), fail(2), attempt(3)])).toEqual(['needed', 'needed', 'needed', 'needed']);
  });

  it('is reset by a success', () => {
    const trace = [fail(0), fail(1), fail(2), attempt(3), fail(4), fail(5), fail(6), fail(7), fail(8)];
    expect(judge(trace)).toEqual([...Array(8).fill('needed'), 'past_transient_budget']);
  });

  it('is counted per key', () => {
    const trace = [fail(0), fail(1), fail(2), fail(3), fail(4, { identity: ID_B }), fail(5)];
    expect(judge(trace)).toEqual(['needed', 'needed', 'needed', 'needed', 'needed', 'past_transient_budget']);
  });

  it('counts a throttled answer inside a run as an attempt, and a refusal ends the run', () => {
    const throttled = (s: number) => attempt(s, { kind: 'rate_limited', httpStatus: 429, waitUntil: null });
    expect(judge([fail(0), throttled(1), fail(2), fail(3), fail(4)])).toEqual([
      'needed',
      'needed',
      'needed',
      'needed',
      'past_transient_budget',
    ]);
    expect(judge([fail(10), attempt(11, { kind: 'invalid_params' }), fail(12)])).toEqual([
      'needed',
      'needed',
      'after_refusal',
    ]);
  });

  it('drops the counter of a key on success, and keeps nothing for keys that only succeed (bounded state)', () => {
    const state = createGateState();
    gateStep(state, fail(0));
    gateStep(state, fail(1));
    expect(Object.values(state.partitions).map((p) => p.keys)).toEqual([{ [requestKey(fail(0))]: { transient: 2 } }]);
    for (const e of [attempt(2), attempt(3, { identity: ID_B }), attempt(4, { identity: null })]) gateStep(state, e);
    expect(Object.values(state.partitions).map((p) => p.keys)).toEqual([{}]);
  });
});

describe('after a throttled answer', () => {
  const throttle = (seconds: number, waitSeconds: number | null, fields: Partial<AnalysisEvent> = {}) =>
    attempt(seconds, {
      kind: 'rate_limited',
      httpStatus: 429,
      waitUntil: waitSeconds === null ? null : at(seconds + waitSeconds),
      ...fields,
    });

  it('makes requests to that server before waitUntil avoidable, whatever key, and not after', () => {
    const trace = [
      throttle(0, 30),
      attempt(10),
      attempt(11, { identity: ID_B, httpPath: '/mcp/other' }),
      attempt(12, { server: 'billing' }),
      attempt(13, { client: 'agent-8' }),
      attempt(30),
      attempt(31, { identity: ID_B }),
    ];
    expect(judge(trace)).toEqual([
      'needed',
      'before_retry_after',
      'before_retry_after',
      'needed',
      'needed',
      'needed',
      'needed',
    ]);
  });

  it('blocks nothing when the answer named no time (waitUntil null) or a time already past', () => {
    expect(judge([throttle(0, null), attempt(1), throttle(2, -5), attempt(3)])).toEqual([
      'needed',
      'needed',
      'needed',
      'needed',
    ]);
  });

  it('counts a lucky 200 inside the window as avoidable, and it resets nothing', () => {
    const fail = (s: number) => attempt(s, { kind: 'server_error', httpStatus: 500 });
    const trace = [
      fail(0),
      fail(1),
      fail(2),
      throttle(3, 30, { identity: ID_B }),
      attempt(10), // lucky 200: must not reset ID_A's run of 3 attempts
      fail(40), // 4th attempt of the run: the last retry
      fail(41), // 5th: past the budget, so the 200 above reset nothing
    ];
    expect(judge(trace)).toEqual([
      'needed',
      'needed',
      'needed',
      'needed',
      'before_retry_after',
      'needed',
      'past_transient_budget',
    ]);
  });

  it('is not extended by an avoidable throttled answer inside the window', () => {
    const trace = [throttle(0, 30), throttle(10, 300), attempt(31)];
    expect(judge(trace)).toEqual(['needed', 'before_retry_after', 'needed']);
  });
});

describe('after an ambiguous answer', () => {
  it('makes identical retries avoidable for good, a later 200 included; a repaired request is needed', () => {
    const trace = [
      attempt(0, { kind: 'tool_error' }),
      attempt(1, { kind: 'tool_error' }),
      attempt(2),
      attempt(3, { identity: ID_B }),
      attempt(86_400),
    ];
    expect(judge(trace)).toEqual([
      'needed',
      'identical_after_ambiguous',
      'identical_after_ambiguous',
      'needed',
      'identical_after_ambiguous',
    ]);
  });

  it('ends a transient run (the key is blocked instead)', () => {
    const trace = [attempt(0, { kind: 'timeout' }), attempt(1, { kind: 'internal_error' }), attempt(2)];
    expect(judge(trace)).toEqual(['needed', 'needed', 'identical_after_ambiguous']);
  });
});

describe('precedence: after_refusal > identical_after_ambiguous > before_retry_after > past_transient_budget', () => {
  const throttleB = (s: number) =>
    attempt(s, { identity: ID_B, kind: 'rate_limited', httpStatus: 429, waitUntil: at(s + 60) });

  it('refusal over throttle', () => {
    expect(judge([attempt(0, { kind: 'forbidden' }), throttleB(1), attempt(2)])[2]).toBe('after_refusal');
  });

  it('session refusal over ambiguous', () => {
    const trace = [
      attempt(0, { session: 's1', kind: 'session_expired' }),
      attempt(1, { session: 's2', kind: 'tool_error' }),
      attempt(2, { session: 's1' }),
      attempt(3, { session: 's3' }),
    ];
    expect(judge(trace)).toEqual(['needed', 'needed', 'after_refusal', 'identical_after_ambiguous']);
  });

  it('ambiguous over throttle', () => {
    expect(judge([attempt(0, { kind: 'tool_error' }), throttleB(1), attempt(2)])[2]).toBe('identical_after_ambiguous');
  });

  it('throttle over the spent budget', () => {
    const fail = (s: number) => attempt(s, { kind: 'timeout' });
    const trace = [fail(0), fail(1), fail(2), fail(3), throttleB(4), fail(5), fail(100)];
    expect(judge(trace).slice(5)).toEqual(['before_retry_after', 'past_transient_budget']);
  });
});

describe('records the gate does not judge', () => {
  it('skips shadowed proxy records: a request seen twice is judged once', () => {
    const client = attempt(0, { kind: 'not_declared', httpStatus: 404 });
    const shadow = attempt(0, { source: 'proxy', counted: false, kind: 'ok', httpStatus: 200, identity: null });
    const retry = attempt(1, { kind: 'not_declared' });
    const retryShadow = attempt(1, { source: 'proxy', counted: false, kind: 'not_declared', identity: null });
    expect(judge([client, shadow, retry, retryShadow])).toEqual(['needed', 'needed', 'after_refusal', 'needed']);
    expect(replayGate([retryShadow]).get(retryShadow.id)).toEqual({
      id: retryShadow.id,
      key: requestKey(retryShadow),
      avoidable: false,
      reason: null,
      blockedBy: null,
    });
  });

  it('leaves the state untouched by a shadowed record, even out of order', () => {
    const state = createGateState();
    gateStep(state, attempt(10, { kind: 'forbidden' }));
    const before = structuredClone(state);
    gateStep(state, attempt(0, { counted: false, source: 'proxy', kind: 'forbidden', identity: ID_B }));
    expect(state).toEqual(before);
  });

  it('never marks an event without a client avoidable', () => {
    const anonymous = (s: number) =>
      attempt(s, { source: 'proxy', client: null, kind: 'not_declared', httpStatus: 404, identity: null });
    const trace = [anonymous(0), anonymous(1), anonymous(2)];
    expect(judge(trace)).toEqual(['needed', 'needed', 'needed']);
    expect(partitionKey(trace[0] ?? attempt(0))).toBeNull();
    const state = createGateState();
    for (const e of trace) gateStep(state, e);
    expect(state).toEqual(createGateState());
  });
});

describe("seed 000's numbers", () => {
  const traces = seed000();
  const count = (events: readonly AnalysisEvent[]) => {
    const words = judge(events);
    return {
      needed: words.filter((w) => w === 'needed').length,
      avoidable: words.filter((w) => w !== 'needed').length,
    };
  };

  it('the prober: 22 requests against three undeclared paths → 3 needed, 19 avoidable', () => {
    expect(traces.prober).toHaveLength(22);
    expect(new Set(traces.prober.map(endpointLabel))).toEqual(
      new Set(['POST /mcp/mcp', 'POST /mcp/sse', 'POST /mcp/a2a/']),
    );
    expect(count(traces.prober)).toEqual({ needed: 3, avoidable: 19 });
    expect(new Set(judge(traces.prober).filter((w) => w !== 'needed'))).toEqual(new Set(['after_refusal']));
  });

  it('the third client: the tools/call on a missing slug, sent three times → 1 needed, 2 avoidable', () => {
    const calls = traces.thirdClient.filter((e) => e.rpcMethod === 'tools/call');
    expect(calls).toHaveLength(3);
    expect(judge(traces.thirdClient)).toEqual(['needed', 'needed', 'after_refusal', 'after_refusal']);
  });

  it('the first client: one refusal read as authoritative → nothing avoidable', () => {
    expect(count(traces.discoverer)).toEqual({ needed: 1, avoidable: 0 });
  });

  it('all three together give the same numbers', () => {
    expect(count([...traces.discoverer, ...traces.prober, ...traces.thirdClient])).toEqual({
      needed: 1 + 3 + 2,
      avoidable: 19 + 2,
    });
  });
});

/** A deterministic mixed trace over 3 clients × 2 servers that exercises every rule, with ts ties. */
function mixedTrace(n: number, seed: number): AnalysisEvent[] {
  let s = seed;
  const next = (bound: number) => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return (s >>> 8) % bound;
  };
  const outcomes: Partial<AnalysisEvent>[] = [
    { kind: 'ok' },
    { kind: 'ok' },
    { kind: 'ok' },
    { kind: 'unavailable', httpStatus: 503 },
    { kind: 'unavailable', httpStatus: 503 },
    { kind: 'timeout', httpStatus: null },
    { kind: 'not_declared', httpStatus: 404 },
    { kind: 'session_expired', httpStatus: 404 },
    { kind: 'tool_error' },
    { kind: 'rate_limited', httpStatus: 429 },
  ];
  return Array.from({ length: n }, () => {
    const ts = at(next(600));
    const outcome = outcomes[next(outcomes.length)] ?? {};
    return analysisEvent({
      ts,
      client: `c${next(3)}`,
      server: `s${next(2)}`,
      session: `session-${next(3)}`,
      httpPath: `/mcp/p${next(3)}`,
      identity: next(4) === 0 ? null : `srv:${next(3)}`,
      rpcMethod: 'tools/call',
      counted: next(10) !== 0,
      ...outcome,
      waitUntil: outcome.kind === 'rate_limited' && next(3) > 0 ? ts + next(60_000) : null,
    });
  });
}

const sortedEntries = (verdicts: Map<string, GateVerdict>) =>
  [...verdicts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('order', () => {
  const trace = mixedTrace(2000, 7);
  const reference = replayGate([...trace].sort(byTimeOrder));

  it('exercises every reason (so the comparisons below mean something)', () => {
    const reasons = new Set([...reference.values()].map((v) => v.reason));
    expect(reasons).toEqual(
      new Set([null, 'after_refusal', 'past_transient_budget', 'before_retry_after', 'identical_after_ambiguous']),
    );
  });

  it.each([1, 2, 3, 42, 2026])('gives the same verdicts for input shuffled with seed %i', (seed) => {
    expect(sortedEntries(replayGate(shuffled(trace, seed)))).toEqual(sortedEntries(reference));
  });

  it('breaks ts ties by seq, not by input position', () => {
    const refused = attempt(0, { kind: 'forbidden', seq: 1 });
    const retry = attempt(0, { seq: 2 });
    expect(replayGate([retry, refused]).get(retry.id)?.reason).toBe('after_refusal');
    expect(replayGate([retry, refused]).get(refused.id)?.avoidable).toBe(false);
  });

  it('stepping all partitions interleaved, in global time order, gives the replay verdicts', () => {
    const state = createGateState();
    const stepped = new Map([...trace].sort(byTimeOrder).map((e) => [e.id, gateStep(state, e)] as const));
    expect(sortedEntries(stepped)).toEqual(sortedEntries(reference));
  });

  it('refuses an earlier event of the same partition, and accepts another partition', () => {
    const state = createGateState();
    gateStep(state, attempt(10));
    const late = attempt(5);
    expect(stepsInOrder(state, late)).toBe(false);
    expect(() => gateStep(state, late)).toThrow(GateOrderError);
    const otherServer = attempt(5, { server: 'billing' });
    expect(stepsInOrder(state, otherServer)).toBe(true);
    expect(gateStep(state, otherServer).avoidable).toBe(false);
  });
});

describe('state', () => {
  const events = [...mixedTrace(1500, 11)].sort(byTimeOrder);
  const half = 700;

  it('is plain JSON: a stored and reloaded state continues with the same verdicts', () => {
    const live = createGateState();
    const liveVerdicts = events.map((e) => gateStep(live, e));

    let stored: GateState = createGateState();
    const resumed: GateVerdict[] = [];
    events.forEach((e, i) => {
      if (i === half) stored = JSON.parse(JSON.stringify(stored)) as GateState;
      resumed.push(gateStep(stored, e));
    });
    expect(resumed).toEqual(liveVerdicts);
    expect(JSON.parse(JSON.stringify(live))).toEqual(live);
  });

  it('can be kept per partition', () => {
    const states = new Map<string, GateState>();
    const perPartition = new Map<string, GateVerdict>();
    for (const e of events) {
      const pk = partitionKey(e) ?? '';
      let state = states.get(pk);
      if (state === undefined) {
        state = createGateState();
        states.set(pk, state);
      }
      perPartition.set(e.id, gateStep(state, e));
    }
    expect(sortedEntries(perPartition)).toEqual(sortedEntries(replayGate(events)));
  });
});

/** Each event's verdict as 'needed' or `reason/blockedBy`. */
function judgeBlocks(events: readonly AnalysisEvent[]): string[] {
  const verdicts = replayGate(events);
  return events.map((e) => {
    const v = verdicts.get(e.id) as GateVerdict;
    return v.avoidable ? `${v.reason}/${v.blockedBy}` : 'needed';
  });
}

describe('what a refusal blocks (DOMAIN.md section 6)', () => {
  it('blocks the endpoint after not_declared, whatever the body', () => {
    const probe = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
      attempt(seconds, { httpPath: '/a2a', httpStatus: 404, kind: 'not_declared', ...fields });
    const trace = [
      probe(0, { identity: ID_A }),
      probe(1, { identity: ID_B }),
      probe(2, { identity: null, rpcMethod: 'message/send' }),
      probe(3, { httpMethod: 'GET', identity: null, rpcMethod: null }),
      attempt(4, { httpPath: '/mcp', identity: ID_B }),
    ];
    expect(judgeBlocks(trace)).toEqual([
      'needed',
      'after_refusal/endpoint',
      'after_refusal/endpoint',
      'needed',
      'needed',
    ]);
  });

  it('blocks the endpoint after a 405, whatever the body', () => {
    const trace = [
      attempt(0, { httpMethod: 'GET', identity: null, rpcMethod: null, httpStatus: 405, kind: 'not_supported' }),
      attempt(1, { httpMethod: 'GET', identity: null, rpcMethod: null, httpStatus: 200 }),
      attempt(2, { httpMethod: 'POST', identity: ID_A }),
    ];
    expect(judgeBlocks(trace)).toEqual(['needed', 'after_refusal/endpoint', 'needed']);
  });

  it('blocks the JSON-RPC method at that path after -32601, whatever the params', () => {
    const notFound = { rpcMethod: 'completion/complete', rpcCode: -32601, kind: 'not_supported' } as const;
    const trace = [
      attempt(0, { ...notFound, identity: ID_A }),
      attempt(1, { ...notFound, identity: ID_B }),
      attempt(2, { ...notFound, identity: ID_B, httpPath: '/other/mcp' }),
      attempt(3, { rpcMethod: 'tools/call', identity: ID_A }),
    ];
    expect(judgeBlocks(trace)).toEqual(['needed', 'after_refusal/method', 'needed', 'needed']);
  });

  it('blocks a session-scoped refusal in its session only: a new session starts clean', () => {
    const expired = { kind: 'session_expired', httpStatus: 404 } as const;
    const trace = [
      attempt(0, { ...expired, session: 's-1' }),
      attempt(1, { ...expired, session: 's-1' }),
      attempt(2, { session: 's-2' }),
      attempt(3, { session: 's-1' }),
    ];
    expect(judgeBlocks(trace)).toEqual(['needed', 'after_refusal/session', 'needed', 'after_refusal/session']);
  });

  it('lifts a refusal at its resetsAt: the same request after it is needed again', () => {
    const denied = { kind: 'policy_denied', rpcCode: -32003, waitUntil: at(120) } as const;
    const trace = [attempt(0, denied), attempt(60, denied), attempt(121), attempt(122)];
    expect(judgeBlocks(trace)).toEqual(['needed', 'after_refusal/key', 'needed', 'needed']);
  });

  it('lifts an endpoint block when it lapses, and blocks again on the next refusal', () => {
    const probe = (seconds: number) =>
      attempt(seconds, { httpPath: '/a2a', httpStatus: 404, kind: 'not_declared', waitUntil: at(seconds + 30) });
    expect(judgeBlocks([probe(0), probe(29), probe(31), probe(40)])).toEqual([
      'needed',
      'after_refusal/endpoint',
      'needed',
      'after_refusal/endpoint',
    ]);
  });

  it('names the key for an ambiguous answer and a spent transient budget, and no block for a throttle', () => {
    const ambiguous = [attempt(0, { kind: 'tool_error' }), attempt(1, { kind: 'tool_error' })];
    expect(judgeBlocks(ambiguous)).toEqual(['needed', 'identical_after_ambiguous/key']);
    const throttled = [attempt(0, { kind: 'rate_limited', waitUntil: at(10) }), attempt(5, { identity: ID_B })];
    expect(judgeBlocks(throttled)).toEqual(['needed', 'before_retry_after/null']);
    const transient = [0, 1, 2, 3, 4].map((s) => attempt(s, { kind: 'server_error', httpStatus: 502 }));
    expect(judgeBlocks(transient).at(-1)).toBe('past_transient_budget/key');
  });
});
