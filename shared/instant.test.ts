import { describe, expect, it } from 'vitest';
import { instantOfMs, LAST_INSTANT_MS, readIsoInstant } from './instant.ts';

const zoned = { zoned: true };
const ms = (text: string, options = zoned) => {
  const reading = readIsoInstant(text, options);
  return reading?.ok ? reading.ms : (reading?.reason ?? null);
};

describe('readIsoInstant', () => {
  it('reads what Date.parse reads for real instants, offsets and fractions included', () => {
    for (const text of [
      '2026-12-02T02:42:43Z',
      '2026-12-02T02:42:43.366+01:00',
      '2026-12-02T02:42:43.3666666-05:30',
      '2028-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999Z',
      '1970-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(ms(text), text).toBe(Date.parse(text));
    }
    expect(ms('2026-12-02', { zoned: false })).toBe(Date.UTC(2026, 11, 2));
    expect(ms('2026-12-02T02:42', { zoned: false })).toBe(Date.UTC(2026, 11, 2, 2, 42));
  });

  it('refuses dates that do not exist rather than moving them, and says why', () => {
    expect(ms('2026-02-30T10:00:00Z')).toBe('2026-02 has no day 30 (it has 28)');
    expect(ms('2025-02-29T10:00:00Z')).toBe('2025-02 has no day 29 (it has 28)');
    expect(ms('1900-02-29T10:00:00Z', { zoned: false })).toContain('has no day 29');
    expect(ms('2026-04-31T10:00:00Z')).toContain('has no day 31');
    expect(ms('2026-13-01T10:00:00Z')).toBe('month 13 does not exist');
    expect(ms('2026-00-10T10:00:00Z')).toBe('month 0 does not exist');
    expect(ms('2026-03-01T24:00:00Z')).toContain('no time of day');
    expect(ms('2026-03-01T10:60:00Z')).toContain('no time of day');
    expect(ms('2026-03-01T10:00:00+01:60')).toContain('offset');
  });

  it('holds instants to 1970 through 9999, and leaves other text to the caller', () => {
    expect(ms('1969-12-31T23:59:59Z')).toContain('before 1970');
    expect(ms('9999-12-31T23:59:59Z')).toBe(LAST_INSTANT_MS - 999);
    expect(ms('9999-12-31T23:59:59-01:00')).toContain('after the year 9999');
    expect(ms('+010000-01-01T00:00:00Z')).toBeNull();
    expect(ms('2026-12-02T02:42:43')).toBeNull(); // no zone where one is required
    expect(ms('Dec 2, 2026')).toBeNull();
  });
});

describe('instantOfMs', () => {
  it('takes whole milliseconds from 1970 through 9999', () => {
    expect(instantOfMs(0)).toEqual({ ok: true, ms: 0 });
    expect(instantOfMs(LAST_INSTANT_MS)).toEqual({ ok: true, ms: LAST_INSTANT_MS });
    expect(instantOfMs(LAST_INSTANT_MS + 1).ok).toBe(false);
    expect(instantOfMs(999999999999 * 1000).ok).toBe(false); // nginx msec 999999999999
    expect(instantOfMs(-1).ok).toBe(false);
    expect(instantOfMs(1.5).ok).toBe(false);
    expect(instantOfMs(Number.NaN).ok).toBe(false);
  });
});
