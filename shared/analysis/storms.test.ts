import { describe, expect, it } from 'vitest';
import { analysisEvent, at, seed000, shuffled } from './fixtures.ts';
import { replayGate } from './gate.ts';
import { requestKey } from './request-key.ts';
import type { StormOptions } from './storm-tracker.ts';
import { detectStorms, summariseAvoidable } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

const storms = (events: readonly AnalysisEvent[], options?: StormOptions) =>
  detectStorms(events, replayGate(events), options);

const ID_A = 'release-notes:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const attempt = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  analysisEvent({ ts: at(seconds), identity: ID_A, ...fields });
const fail = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  attempt(seconds, { kind: 'unavailable', httpStatus: 503, ...fields });
const refused = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  attempt(seconds, { kind: 'invalid_params', httpStatus: 400, rpcCode: -32602, ...fields });
const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);

/** Every attempt in at most one storm, each listed with 3 attempts or more and at least 1 avoidable. */
function expectSection6Shape(found: ReturnType<typeof storms>): void {
  const seen = new Set<string>();
  for (const storm of found) {
    expect(storm.timeline.length).toBe(storm.attempts);
    expect(storm.attempts).toBeGreaterThanOrEqual(3);
    expect(storm.avoidable).toBeGreaterThanOrEqual(1);
    for (const { id } of storm.timeline) {
      expect(seen.has(id), `${id} in two storms`).toBe(false);
      seen.add(id);
    }
  }
}

describe("seed 000's prober", () => {
  const { prober } = seed000();
  const found = storms(prober);

  it('is one probe storm over the three undeclared paths, 22 attempts and 19 avoidable, listed once', () => {
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'probe_storm',
      client: 'prober',
      server: 'release-notes',
      sentBy: 'client',
      actor: 'prober',
      counterpart: 'release-notes',
      paths: ['POST /mcp/mcp', 'POST /mcp/sse', 'POST /mcp/a2a/'],
      attempts: 22,
      avoidable: 19,
      firstTs: at(10),
      lastTs: at(52),
      firstFailure: { bucket: 'refusal', kind: 'not_declared' },
      title:
        'prober probed 3 undeclared endpoints (POST /mcp/mcp, POST /mcp/sse, POST /mcp/a2a/) of release-notes: ' +
        '22 attempts, 19 avoidable',
    });
    expect(ids(found[0]?.timeline ?? [])).toEqual(ids(prober));
  });

  it('says for each attempt what it sent and what a correct client would have done', () => {
    const timeline = found[0]?.timeline ?? [];
    expect(timeline.slice(0, 4).map((a) => a.gate)).toEqual([
      'sent: first attempt',
      'sent: first attempt',
      'sent: first attempt',
      'not sent: the endpoint POST /mcp/mcp was refused (not_declared) at 10:00:10, whatever the body',
    ]);
    expect(timeline.filter((a) => a.gate.startsWith('not sent'))).toHaveLength(19);
    expect(timeline[0]).toEqual({
      id: prober[0]?.id,
      ts: at(10),
      rpcMethod: 'initialize',
      status: 404,
      rpcCode: null,
      answered: true,
      latencyMs: 12,
      bucket: 'refusal',
      kind: 'not_declared',
      rule: 'http.404.not_declared',
      avoidable: false,
      blockedBy: null,
      gate: 'sent: first attempt',
    });
    expect(timeline[3]?.blockedBy).toBe('endpoint');
  });
});

describe("seed 000's third client", () => {
  const { thirdClient } = seed000();

  it('is a retry loop of its tools/call: 3 attempts, 2 avoidable, titled by the refusal', () => {
    const found = storms(thirdClient);
    const call = thirdClient[1] as AnalysisEvent;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'retry_loop',
      actor: 'third',
      key: requestKey(call),
      paths: ['POST /mcp'],
      attempts: 3,
      avoidable: 2,
      firstTs: at(101),
      lastTs: at(106),
      firstFailure: { bucket: 'refusal', kind: 'invalid_params' },
      title: 'third re-sent tools/call to release-notes 2 times after it was refused (invalid_params)',
    });
    expect(found[0]?.timeline.map((a) => [a.rpcCode, a.avoidable, a.gate])).toEqual([
      [-32602, false, 'sent: first attempt'],
      [-32602, true, 'not sent: the key was refused (invalid_params) at 10:01:41'],
      [-32602, true, 'not sent: the key was refused (invalid_params) at 10:01:41'],
    ]);
  });

  it('names the tool a call was for', () => {
    const named = seed000().thirdClient.map((e) => ({ ...e, rpcName: 'lookup_record' }));
    expect(storms(named)[0]?.title).toBe(
      'third re-sent tools/call lookup_record to release-notes 2 times after it was refused (invalid_params)',
    );
  });
});

