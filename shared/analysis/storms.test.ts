import { describe, expect, it } from 'vitest';
import { analysisEvent, at, seed000, shuffled } from './fixtures.ts';
import { replayGate } from './gate.ts';
import { requestKey } from './request-key.ts';
import { detectStorms, type StormOptions, summariseAvoidable } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

const storms = (events: readonly AnalysisEvent[], options?: StormOptions) =>
  detectStorms(events, replayGate(events), options);

const ID_A = 'release-notes:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const attempt = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  analysisEvent({ ts: at(seconds), identity: ID_A, ...fields });
const fail = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
  attempt(seconds, { kind: 'unavailable', httpStatus: 503, ...fields });

describe("seed 000's prober", () => {
  const { prober } = seed000();
  const found = storms(prober);
  const probe = found.find((s) => s.kind === 'probe_storm');

  it('is one probe storm over the three undeclared paths: 22 attempts, 19 avoidable', () => {
    expect(found.filter((s) => s.kind === 'probe_storm')).toHaveLength(1);
    expect(probe).toMatchObject({
      client: 'prober',
      server: 'release-notes',
      key: null,
      paths: ['POST /mcp/mcp', 'POST /mcp/sse', 'POST /mcp/a2a/'],
      attempts: 22,
      avoidable: 19,
      firstTs: at(10),
      lastTs: at(52),
      firstFailure: { bucket: 'refusal', kind: 'not_declared' },
    });
    expect(probe?.timeline).toHaveLength(22);
  });

  it('says for each attempt what a correct client would have done', () => {
    const gate = probe?.timeline.map((a) => a.gate) ?? [];
    expect(gate.slice(0, 4)).toEqual([
      'sent: first attempt',
      'sent: first attempt',
      'sent: first attempt',
      'not sent: the endpoint POST /mcp/mcp was refused (not_declared) at 10:00:10, whatever the body',
    ]);
    expect(gate.filter((g) => g.startsWith('not sent'))).toHaveLength(19);
    expect(probe?.timeline[0]).toEqual({
      id: prober[0]?.id,
      ts: at(10),
      status: 404,
      rpcCode: null,
      latencyMs: 12,
      bucket: 'refusal',
      kind: 'not_declared',
      avoidable: false,
      blockedBy: null,
      gate: 'sent: first attempt',
    });
    expect(probe?.timeline[3]?.blockedBy).toBe('endpoint');
  });

  it('also holds a retry loop per path (each path repeated every 6 s)', () => {
    const loops = found.filter((s) => s.kind === 'retry_loop');
    expect(loops.map((l) => [l.paths, l.attempts, l.avoidable])).toEqual([
      [['POST /mcp/mcp'], 8, 7],
      [['POST /mcp/sse'], 7, 6],
      [['POST /mcp/a2a/'], 7, 6],
    ]);
  });
});

describe("seed 000's third client", () => {
  const { thirdClient } = seed000();
  const found = storms(thirdClient);

  it('is a retry loop of the tools/call: 3 attempts, 2 avoidable, and no probe storm', () => {
    const call = thirdClient[1] ?? attempt(0);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'retry_loop',
      client: 'third',
      key: requestKey(call),
      paths: ['POST /mcp'],
      attempts: 3,
      avoidable: 2,
      firstTs: at(101),
      lastTs: at(106),
      firstFailure: { bucket: 'refusal', kind: 'invalid_params' },
    });
    expect(found[0]?.timeline.map((a) => [a.rpcCode, a.avoidable, a.gate])).toEqual([
      [-32602, false, 'sent: first attempt'],
      [-32602, true, 'not sent: the key was refused (invalid_params) at 10:01:41'],
      [-32602, true, 'not sent: the key was refused (invalid_params) at 10:01:41'],
    ]);
  });
});

