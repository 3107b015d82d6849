import { describe, expect, it } from 'vitest';
import { analysisEvent, at, seed000, shuffled } from './fixtures.ts';
import { byTimeOrder, replayGate } from './gate.ts';
import { createStormState, type PartitionStormState, stormStep } from './storm-tracker.ts';
import { byStormOrder, detectStorms, type StormSummary } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * What the tracker reports after stepping `events` in batches of `batch`, kept between batches as the store keeps it:
 * each partition's state as JSON without its runs, and each key's run apart, loaded only for the keys a batch uses.
 */
function tracked(events: readonly AnalysisEvent[], batch: number): StormSummary[] {
  const verdicts = replayGate(events);
  const partitions = new Map<string, string>();
  const runs = new Map<string, string>();
  const storms = new Map<string, StormSummary>();
  const ordered = [...events].sort(byTimeOrder).filter((e) => e.counted && e.client !== null);
  for (let start = 0; start < ordered.length; start += batch) {
    const states = new Map<string, PartitionStormState>();
    const used = new Map<string, Set<string>>();
    for (const e of ordered.slice(start, start + batch)) {
      const pk = JSON.stringify([e.client, e.server]);
      const key = verdicts.get(e.id)?.key ?? '';
      const saved = partitions.get(pk);
      const state: PartitionStormState =
        states.get(pk) ??
        (saved === undefined ? createStormState(e.client ?? '', e.server) : { ...JSON.parse(saved), loops: {} });
      states.set(pk, state);
      const keys = used.get(pk) ?? new Set<string>();
      used.set(pk, keys);
      const run = runs.get(JSON.stringify([pk, key]));
      if (!keys.has(key) && run !== undefined) state.loops[key] = JSON.parse(run);
      keys.add(key);
      for (const storm of stormStep(state, e, key, verdicts.get(e.id)?.avoidable === true)) {
        storms.set(storm.id, storm);
      }
    }
    for (const [pk, { loops, ...state }] of states) {
      partitions.set(pk, JSON.stringify(state));
      for (const key of used.get(pk) ?? []) {
        const run = loops[key];
        if (run === undefined) runs.delete(JSON.stringify([pk, key]));
        else runs.set(JSON.stringify([pk, key]), JSON.stringify(run));
      }
    }
  }
  return [...storms.values()].sort(byStormOrder);
}

function detected(events: readonly AnalysisEvent[]): StormSummary[] {
  return detectStorms(events, replayGate(events)).map(({ timeline: _timeline, ...storm }) => storm);
}

const KINDS = [
  'ok',
  'ok',
  'ok',
  'not_declared',
  'not_declared',
  'not_declared',
  'unavailable',
  'rate_limited',
  'unknown',
] as const;
const PATHS = ['/mcp', '/mcp/sse', '/mcp/a2a/', '/a2a'];

/** A pseudo-random trace of two clients on two servers, with bursts, long gaps and shared timestamps. */
function randomTrace(seed: number, length: number): AnalysisEvent[] {
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
  const events: AnalysisEvent[] = [];
  let seconds = 0;
  for (let i = 0; i < length; i++) {
    const gap = [0, 0, 1, 2, 3, 5, 8, 13, 45, 70, 400][next(11)] ?? 1;
    seconds += gap;
    const kind = KINDS[next(KINDS.length)] ?? 'ok';
    events.push(
      analysisEvent({
        ts: at(seconds),
        client: next(5) === 0 ? 'agent-b' : 'agent-a',
        server: next(4) === 0 ? 'other' : 'release-notes',
        httpPath: PATHS[next(PATHS.length)] ?? '/mcp',
        kind,
        waitUntil: kind === 'rate_limited' ? at(seconds + 10) : null,
        counted: next(20) !== 0,
      }),
    );
  }
  return events;
}

describe('the storm tracker', () => {
  it("finds seed 000's probe storm and loops as the detector does", () => {
    const { prober, thirdClient } = seed000();
    const events = [...prober, ...thirdClient];
    const found = tracked(events, 5);
    expect(found).toEqual(detected(events));
    expect(found.find((s) => s.kind === 'probe_storm')).toMatchObject({ attempts: 22, avoidable: 19 });
  });

  it('counts events sharing the first refusal’s time, stepped before it, into the probe storm', () => {
    const same = at(10);
    const events = [
      analysisEvent({ ts: same }),
      ...[0, 1, 2, 3, 4].map((i) =>
        analysisEvent({ ts: same + i * 1000, httpPath: PATHS[i % 2] ?? '/mcp', kind: 'not_declared' }),
      ),
    ];
    const found = tracked(events, 1);
    expect(found).toEqual(detected(events));
    expect(found.find((s) => s.kind === 'probe_storm')).toMatchObject({ attempts: 6, firstTs: same });
  });

  it('adds the paths of refusals that did not qualify on their own once the storm grows past them', () => {
    const refused = (seconds: number, path: string) =>
      analysisEvent({ ts: at(seconds), httpPath: path, kind: 'not_declared' });
    // 0-4 s qualify (five refusals, two paths); at 301.5 s the window holds four; at 302 s five again.
    const events = [
      ...[0, 1, 2, 3].map((s) => refused(s, '/a')),
      refused(4, '/b'),
      refused(301.5, '/c'),
      refused(302, '/a'),
    ];
    const found = tracked(events, 1).filter((s) => s.kind === 'probe_storm');
    expect(found).toEqual(detected(events).filter((s) => s.kind === 'probe_storm'));
    expect(found).toMatchObject([{ paths: ['POST /a', 'POST /b', 'POST /c'], attempts: 7, lastTs: at(302) }]);
  });

  it('gives what the detector gives over random traces, in batches of any size', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const events = randomTrace(seed, 300);
      const expected = detected(events);
      for (const batch of [1, 7, 300]) expect(tracked(events, batch), `seed ${seed}, batch ${batch}`).toEqual(expected);
    }
  });

  it('does not depend on the order the events are handed over in', () => {
    const events = randomTrace(99, 200);
    expect(tracked(shuffled(events, 3), 13)).toEqual(detected(events));
  });

  it('finds nothing in traffic without failures', () => {
    const events = [0, 1, 2, 3].map((i) => analysisEvent({ ts: at(i) }));
    expect(tracked(events, 2)).toEqual([]);
  });
});
