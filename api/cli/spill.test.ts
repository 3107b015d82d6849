import { describe, expect, it } from 'vitest';
import { analysisEvent, at, seed000 } from '../../shared/analysis/fixtures.ts';
import { createGateState, gateStep, type KeyGateState, replayGate } from '../../shared/analysis/gate.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { SpillStore, spilledRecord } from './spill.ts';

describe('SpillMap', () => {
  it('keeps every entry whether it is in memory or on disk, changes made in place included', () => {
    const spill = new SpillStore();
    const map = spill.map<{ n: number }>('t', 3);
    for (let i = 0; i < 10; i++) map.set(`k${i}`, { n: i });
    // k0 was evicted long ago: read back from disk, changed in place, evicted again, read again.
    const k0 = map.get('k0');
    expect(k0).toEqual({ n: 0 });
    if (k0) k0.n = 100;
    for (let i = 10; i < 20; i++) map.set(`k${i}`, { n: i });
    expect(map.get('k0')).toEqual({ n: 100 });
    map.delete('k5');
    expect(map.get('k5')).toBeUndefined();
    expect(map.get('never')).toBeUndefined();
    const all = new Map(map);
    expect(all.size).toBe(19);
    expect(all.get('k19')).toEqual({ n: 19 });
    expect(all.get('k0')).toEqual({ n: 100 });
    spill.close();
  });
});

describe('SpillMap.sortedValues', () => {
  it('lists every value in sort-key order, the ones in memory and the ones on disk alike', () => {
    const spill = new SpillStore();
    const map = spill.map<{ at: number }>('sorted', 4, (v) => String(v.at).padStart(8, '0'));
    const ats = [50, 3, 99, 7, 12, 1, 88, 40, 5, 61];
    for (const at of ats) map.set(`k${at}`, { at });
    const k3 = map.get('k3');
    if (k3) k3.at = 70; // changed in place after it left memory and came back
    map.set('k3', k3 as { at: number });
    expect([...map.sortedValues()].map((v) => v.at)).toEqual([1, 5, 7, 12, 40, 50, 61, 70, 88, 99]);
    spill.close();
  });
});

describe('the gate over spilled keys', () => {
  it('gives the verdicts of the in-memory replay with only a few keys held', () => {
    const { prober, thirdClient, discoverer } = seed000();
    // Many distinct refused keys, so that most of them leave memory.
    const noise: AnalysisEvent[] = Array.from({ length: 400 }, (_, i) =>
      analysisEvent({
        client: `c${i % 7}`,
        ts: at(200 + i),
        identity: `release-notes:${String(i % 90).padStart(32, '0')}`,
        kind: i % 3 === 0 ? 'invalid_params' : i % 3 === 1 ? 'ok' : 'server_error',
        httpStatus: i % 3 === 2 ? 502 : 200,
      }),
    );
    const events = [...discoverer, ...prober, ...thirdClient, ...noise].sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    const expected = replayGate(events);
    const spill = new SpillStore();
    const keys = spill.map<KeyGateState>('gate_keys', 5);
    const gate = createGateState(() => spilledRecord(keys));
    for (const e of events) expect(gateStep(gate, e)).toEqual(expected.get(e.id));
    spill.close();
  });
});
