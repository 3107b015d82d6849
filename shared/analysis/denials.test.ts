import { describe, expect, it } from 'vitest';
import {
  auditDenials,
  auditDenialsFrom,
  countNotHeld,
  type DenialDecisions,
  ProbeTimes,
  parseDecisions,
  serialiseDecisions,
} from './denials.ts';
import { analysisEvent, at, shuffled } from './fixtures.ts';
import type { AnalysisEvent } from './types.ts';

const IDENTITY = 'release-notes:5f368e89b321dccb4a58b9fa377db188';

/** Seed 002's sampling denial: -32003 `policy.budget_exhausted`, lapsing at `lapse` (null: never). */
function denied(seconds: number, session: string | null, lapse: number | null = null): AnalysisEvent {
  return analysisEvent({
    ts: at(seconds),
    session,
    identity: IDENTITY,
    kind: 'policy_denied',
    bucket: 'refusal',
    rpcCode: -32003,
    waitUntil: lapse,
  });
}

function answered(seconds: number, session: string | null, overrides: Partial<AnalysisEvent> = {}): AnalysisEvent {
  return analysisEvent({ ts: at(seconds), session, identity: IDENTITY, ...overrides });
}

describe('auditDenials', () => {
  it('finds a denial bypassed after a reconnect, and counts the replays before it', () => {
    const refusal = denied(0, 's1');
    const events = [refusal, denied(1, 's1'), denied(2, 's1'), answered(10, 's2')];
    const audit = auditDenials(events);
    expect(audit.notHeld).toHaveLength(1);
    expect(audit.notHeld[0]).toMatchObject({
      client: 'agent-7',
      server: 'release-notes',
      identity: IDENTITY,
      refusal: { id: refusal.id, session: 's1', kind: 'policy_denied' },
      answer: { id: events[3]?.id, session: 's2', bucket: 'ok' },
      newSession: true,
    });
    expect(audit.replayed.map((r) => r.ts)).toEqual([at(1), at(2)]);
  });

  it('finds a denial bypassed within one session', () => {
    const audit = auditDenials([denied(0, 's1'), answered(5, 's1')]);
    expect(audit.notHeld.map((d) => d.newSession)).toEqual([false]);
  });

  it('asks no session question of MCP 2026-07-28 traffic, which has none, even where a session id is sent', () => {
    const stateless = { era: '2026' as const };
    const audit = auditDenials([analysisEvent({ ...denied(0, 'a'), ...stateless }), answered(5, 'b', stateless)]);
    expect(audit.notHeld.map((d) => [d.refusal.era, d.newSession])).toEqual([['2026', null]]);
    const legacy = auditDenials([analysisEvent({ ...denied(0, 'a'), era: '2025' }), answered(5, 'b', { era: '2025' })]);
    expect(legacy.notHeld.map((d) => d.newSession)).toEqual([true]);
  });

  it('asks of MCP 2026-07-28 traffic whether the client came back as another instance: its clientInfo', () => {
    const of = (version: string | null) => ({ era: '2026' as const, clientInstance: version });
    const restarted = (refusal: string | null, answer: string | null) =>
      auditDenials([analysisEvent({ ...denied(0, null), ...of(refusal) }), answered(5, null, of(answer))]).notHeld.map(
        (d) => [d.restarted, d.reprobed],
      );
    expect(restarted('{"name":"a","version":"1"}', '{"name":"a","version":"2"}')).toEqual([[true, null]]);
    expect(restarted('{"name":"a","version":"1"}', '{"name":"a","version":"1"}')).toEqual([[false, null]]);
    expect(restarted('{"name":"a","version":"1"}', null)).toEqual([[null, null]]);
  });

  it('finds a probe strictly between the refusal and the answer, whatever came at their own times', () => {
    const [refusal, answer] = [denied(10, null), answered(20, null)].map((e) => ({ ...e, era: '2026' as const }));
    const [d] = auditDenials([refusal as AnalysisEvent, answer as AnalysisEvent]).notHeld;
    if (d === undefined) throw new Error('no denial');
    const probe = (seconds: number) => analysisEvent({ ts: at(seconds), rpcMethod: 'server/discover' });
    const reprobed = (...seconds: number[]) => {
      const probes = new ProbeTimes();
      for (const s of seconds) probes.note(probe(s));
      return probes.inBetween(d).reprobed;
    };
    expect(reprobed()).toBe(false);
    expect(reprobed(10)).toBe(false);
    expect(reprobed(5, 20)).toBe(false);
    expect(reprobed(15, 20)).toBe(true);
    expect(reprobed(15, 20, 20)).toBe(true);
    // Another client's probe is not this client's.
    const other = new ProbeTimes();
    other.note(analysisEvent({ ts: at(15), rpcMethod: 'server/discover', client: 'someone-else' }));
    expect(other.inBetween(d).reprobed).toBe(false);
    // 2025-era traffic is asked about sessions instead.
    expect(new ProbeTimes().inBetween({ ...d, refusal: { ...d.refusal, era: '2025' } }).reprobed).toBeNull();
  });

  it('does not count an answer after the refusal lapsed (resetsAt or TTL) as a bypass', () => {
    const audit = auditDenials([
      denied(0, 's1', at(60)),
      answered(61, 's2'),
      denied(100, 's2', at(130)),
      answered(130, 's2'),
    ]);
    expect(audit.notHeld).toEqual([]);
    // Just before its lapse the refusal still stands.
    expect(auditDenials([denied(0, 's1', at(60)), answered(59.999, 's1')]).notHeld).toHaveLength(1);
  });

  it('counts the same denial again as replayed, not as a breach', () => {
    const audit = auditDenials([denied(0, 's1'), denied(1, 's2'), denied(2, 's3')]);
    expect(audit.notHeld).toEqual([]);
    expect(audit.replayed).toHaveLength(2);
  });

  it('gives the same answer whatever order the events arrive in', () => {
    const events = [denied(0, 's1'), denied(1, 's1'), answered(3, 's2'), denied(4, 's2'), answered(5, 's2')];
    const inOrder = auditDenials(events);
    // A denial after a bypass is a new decision, and the answer after it a second bypass.
    expect(inOrder.notHeld.map((d) => [d.refusal.id, d.answer.id])).toEqual([
      [events[0]?.id, events[2]?.id],
      [events[3]?.id, events[4]?.id],
    ]);
    for (const seed of [1, 2, 3, 4]) expect(auditDenials(shuffled(events, seed))).toEqual(inOrder);
  });

  it('skips session-scoped, endpoint and method refusals, and leaves a decision standing through transient answers', () => {
    const expired = answered(0, 's1', { kind: 'session_expired', bucket: 'refusal', rpcCode: -32600 });
    const undeclared = answered(0, 's1', { kind: 'not_declared', bucket: 'refusal', httpStatus: 404 });
    const unknownMethod = answered(0, 's1', { kind: 'not_supported', bucket: 'refusal', rpcCode: -32601 });
    for (const refusal of [expired, undeclared, unknownMethod]) {
      expect(auditDenials([refusal, answered(1, 's2')]).notHeld).toEqual([]);
    }
    const throughFailures = [denied(0, 's1'), answered(1, 's1', { kind: 'upstream_error', bucket: 'transient' })];
    expect(auditDenials([...throughFailures, answered(2, 's1')]).notHeld).toHaveLength(1);
  });

  it('keeps clients apart and ignores records the gate does not judge', () => {
    const shadowed = answered(1, 's1', { counted: false });
    const otherClient = answered(1, 's1', { client: 'agent-8' });
    expect(auditDenials([denied(0, 's1'), shadowed, otherClient]).notHeld).toEqual([]);
  });
});

