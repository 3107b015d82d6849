import { describe, expect, it } from 'vitest';
import { analysisEvent, at, seed000, shuffled } from './fixtures.ts';
import { byTimeOrder, createGateState, gateStep, isJudged, replayGate } from './gate.ts';
import { topIdentities } from './identities.ts';
import { detectStorms, summariseAvoidable } from './storms.ts';
import { addAvoidable, avoidableRows, createAvoidableTallies } from './stream-avoidable.ts';
import { addIdentitySend, createIdentityTallies, topIdentitiesOf } from './stream-identities.ts';
import { createStormStreams, finishStorms, stepStorms, stormList } from './stream-storms.ts';
import type { AnalysisEvent } from './types.ts';

const KINDS = [
  ...['ok', 'ok', 'ok', 'ok', 'not_declared', 'invalid_params', 'invalid_params'],
  ...['unavailable', 'unavailable', 'rate_limited', 'unknown'],
];
const PATHS = ['/mcp', '/mcp/sse', '/a2a', '/mcp/mcp', '/rpc'];
const METHODS = ['tools/call', 'tools/call', 'resources/read', 'sampling/createMessage'];

/** Several clients (one unnamed) on several servers, with shared timestamps, long gaps and repeated identities. */
function randomTrace(seed: number, length: number): AnalysisEvent[] {
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
  let seconds = 0;
  return Array.from({ length }, () => {
    seconds += [0, 0, 1, 2, 3, 5, 13, 70, 400][next(9)] ?? 1;
    const kind = KINDS[next(KINDS.length)] ?? 'ok';
    const server = ['release-notes', 'billing', 'search'][next(3)] ?? 'search';
    return analysisEvent({
      ts: at(seconds),
      client: [null, 'agent-a', 'agent-b', 'agent-c'][next(4)] ?? null,
      server,
      source: next(3) === 0 ? 'proxy' : 'client',
      httpPath: PATHS[next(PATHS.length)] ?? '/mcp',
      rpcMethod: METHODS[next(METHODS.length)] ?? null,
      identity: next(4) === 0 ? null : `${server}:${next(12)}`,
      kind,
      waitUntil: kind === 'rate_limited' ? at(seconds + 10) : null,
      counted: next(10) !== 0,
    });
  });
}

/** The accumulators folded over `events` as the offline report folds them: in time order, through the gate. */
function streamed(events: readonly AnalysisEvent[]) {
  const gate = createGateState();
  const avoidable = createAvoidableTallies();
  const identities = createIdentityTallies();
  const storms = createStormStreams();
  for (const e of [...events].sort(byTimeOrder)) {
    const verdict = gateStep(gate, e);
    if (isJudged(e)) stepStorms(storms, e, verdict);
    addAvoidable(avoidable, e, verdict);
    addIdentitySend(identities, e);
  }
  finishStorms(storms);
  return { avoidable, identities, storms };
}

/** The storms of one pass, with their attempts' ids as the streamed report lists them. */
function detected(events: readonly AnalysisEvent[]) {
  return detectStorms(events, replayGate(events)).map(({ timeline, ...storm }) => ({
    ...storm,
    attemptIds: timeline.map((a) => a.id),
    avoidableIds: timeline.filter((a) => a.avoidable).map((a) => a.id),
  }));
}

describe('the streaming accumulators of the offline report', () => {
  it('give, with the gate stepped as the log streams, the avoidable rows of the replay over all events', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const events = randomTrace(seed, 300);
      const replayed = summariseAvoidable(events, replayGate(events));
      expect(avoidableRows(streamed(events).avoidable), `seed ${seed}`).toEqual(replayed);
    }
  });

  it('give the top identities topIdentities gives, whatever the order the sends come in', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const events = randomTrace(seed, 300);
      const tallies = createIdentityTallies();
      for (const e of shuffled(events, seed)) addIdentitySend(tallies, e);
      for (const n of [0, 1, 5, 20, 100]) {
        expect(topIdentitiesOf(tallies, n), `seed ${seed}, top ${n}`).toEqual(topIdentities(events, n));
      }
    }
  });

  it('find the storms detectStorms finds, without their timelines', () => {
    const { prober, thirdClient } = seed000();
    const seed = [...prober, ...thirdClient];
    expect(stormList(streamed(seed).storms)).toEqual(detected(seed));
    for (let s = 1; s <= 30; s++) {
      const events = randomTrace(s, 300);
      expect(stormList(streamed(events).storms), `seed ${s}`).toEqual(detected(events));
    }
  });

  it('drop the retry runs a partition has moved past, and still find every loop', () => {
    // Every second a refusal, each key refused three times in a row: 4000 loops, each over a minute after its last.
    const events = Array.from({ length: 12_000 }, (_, i) =>
      analysisEvent({ ts: at(i), identity: `release-notes:${Math.floor(i / 3)}`, kind: 'invalid_params' }),
    );
    const { storms } = streamed(events);
    const open = [...storms.partitions.values()].flatMap((servers) =>
      [...servers.values()].map((tracker) => Object.keys(tracker.state.sides.client?.runs ?? {}).length),
    );
    expect(Math.max(...open)).toBeLessThan(2000);
    expect(stormList(storms)).toEqual(detected(events));
    expect(stormList(storms)).toHaveLength(4000);
  });
});