describe('retry loops', () => {
  it('end at the first gap longer than loopGapMs', () => {
    const trace = [fail(0), fail(30), fail(100), fail(130), fail(160), fail(300)];
    const loops = storms(trace).filter((s) => s.kind === 'retry_loop');
    expect(loops.map((l) => [l.firstTs, l.lastTs, l.attempts])).toEqual([
      [at(0), at(30), 2],
      [at(100), at(160), 3],
    ]);
  });

  it('take a gap of exactly loopGapMs, and follow the option', () => {
    expect(storms([fail(0), fail(60)]).map((s) => s.attempts)).toEqual([2]);
    expect(storms([fail(0), fail(60)], { loopGapMs: 59_999 })).toEqual([]);
  });

  it('start at the first failed attempt, and need two attempts', () => {
    const trace = [attempt(0), attempt(5), fail(10), fail(15)];
    const [loop] = storms(trace);
    expect(loop?.timeline.map((a) => a.id)).toEqual([trace[2]?.id, trace[3]?.id]);
    expect(loop?.firstFailure).toEqual({ bucket: 'transient', kind: 'unavailable' });
    expect(storms([fail(0), attempt(100)])).toEqual([]);
  });

  it('end at a success (included): later attempts are new requests, not retries', () => {
    const trace = [fail(0), fail(5), attempt(10), attempt(15), attempt(20)];
    expect(storms(trace).map((s) => s.attempts)).toEqual([3]);
    const timeline = storms(trace)[0]?.timeline.map((a) => a.gate);
    expect(timeline).toEqual([
      'sent: first attempt',
      'sent: retry 1 of 3 after the transient failure at 10:00:00',
      'sent: retry 2 of 3 after the transient failure at 10:00:00',
    ]);
  });

  it('are per key: interleaved keys make separate loops', () => {
    const other = { identity: 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' };
    const trace = [fail(0), fail(1, other), fail(2), fail(3, other)];
    const loops = storms(trace);
    expect(loops.map((l) => l.key)).toEqual([requestKey(trace[0] ?? fail(0)), requestKey(trace[1] ?? fail(0))]);
  });

  it('explain the budget, the throttle and session refusals', () => {
    const trace = [
      fail(0),
      fail(1),
      fail(2),
      fail(3),
      fail(4),
      attempt(5, { kind: 'rate_limited', httpStatus: 429, identity: null, waitUntil: at(35) }),
      fail(6, { identity: 'x' }),
      fail(7, { identity: 'x' }),
    ];
    const gates = storms(trace).flatMap((s) => s.timeline.map((a) => a.gate));
    expect(gates).toContain('not sent: the 3 retries after the transient failure at 10:00:00 were spent');
    expect(gates).toContain('not sent: the server throttled this client at 10:00:05 until 10:00:35');

    const expired = { kind: 'session_expired', httpStatus: 404 };
    const session = [
      attempt(0, { session: 's1', ...expired }),
      attempt(1, { session: 's1', ...expired }),
      attempt(2, { session: 's2' }),
    ];
    expect(storms(session)[0]?.timeline.map((a) => a.gate)).toEqual([
      'sent: first attempt',
      'not sent: the key was refused in this session (session_expired) at 10:00:00; a new session starts clean',
      'sent: a new session after the session refusal at 10:00:00',
    ]);
  });
});

describe('probe storms', () => {
  const probe = (seconds: number, path: string, fields: Partial<AnalysisEvent> = {}) =>
    attempt(seconds, { httpPath: path, httpStatus: 404, kind: 'not_declared', ...fields });
  const probes = (events: readonly AnalysisEvent[], options?: StormOptions) =>
    storms(events, options).filter((s) => s.kind === 'probe_storm');

  it('need at least 5 refusals over at least 2 keys within 5 minutes', () => {
    expect(probes([0, 1, 2, 3, 4, 5].map((s) => probe(s * 100, '/a')))).toEqual([]);
    expect(probes([probe(0, '/a'), probe(1, '/b'), probe(2, '/a'), probe(3, '/b')])).toEqual([]);
    const spread = [0, 100, 200, 301, 400].map((s, i) => probe(s, i % 2 === 0 ? '/a' : '/b'));
    expect(probes(spread)).toEqual([]);
    expect(probes(spread, { probeWindowMs: 400_000 })).toHaveLength(1);
    expect(probes(spread.slice(0, 4), { probeWindowMs: 400_000, probeMinRefusals: 4, probeMinKeys: 3 })).toEqual([]);
  });

  it('merge overlapping windows into one storm, and keep separate runs apart', () => {
    const run = (start: number) => Array.from({ length: 8 }, (_, i) => probe(start + i * 60, `/p${i % 3}`));
    const found = probes([...run(0), ...run(2000)]);
    expect(found.map((s) => [s.firstTs, s.lastTs, s.attempts])).toEqual([
      [at(0), at(420), 8],
      [at(2000), at(2420), 8],
    ]);
    expect(found[0]?.paths).toEqual(['POST /p0', 'POST /p1', 'POST /p2']);
  });

  it("hold all of the client's requests to that server in the span, and nothing else", () => {
    const trace = [
      probe(0, '/a'),
      probe(1, '/b'),
      attempt(2, { httpPath: '/mcp' }),
      probe(3, '/c'),
      probe(4, '/a'),
      attempt(4, { server: 'billing' }),
      attempt(4, { client: 'agent-8' }),
      probe(4, '/b', { counted: false, source: 'proxy' }),
      probe(5, '/b'),
      attempt(6),
    ];
    const [storm] = probes(trace);
    expect(storm?.timeline.map((a) => a.id)).toEqual([0, 1, 2, 3, 4, 8].map((i) => trace[i]?.id));
    expect(storm?.paths).toEqual(['POST /a', 'POST /b', 'POST /c']);
  });

  it('ignore events without a client', () => {
    const anonymous = [0, 1, 2, 3, 4, 5].map((s) => probe(s, `/p${s}`, { client: null, source: 'proxy' }));
    expect(storms(anonymous)).toEqual([]);
  });
});

describe('storm ids', () => {
  it('are stable across input order, and differ by kind', () => {
    const { prober, thirdClient } = seed000();
    const events = [...prober, ...thirdClient];
    const a = storms(events);
    const b = storms(shuffled(events, 99));
    expect(b).toEqual(a);
    expect(new Set(a.map((s) => s.id)).size).toBe(a.length);
    expect(a.every((s) => s.id.startsWith(`${s.kind}:`))).toBe(true);
  });
});

describe('summariseAvoidable', () => {
  it('counts counted requests and avoidable ones per client, per server and per pair', () => {
    const { prober, thirdClient } = seed000();
    const shadow = attempt(200, { client: 'third', source: 'proxy', counted: false });
    const anonymous = attempt(200, { client: null, source: 'proxy', server: 'billing' });
    const billing = attempt(201, { client: 'third', server: 'billing' });
    const events = [...prober, ...thirdClient, shadow, anonymous, billing];
    const summary = summariseAvoidable(events, replayGate(events));
    expect(summary.byClient).toEqual([
      { client: 'prober', requests: 22, avoidable: 19, share: 19 / 22 },
      { client: 'third', requests: 5, avoidable: 2, share: 2 / 5 },
    ]);
    expect(summary.byServer).toEqual([
      { server: 'release-notes', requests: 26, avoidable: 21, share: 21 / 26 },
      { server: 'billing', requests: 2, avoidable: 0, share: 0 },
    ]);
    expect(summary.byPair).toEqual([
      { client: 'prober', server: 'release-notes', requests: 22, avoidable: 19, share: 19 / 22 },
      { client: 'third', server: 'release-notes', requests: 4, avoidable: 2, share: 2 / 4 },
      { client: 'third', server: 'billing', requests: 1, avoidable: 0, share: 0 },
    ]);
  });
});