/** A small LCG: the property tests' randomness, fixed by a seed so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Random traffic of two clients on two request keys over `seconds`: refusals (lapsing or not), answers, noise. */
function randomTraffic(seed: number, count: number, seconds: number): AnalysisEvent[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return Array.from({ length: count }, () => {
    const t = Math.floor(next() * seconds);
    const base = {
      session: pick(['s1', 's2', null]),
      client: pick(['agent-7', 'agent-8']),
      httpPath: pick(['/mcp', '/mcp?x=1', '/other']),
    };
    const shape = next();
    if (shape < 0.45) return denied(t, base.session, next() < 0.3 ? at(t + Math.floor(next() * 600)) : null);
    if (shape < 0.55) return answered(t, base.session, { ...base, kind: 'upstream_error', bucket: 'transient' });
    if (shape < 0.6) return answered(t, base.session, { ...base, kind: 'session_expired', bucket: 'refusal' });
    if (shape < 0.65) return answered(t, base.session, { ...base, counted: false });
    if (shape < 0.75)
      return answered(t, base.session, { ...base, kind: 'other_denial', bucket: 'refusal', rpcCode: -32004 });
    return answered(t, base.session, base);
  });
}

describe('auditDenialsFrom', () => {
  it('resumed at any boundaries, through the stored state, finds what one pass over all events finds', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const events = randomTraffic(seed, 120, 3600);
      const whole = auditDenials(events);
      expect(whole.notHeld.length + whole.replayed.length).toBeGreaterThan(0);
      const next = random(seed * 31);
      // Boundaries anywhere, some on an event's own time (an event at the boundary belongs to the later part).
      const cuts = [...new Set(Array.from({ length: 4 }, () => at(Math.floor(next() * 3600))))].sort((a, b) => a - b);
      cuts.push(events[Math.floor(next() * events.length)]?.ts as number);
      cuts.sort((a, b) => a - b);
      const found = { notHeld: [] as typeof whole.notHeld, replayed: [] as typeof whole.replayed };
      let state: DenialDecisions = new Map();
      let from = Number.NEGATIVE_INFINITY;
      for (const boundary of [...new Set(cuts), null]) {
        const part = events.filter((e) => e.ts >= from && (boundary === null || e.ts < boundary));
        // The later part's events too, as a pass reads everything after its start: the boundary only snapshots.
        const later = events.filter((e) => e.ts >= from);
        const resumed = auditDenialsFrom(state, shuffled(later, seed), boundary);
        const own = auditDenialsFrom(state, part, null);
        found.notHeld.push(...own.notHeld);
        found.replayed.push(...own.replayed);
        expect(resumed.notHeld.filter((d) => boundary === null || d.answer.ts < boundary)).toEqual(own.notHeld);
        state = parseDecisions(serialiseDecisions(resumed.decisionsAt), IDENTITY);
        from = boundary ?? from;
      }
      expect(found).toEqual(whole);
    }
  });

  it('keeps at a boundary only the decisions still standing there', () => {
    const lapsing = denied(0, 's1', at(60));
    const other = { ...denied(1, 's1'), httpPath: '/other' };
    expect([...auditDenialsFrom(new Map(), [lapsing, other], at(60)).decisionsAt.values()]).toEqual([other]);
    expect([...auditDenialsFrom(new Map(), [lapsing, other], at(59)).decisionsAt.values()]).toEqual([lapsing, other]);
    // A boundary before an event: that event is not in the state yet.
    expect([...auditDenialsFrom(new Map(), [lapsing, other], at(1)).decisionsAt.values()]).toEqual([lapsing]);
  });

  it('stores a decision without what its row names, and reads states stored as whole events', () => {
    const events = [denied(0, 's1'), { ...denied(1, 's2', at(600)), client: 'agent-8', era: '2026' as const }];
    const standing = auditDenialsFrom(new Map(), events, null).decisionsAt;
    const stored = serialiseDecisions(standing);
    expect(stored).not.toContain(IDENTITY);
    expect(stored.length * 3).toBeLessThan(JSON.stringify(events).length);
    const later = [answered(30, 's3'), answered(40, 's3', { client: 'agent-8', era: '2026' })];
    const whole = auditDenialsFrom(standing, later, null);
    for (const text of [stored, JSON.stringify([...standing.values()])]) {
      const resumed = auditDenialsFrom(parseDecisions(text, IDENTITY), later, null);
      expect(resumed.notHeld).toEqual(whole.notHeld);
      expect(resumed.notHeld).toHaveLength(2);
    }
  });

  it('leaves the state it resumes from as it was', () => {
    const start = auditDenialsFrom(new Map(), [denied(0, 's1')], null).decisionsAt;
    const before = serialiseDecisions(start);
    const resumed = auditDenialsFrom(start, [answered(5, 's2'), denied(6, 's2')], null);
    expect(resumed.notHeld).toHaveLength(1);
    expect(serialiseDecisions(start)).toBe(before);
  });
});

describe('countNotHeld', () => {
  it('counts per client and per server', () => {
    const counts = countNotHeld([
      { client: 'a', server: 'x' },
      { client: 'a', server: 'y' },
      { client: 'b', server: 'x' },
    ]);
    expect(counts).toEqual({ total: 3, byClient: { a: 2, b: 1 }, byServer: { x: 2, y: 1 } });
  });
});
