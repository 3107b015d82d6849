import { describe, expect, it } from 'vitest';
import { decodeStormState, encodeStormState } from './storm-state-codec.ts';
import { createStormState, type TailFact } from './storm-tracker.ts';

/** An attempt whose text fields all differ, so that a field read from another's place shows. */
function attempt(n: number): TailFact {
  return {
    id: `id-${n}`,
    ts: 1_780_000_000_000 + n,
    side: n % 2 === 0 ? 'client' : 'server',
    bucket: 'refusal',
    kind: `kind-${n}`,
    key: `key-${n}`,
    endpoint: `POST /e${n}`,
    endpointTarget: `endpoint-target-${n}`,
    methodTarget: n % 3 === 0 ? null : `method-target-${n}`,
    probes: n % 4 === 0 ? null : `probes-${n}`,
    what: `what-${n}`,
    connectLabel: `connect-${n}`,
    avoidable: false,
    undeclared: false,
    connect: false,
    stream: false,
    continuation: false,
    pending: false,
    eraMismatch: false,
  };
}

const FLAGS = ['avoidable', 'undeclared', 'connect', 'stream', 'continuation', 'pending', 'eraMismatch'] as const;

describe('the filed storm state', () => {
  it('gives back every attempt of the tail as it was: each flag alone, each text in its place, nulls kept', () => {
    const tail: TailFact[] = [attempt(0)];
    for (const [i, flag] of FLAGS.entries()) tail.push({ ...attempt(i + 1), [flag]: true });
    tail.push({ ...attempt(20), inProbe: true }, { ...attempt(21), passed: true }, { ...attempt(22), ts: 0 });
    // Texts shared by several attempts are filed once; each still reads back its own.
    tail.push({ ...attempt(23), kind: 'kind-1', key: 'key-2' });
    const state = createStormState('client ü', 'server ✓');
    state.latest = 1_780_000_000_099;
    state.shown = ['probe_storm:1'];
    state.sides.client = { tail, runs: {}, fedTs: 1_780_000_000_001 };
    state.sides.server = { tail: [{ ...attempt(30), inProbe: true, avoidable: true }], runs: {}, fedTs: null };
    const decoded = decodeStormState(encodeStormState(state));
    expect(decoded).toEqual(state);
    // Optional marks stay absent where they were (toEqual would take `inProbe: undefined` for absent).
    expect(decoded?.sides.client?.tail.filter((fact) => 'inProbe' in fact || 'passed' in fact)).toHaveLength(2);
  });

  it('files nothing as nothing, and an earlier definition as none (to be replayed)', () => {
    expect(decodeStormState(null)).toBeNull();
    expect(decodeStormState(JSON.stringify({ version: 1, sides: {} }))).toBeNull();
  });
});