describe('probe storms', () => {
  it('are not made by different tool calls refused for bad arguments on one declared path', () => {
    const trace = [0, 2, 4, 6, 8, 10].map((s, i) => refused(s, { identity: i % 2 === 0 ? ID_A : ID_B }));
    const found = storms(trace);
    expect(found.map((s) => s.kind)).toEqual(['retry_loop', 'retry_loop']);
    expectSection6Shape(found);
  });

  it('need 2 targets: one undeclared endpoint hammered is a retry loop, not a probe storm', () => {
    const trace = [0, 5, 10, 15].map((s) => attempt(s, { httpPath: '/sse', httpStatus: 404, kind: 'not_declared' }));
    const found = storms(trace);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'retry_loop', attempts: 4, avoidable: 3 });
  });

  it('take methods not found beside endpoints, and hold every attempt of their targets in the window', () => {
    const notFound = (s: number, rpcMethod: string) =>
      attempt(s, { rpcMethod, identity: null, rpcCode: -32601, kind: 'not_supported', rule: 'rpc.method_not_found' });
    const trace = [
      notFound(0, 'tasks/list'),
      notFound(2, 'tasks/list'),
      attempt(3, { httpPath: '/sse', httpStatus: 404, kind: 'not_declared', httpMethod: 'GET', rpcMethod: null }),
      attempt(4, { httpPath: '/sse', httpStatus: 404, kind: 'not_declared', httpMethod: 'GET', rpcMethod: null }),
      attempt(5),
    ];
    const found = storms(trace);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'probe_storm',
      paths: ['tasks/list', 'GET /sse'],
      attempts: 4,
      avoidable: 2,
      title:
        'agent-7 probed 1 undeclared endpoint (GET /sse) and 1 method it does not support (tasks/list) of ' +
        'release-notes: 4 attempts, 2 avoidable',
    });
    expectSection6Shape(found);
  });

  it('start a new window after one that qualified, and none inside it', () => {
    const paths = ['/a', '/b'];
    const probe = (s: number) =>
      attempt(s, { httpPath: paths[Math.floor(s) % 2] ?? '/a', httpStatus: 404, kind: 'not_declared' });
    const trace = [0, 1, 2, 3, 299, 301, 302, 303, 304].map(probe);
    const found = storms(trace);
    expect(found.map((s) => [s.kind, s.firstTs, s.attempts])).toEqual([
      ['probe_storm', at(0), 5],
      ['probe_storm', at(301), 4],
    ]);
  });

  it('list no window smaller than 3 attempts: those attempts stay for the loops', () => {
    const trace = [
      attempt(0, { httpPath: '/a', httpStatus: 404, kind: 'not_declared' }),
      attempt(1, { httpPath: '/b', httpStatus: 404, kind: 'not_declared' }),
    ];
    expect(storms(trace)).toEqual([]);
  });
});

describe('reconnect loops', () => {
  const get = (s: number, fields: Partial<AnalysisEvent> = {}) =>
    attempt(s, {
      httpMethod: 'GET',
      rpcMethod: null,
      identity: null,
      httpStatus: 405,
      kind: 'not_supported',
      ...fields,
    });

  it('gather a stream re-opened after 405s: one storm, not a probe storm', () => {
    const trace = [0, 3, 6, 9].map((s) => get(s));
    const found = storms(trace);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'reconnect_loop',
      attempts: 4,
      avoidable: 3,
      title:
        'agent-7 re-opened a stream (GET /mcp) that release-notes keeps refusing (not_supported): 4 attempts, 3 avoidable',
    });
  });

  it("are no storm in a session's ordinary initialize / GET / DELETE cycle", () => {
    const cycle = (s: number) => [
      attempt(s, { rpcMethod: 'initialize', identity: ID_B }),
      attempt(s + 1, { httpMethod: 'GET', rpcMethod: null, identity: null }),
      attempt(s + 2, { httpMethod: 'DELETE', rpcMethod: null, identity: null }),
    ];
    const trace = [0, 10, 20, 30, 40].flatMap(cycle);
    expect(storms(trace)).toEqual([]);
  });

  it('count the connection attempts of a transport that keeps failing, per method', () => {
    const trace = [0, 1, 2, 3, 4].flatMap((i) => [
      fail(i * 10, { rpcMethod: 'server/discover', identity: null, httpStatus: 502, kind: 'upstream_error' }),
      fail(i * 10 + 1, { rpcMethod: 'initialize', identity: ID_B, httpStatus: 502, kind: 'upstream_error' }),
    ]);
    const found = storms(trace);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'reconnect_loop',
      attempts: 10,
      avoidable: 2,
      title:
        'agent-7 kept reconnecting to a failing POST /mcp of release-notes: 10 connection attempts ' +
        '(server/discover ×5, initialize ×5), 2 avoidable',
    });
  });
});

