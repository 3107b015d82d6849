import { describe, expect, it } from 'vitest';
import { auditDenials, countNotHeld } from './denials.ts';
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
