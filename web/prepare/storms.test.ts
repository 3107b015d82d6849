import { describe, expect, it } from 'vitest';
import type { StormAttempt, StormSummary } from '../queries/storms.ts';
import { parseRequestKey, stormTarget } from './storms.ts';
import { answerLabel, collapseTimeline, sentLabel } from './timeline.ts';

function storm(overrides: Partial<StormSummary>): StormSummary {
  return {
    id: 's',
    kind: 'retry_loop',
    client: 'c',
    server: 'docs',
    sentBy: 'client',
    actor: 'c',
    counterpart: 'docs',
    title: 'c re-sent tools/call to docs 2 times after it was refused (not_declared)',
    key: JSON.stringify(['c', 'docs', 'POST', '/mcp', 'docs:0123456789abcdef0123456789abcdef', null]),
    paths: ['POST /mcp'],
    attempts: 3,
    avoidable: 2,
    firstTs: 0,
    lastTs: 1000,
    firstFailure: { bucket: 'refusal', kind: 'not_declared' },
    ...overrides,
  };
}

describe('storms', () => {
  it('says what a storm hammered', () => {
    expect(stormTarget(storm({}))).toBe('POST /mcp · docs:01234567…');
    const byMethod = JSON.stringify(['c', 'docs', 'GET', '/mcp', null, 'tools/list']);
    expect(stormTarget(storm({ key: byMethod, paths: ['GET /mcp'] }))).toBe('GET /mcp · tools/list');
    expect(stormTarget(storm({ kind: 'probe_storm', key: '[]', paths: ['POST /a', 'GET /b'] }))).toBe(
      '2 targets: POST /a, GET /b',
    );
    expect(stormTarget(storm({ kind: 'reconnect_loop', key: '["endpoint","GET","/mcp"]', paths: ['GET /mcp'] }))).toBe(
      'GET /mcp',
    );
    expect(parseRequestKey('not json')).toBeNull();
  });
});

function attempt(ts: number, overrides: Partial<StormAttempt> = {}): StormAttempt {
  return {
    id: `e${ts}`,
    ts,
    rpcMethod: null,
    status: 405,
    rpcCode: null,
    answered: true,
    latencyMs: 1,
    bucket: 'refusal',
    rule: 'http.method_not_allowed',
    kind: 'not_supported',
    avoidable: true,
    blockedBy: 'key',
    gate: 'not sent: the key was refused (not_supported) at 08:03:00',
    ...overrides,
  };
}

describe('collapseTimeline', () => {
  it('folds consecutive identical attempts and keeps the first one apart', () => {
    const first = attempt(0, { avoidable: false, gate: 'sent: first attempt' });
    const runs = collapseTimeline([first, attempt(1, { latencyMs: 4 }), attempt(2), attempt(3, { latencyMs: null })]);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ position: 1, count: 1, first });
    expect(runs[1]).toMatchObject({ position: 2, count: 3, latency: { min: 1, max: 4 } });
    expect(runs[1]?.last.ts).toBe(3);
  });

  it('starts a new run when the answer or the verdict changes', () => {
    const runs = collapseTimeline([attempt(0), attempt(1, { status: 200, bucket: 'ok' }), attempt(2)]);
    expect(runs.map((r) => r.count)).toEqual([1, 1, 1]);
  });

  it('never folds needed attempts, which may have gone to different paths', () => {
    const sent = { avoidable: false, gate: 'sent: first attempt' };
    expect(collapseTimeline([attempt(0, sent), attempt(1, sent)]).map((r) => r.count)).toEqual([1, 1]);
  });

  it('labels an answer by status and code', () => {
    expect(answerLabel({ status: 200, rpcCode: -32602 })).toBe('200 · -32602');
    expect(answerLabel({ status: null, rpcCode: null })).toBe('no answer');
    expect(answerLabel({ status: null, rpcCode: null, answered: true })).toBe('answered');
    // A host log's request whose answer the log hides (mcp-remote, agentgateway below 400): neither answered nor not.
    expect(answerLabel({ status: null, rpcCode: null, answered: false, kind: 'outcome_unknown' })).toBe(
      'unknown outcome',
    );
    expect(answerLabel({ status: null, rpcCode: -32601, answered: true })).toBe('-32601');
    expect(answerLabel({ status: null, rpcCode: null, kind: 'timeout', rule: 'record.connection' })).toBe(
      'not connected',
    );
    expect(sentLabel({ rpcMethod: null, rule: 'record.connection' })).toBe('server start');
    expect(sentLabel({ rpcMethod: null, rule: 'http.method_not_allowed' })).toBeNull();
  });
});
