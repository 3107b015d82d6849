import { describe, expect, it } from 'vitest';
import { parseHorizon, parseWait } from './duration.ts';

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

describe('parseWait', () => {
  it('reads seconds, minutes and hours', () => {
    expect(parseWait('--give-up-after', '30s')).toBe(30_000);
    expect(parseWait('--give-up-after', '5m')).toBe(300_000);
    expect(parseWait('--give-up-after', '2h')).toBe(7_200_000);
  });

  it('refuses a wait with no unit, none at all or a fraction, naming the flag', () => {
    for (const text of ['', '0s', '300', '1.5m', '-1m', 'm', '5 m', '5d']) {
      expect(() => parseWait('--give-up-after', text), text).toThrow(/--give-up-after takes a number of seconds/);
    }
  });
});
