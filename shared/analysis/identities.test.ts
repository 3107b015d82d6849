import { describe, expect, it } from 'vitest';
import { analysisEvent, shuffled, T0 } from './fixtures.ts';
import { representationAlarms, timelineSeries, topIdentities } from './identities.ts';
import { MINUTE_MS } from './time-buckets.ts';
import type { AnalysisEvent } from './types.ts';

const A = 'release-notes:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const SECOND = 1000;

/** One send of `identity` at T0 + offset, refused for good unless told otherwise. */
function send(identity: string, offsetMs: number, overrides: Partial<AnalysisEvent> = {}): AnalysisEvent {
  return analysisEvent({
    identity,
    ts: T0 + offsetMs,
    rpcMethod: 'sampling/createMessage',
    bucket: 'refusal',
    kind: 'policy_denied',
    rule: 'error.data.reason',
    ...overrides,
  });
}

/** One identity's figures among `events`, as the ranking gives them. */
function statsOf(events: readonly AnalysisEvent[], identity: string) {
  return topIdentities(events, events.length).find((stats) => stats.identity === identity);
}

/** The first send at T0, then one re-presentation at each offset. */
function sendsOf(identity: string, representationOffsets: readonly number[]): AnalysisEvent[] {
  return [send(identity, 0), ...representationOffsets.map((offset) => send(identity, offset))];
}

describe('identity counters', () => {
  it('counts sends, and re-presentations as every send after the first', () => {
    expect(statsOf([send(A, 0), send(A, 5 * SECOND), send(A, 9 * SECOND)], A)).toMatchObject({
      identity: A,
      server: 'release-notes',
      method: 'sampling/createMessage',
      sends: 3,
      represented: 2,
      firstSeen: T0,
      lastSeen: T0 + 9 * SECOND,
    });
  });

  it('reports a single send as never re-presented', () => {
    expect(statsOf([send(A, 0)], A)?.represented).toBe(0);
  });

  it('takes the last outcome from the greatest (ts, seq), whatever the input order', () => {
    const early = send(A, 0, { seq: 900 });
    const tiedLow = send(A, 7 * SECOND, { seq: 10, bucket: 'transient', kind: 'timeout', rule: 'timeout' });
    const latest = send(A, 7 * SECOND, { seq: 11, bucket: 'throttled', kind: 'rate_limited', rule: 'http.429' });
    const expected = { ts: T0 + 7 * SECOND, seq: 11, bucket: 'throttled', kind: 'rate_limited', rule: 'http.429' };
    for (const order of [
      [early, tiedLow, latest],
      [latest, tiedLow, early],
      [tiedLow, latest, early],
    ]) {
      expect(statsOf(order, A)?.last).toMatchObject(expected);
    }
  });

  it('ignores uncounted proxy records and events without an identity', () => {
    const ranked = topIdentities(
      [send(A, 0), send(A, 0, { source: 'proxy', counted: false }), analysisEvent({ identity: null, ts: T0 + SECOND })],
      10,
    );
    expect(ranked.map((stats) => stats.identity)).toEqual([A]);
    expect(ranked[0]?.sends).toBe(1);
  });

  it('gives the same figures for any input order', () => {
    const events = [...sendsOf(A, [SECOND, 2 * SECOND, 3 * SECOND]), ...sendsOf(B, [4 * SECOND])];
    expect(topIdentities(shuffled(events, 7), 10)).toEqual(topIdentities(events, 10));
  });
});

describe('topIdentities', () => {
  const events = [
    ...sendsOf(
      A,
      [1, 2, 3].map((m) => m * MINUTE_MS),
    ),
    ...sendsOf(B, [30 * SECOND]),
  ];

  it('ranks by re-presentations and keeps n', () => {
    expect(topIdentities(events, 5).map((s) => [s.identity, s.represented])).toEqual([
      [A, 3],
      [B, 1],
    ]);
    expect(topIdentities(events, 1).map((s) => s.identity)).toEqual([A]);
    expect(topIdentities(events, 0)).toEqual([]);
  });

  it('breaks ties by identity, as the API ranks them, not by which was seen last', () => {
    // B is sent as often as A and later: the API's ranking (sends, then identity) still puts A first.
    const tied = [...sendsOf(A, [MINUTE_MS]), ...sendsOf(B, [2 * MINUTE_MS, 3 * MINUTE_MS]).slice(1)];
    const ranked = topIdentities(tied, 5);
    expect(ranked.map((s) => [s.identity, s.sends])).toEqual([
      [A, 2],
      [B, 2],
    ]);
    expect(ranked[1]?.lastSeen).toBeGreaterThan(ranked[0]?.lastSeen ?? Number.POSITIVE_INFINITY);
  });
});