describe('retry loops', () => {
  it('end at the first gap longer than the gap, and take a gap of exactly it', () => {
    const trace = [refused(0), refused(60), refused(120), refused(181), refused(190)];
    const found = storms(trace);
    expect(found.map((s) => [s.firstTs, s.attempts])).toEqual([[at(0), 3]]);
    expect(storms(trace, { gapMs: 61_000 }).map((s) => s.attempts)).toEqual([5]);
  });

  it('end at a needed success, and keep needed attempts after the last avoidable one out', () => {
    const throttled = (seconds: number, waitSeconds: number) =>
      attempt(seconds, { kind: 'rate_limited', httpStatus: 429, waitUntil: at(seconds + waitSeconds) });
    // Throttled at 0 s until 10 s: 1 s and 2 s are avoidable. 12 s is needed (throttled again, until 15 s) and no
    // avoidable attempt follows it: the success at 20 s ends the run, and 21 s, 22 s start none.
    const trace = [throttled(0, 10), attempt(1), attempt(2), throttled(12, 3), attempt(20), refused(21), refused(22)];
    const found = storms(trace);
    expect(found).toHaveLength(1);
    expect(ids(found[0]?.timeline ?? [])).toEqual(ids(trace.slice(0, 3)));
    expect(found[0]).toMatchObject({ attempts: 3, avoidable: 2, firstTs: at(0), lastTs: at(2) });
    expect(found[0]?.title).toBe('agent-7 re-sent tools/call to release-notes 2 times before Retry-After elapsed');
  });

  it('take the needed attempts between avoidable ones', () => {
    const trace = [fail(0), fail(1), fail(2), fail(3), fail(4), fail(5)];
    const found = storms(trace);
    expect(found[0]).toMatchObject({ attempts: 6, avoidable: 2 });
    expect(found[0]?.title).toBe('agent-7 retried tools/call against release-notes 5 times, past the retry budget');
  });

  it('are not listed with 2 attempts or with none avoidable', () => {
    expect(storms([refused(0), refused(1)])).toEqual([]);
    expect(storms([fail(0), fail(1), fail(2), fail(3)])).toEqual([]);
  });

  it("file a server's re-sent sampling request under the server, never as a client's conduct", () => {
    const sampling = (s: number) =>
      attempt(s, {
        client: 'represent',
        rpcMethod: 'sampling/createMessage',
        rpcCode: -32003,
        kind: 'policy_denied',
        httpStatus: 202,
      });
    const found = storms([0, 1, 2, 3].map(sampling));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'retry_loop',
      sentBy: 'server',
      actor: 'release-notes',
      counterpart: 'represent',
      attempts: 4,
      avoidable: 3,
      title: 'release-notes re-sent a denied sampling request 3 times to represent',
    });
  });

  it('name a re-send before Retry-After elapsed', () => {
    const throttled = (s: number) => attempt(s, { kind: 'rate_limited', httpStatus: 429, waitUntil: at(s + 30) });
    const found = storms([throttled(0), attempt(1), attempt(2), attempt(3)]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'retry_loop',
      attempts: 4,
      avoidable: 3,
      title: 'agent-7 re-sent tools/call to release-notes 3 times before Retry-After elapsed',
    });
  });
});

describe('storm ids', () => {
  it('are stable across input order', () => {
    const { prober, thirdClient } = seed000();
    const trace = [...prober, ...thirdClient];
    const once = storms(trace).map((s) => s.id);
    expect(once).toHaveLength(2);
    expect(storms(shuffled(trace, 7)).map((s) => s.id)).toEqual(once);
  });

  it('ignore events without a client and shadowed records', () => {
    const { prober } = seed000();
    expect(storms(prober.map((e) => ({ ...e, client: null })))).toEqual([]);
    expect(storms(prober.map((e) => ({ ...e, counted: false })))).toEqual([]);
  });
});

describe('summariseAvoidable', () => {
  it('counts counted requests and avoidable ones per client, per server and per pair', () => {
    const { prober, thirdClient } = seed000();
    const events = [...prober, ...thirdClient];
    const summary = summariseAvoidable(events, replayGate(events));
    expect(summary.byClient).toEqual([
      { client: 'prober', requests: 22, avoidable: 19, share: 19 / 22 },
      { client: 'third', requests: 4, avoidable: 2, share: 0.5 },
    ]);
    expect(summary.byServer).toEqual([{ server: 'release-notes', requests: 26, avoidable: 21, share: 21 / 26 }]);
  });
});
