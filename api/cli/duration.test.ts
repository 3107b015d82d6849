import { describe, expect, it } from 'vitest';
import { parseHorizon } from './duration.ts';

describe('parseHorizon', () => {
  it('reads hours and days', () => {
    expect(parseHorizon('--retain-events', '30d')).toBe(30 * 86_400_000);
    expect(parseHorizon('--retain-events', '12h')).toBe(12 * 3_600_000);
  });

  it('refuses what is not a whole number of hours or days, naming the flag', () => {
    for (const text of ['', '0d', '30', '1.5d', '30m', '-1d', 'd', '1234567d']) {
      expect(() => parseHorizon('--retain-counts', text), text).toThrow(/--retain-counts takes a number of hours/);
    }
  });
});