describe('representationAlarms (seed 002: 40 re-presentations in 10 minutes)', () => {
  /** `count` re-presentations, one every `everyMs` after `startMs`, following a first send at T0. */
  function loop(identity: string, count: number, everyMs: number, startMs = everyMs): AnalysisEvent[] {
    return sendsOf(
      identity,
      Array.from({ length: count }, (_, i) => startMs + i * everyMs),
    );
  }

  it('stays silent at 39 re-presentations (40 sends) in one minute', () => {
    expect(representationAlarms(loop(A, 39, SECOND))).toEqual([]);
  });

  it('fires at exactly 40 re-presentations within 10 minutes', () => {
    const alarms = representationAlarms(loop(A, 40, 15 * SECOND));
    expect(alarms).toEqual([
      {
        identity: A,
        server: 'release-notes',
        method: 'sampling/createMessage',
        count: 40,
        start: T0 + 15 * SECOND,
        end: T0 + 600 * SECOND,
        firstReachedAt: T0 + 600 * SECOND,
      },
    ]);
  });

  it('counts a window as half-open: 40 re-presentations spanning exactly 10 minutes do not fire', () => {
    // 40 re-presentations: 39 every 15 s from T0+10 s, then one at T0+610 s, exactly 600 000 ms after the first.
    const offsets = [...Array.from({ length: 39 }, (_, i) => 10 * SECOND + i * 15 * SECOND), 610 * SECOND];
    expect(representationAlarms(sendsOf(A, offsets))).toEqual([]);
    expect(representationAlarms(sendsOf(A, offsets), { windowMs: 600_001 })).toMatchObject([{ count: 40 }]);
  });

  it('finds a loop spread over 11 minutes that no clock-aligned 10-minute block holds', () => {
    // 43 re-presentations every 15 s from T0+15 s to T0+645 s: [T0, T0+10 min) holds only 39 of them.
    const events = loop(A, 43, 15 * SECOND);
    const inFirstBlock = events.slice(1).filter((e) => e.ts < T0 + 10 * MINUTE_MS);
    expect(inFirstBlock).toHaveLength(39);
    const [alarm] = representationAlarms(events);
    expect(alarm).toMatchObject({ identity: A, count: 40, start: T0 + 15 * SECOND, end: T0 + 600 * SECOND });
  });

  it('never counts the first send, even with 40 sends in the window', () => {
    // 40 sends in 10 s: the first plus 39 re-presentations.
    expect(
      representationAlarms(
        sendsOf(
          A,
          Array.from({ length: 39 }, (_, i) => (i + 1) * 250),
        ),
      ),
    ).toEqual([]);
  });

  it('ignores uncounted proxy records and honours custom thresholds', () => {
    const proxy = Array.from({ length: 40 }, (_, i) => send(A, (i + 1) * SECOND, { source: 'proxy', counted: false }));
    expect(representationAlarms([...loop(A, 5, SECOND), ...proxy])).toEqual([]);
    expect(representationAlarms(loop(A, 5, SECOND), { threshold: 5, windowMs: 5 * SECOND })).toHaveLength(1);
    expect(representationAlarms(loop(A, 5, SECOND), { threshold: 5, windowMs: 4 * SECOND })).toEqual([]);
  });

  it('is independent of input order and lists the worst loop first', () => {
    const events = [...loop(A, 41, SECOND), ...loop(B, 45, SECOND)];
    const alarms = representationAlarms(shuffled(events, 7));
    expect(alarms.map((a) => [a.identity, a.count])).toEqual([
      [B, 45],
      [A, 41],
    ]);
    expect(representationAlarms(events)).toEqual(alarms);
  });
});

describe('timelineSeries', () => {
  it('counts re-presentations per bucket, zero-filled, without the first send', () => {
    const times = [0, 10 * SECOND, 70 * SECOND, 80 * SECOND, 190 * SECOND].map((offset) => T0 + offset);
    expect(timelineSeries(times, T0, T0 + 4 * MINUTE_MS, MINUTE_MS)).toEqual([
      { start: T0, count: 1 },
      { start: T0 + MINUTE_MS, count: 2 },
      { start: T0 + 2 * MINUTE_MS, count: 0 },
      { start: T0 + 3 * MINUTE_MS, count: 1 },
    ]);
  });
});
