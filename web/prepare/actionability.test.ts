import { describe, expect, it } from 'vitest';
import { bitShares, factsOf, profileRows, viewOf } from './actionability.ts';

const counts = {
  failures: 21,
  D: 18,
  P: 8,
  C: 0,
  T: 0,
  E: 0,
  R: 0,
  profiles: { '000000': 3, '110000': 8, '100000': 10 },
};

describe('actionability, prepared for the screen', () => {
  it('shares each bit of the failures, and has none without failures', () => {
    expect(bitShares(counts)).toEqual({ D: 18 / 21, P: 8 / 21, C: 0, T: 0, E: 0, R: 0 });
    expect(bitShares({ ...counts, failures: 0, profiles: {} }).D).toBeNull();
  });

  it('lists the combinations most frequent first, each with its facts in words, never in letters', () => {
    expect(profileRows(counts)).toEqual([
      { profile: '100000', failures: 10, facts: 'detected' },
      { profile: '110000', failures: 8, facts: 'detected, what to do' },
      { profile: '000000', failures: 3, facts: 'none of the six' },
    ]);
    expect(factsOf('111001')).toBe('detected, what to do, cause, retry rules');
    expect(factsOf('000011')).toBe('ready repair, retry rules');
  });

  it('reads the view from the URL, the control view unless told', () => {
    expect(viewOf('transport')).toBe('transport');
    expect(viewOf(null)).toBe('control');
    expect(viewOf('bogus')).toBe('control');
  });
});
