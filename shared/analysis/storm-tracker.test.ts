import { describe, expect, it } from 'vitest';
import { analysisEvent, at, randomTrace, seed000 } from './fixtures.ts';
import { byTimeOrder, replayGate } from './gate.ts';
import { stormFact } from './storm-facts.ts';
import { byStormOrder, type StormSummary } from './storm-model.ts';
import { decodeStormState, encodeStormState } from './storm-state-codec.ts';
import { createStormState, PartitionStorms } from './storm-tracker.ts';
import { detectStorms } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * What a store keeps after stepping `events` in batches of `batch`, as the ingest path does: each partition's state
 * written as JSON after every batch and read back before the next, each flush's storms written and its vanished ones
 * deleted.
 */
function tracked(events: readonly AnalysisEvent[], batch: number): StormSummary[] {
  const verdicts = replayGate(events);
  const saved = new Map<string, string>();
  const rows = new Map<string, StormSummary>();
  const ordered = [...events].sort(byTimeOrder).filter((e) => e.counted && e.client !== null);
  for (let start = 0; start < ordered.length; start += batch) {
    const open = new Map<string, PartitionStorms>();
    for (const e of ordered.slice(start, start + batch)) {
      const pk = JSON.stringify([e.client, e.server]);
      let tracker = open.get(pk);
      if (tracker === undefined) {
        tracker = new PartitionStorms(
          decodeStormState(saved.get(pk) ?? null) ?? createStormState(e.client ?? '', e.server),
        );
        open.set(pk, tracker);
      }
      const verdict = verdicts.get(e.id);
      tracker.step(stormFact(e, { key: verdict?.key ?? '', avoidable: verdict?.avoidable === true }));
    }
    for (const [pk, tracker] of open) {
      const { final, current, vanished } = tracker.flush();
      for (const id of vanished) rows.delete(id);
      for (const storm of [...final, ...current]) rows.set(storm.id, storm);
      saved.set(pk, encodeStormState(tracker.state));
    }
  }
  return [...rows.values()].sort(byStormOrder);
}

function detected(events: readonly AnalysisEvent[]): StormSummary[] {
  return detectStorms(events, replayGate(events)).map(({ timeline: _timeline, ...storm }) => storm);
}

describe('the storm tracker', () => {
  it("finds seed 000's storms batch by batch as one pass does", () => {
    const { prober, thirdClient } = seed000();
    const events = [...prober, ...thirdClient];
    for (const batch of [1, 5, 100]) expect(tracked(events, batch)).toEqual(detected(events));
  });

  it('equals one pass over random traces in batches of 1, 7 and 300, the state kept as JSON between them', () => {
    let storms = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const events = randomTrace(seed, 400);
      const once = detected(events);
      storms += once.length;
      for (const batch of [1, 7, 300]) expect(tracked(events, batch), `seed ${seed}, batch ${batch}`).toEqual(once);
    }
    // The traces must make storms of every kind for the equality to mean something.
    expect(storms).toBeGreaterThan(100);
  });

  it('makes every kind in the random traces', () => {
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) for (const s of detected(randomTrace(seed, 400))) kinds.add(s.kind);
    expect([...kinds].sort()).toEqual(['probe_storm', 'reconnect_loop', 'retry_loop']);
  });

  it('reports a storm still undecided as it stands, and deletes it once later attempts decide otherwise', () => {
    const probe = (s: number, httpPath: string) =>
      analysisEvent({ ts: at(s), httpPath, httpStatus: 404, kind: 'not_declared' });
    const tracker = new PartitionStorms(createStormState('agent-7', 'release-notes'));
    const step = (e: AnalysisEvent, avoidable: boolean) =>
      tracker.step(stormFact(e, { key: JSON.stringify([e.httpPath]), avoidable }));
    // One path refused three times: a retry loop, as the data stand.
    step(probe(0, '/a'), false);
    step(probe(1, '/a'), true);
    step(probe(2, '/a'), true);
    const first = tracker.flush();
    expect(first.current.map((s) => s.kind)).toEqual(['retry_loop']);
    // A second path inside the window makes the same attempts a probe storm: the loop shown before vanishes.
    step(probe(3, '/b'), false);
    const second = tracker.flush();
    expect(second.current.map((s) => [s.kind, s.attempts])).toEqual([['probe_storm', 4]]);
    expect(second.vanished).toEqual(first.current.map((s) => s.id));
    // Past the window the probe storm is final: handed out once, never shown again.
    step(probe(400, '/c'), false);
    const third = tracker.flush();
    expect(third.final.map((s) => s.kind)).toEqual(['probe_storm']);
    expect(third.vanished).toEqual([]);
    expect(tracker.flush().final).toEqual([]);
  });

  it('keeps a long reconnect loop as a few numbers, not its attempts', () => {
    const tracker = new PartitionStorms(createStormState('agent-7', 'release-notes'));
    for (let i = 0; i < 5000; i++) {
      const e = analysisEvent({
        ts: at(i),
        httpMethod: 'GET',
        rpcMethod: null,
        identity: null,
        httpStatus: 405,
        kind: 'not_supported',
      });
      tracker.step(stormFact(e, { key: 'k', avoidable: i > 0 }));
      if (i % 500 === 0) tracker.flush();
    }
    const { current } = tracker.flush();
    expect(current.map((s) => [s.kind, s.attempts, s.avoidable])).toEqual([['reconnect_loop', 5000, 4999]]);
    // The probe window's 300 attempts wait in the tail (a second path could still make them a probe storm), each
    // filed as an id, a time and a few small numbers.
    const filed = encodeStormState(tracker.state);
    expect(filed.length).toBeLessThan(300 * 60);
    expect(decodeStormState(filed)).toEqual(tracker.state);
  });
});
