import { describe, expect, it } from 'vitest';
import { bucketStart, countSeries, DAY_MS, emptySeries, HOUR_MS, MINUTE_MS, stepFor } from './time-buckets.ts';

const T = Date.parse('2026-11-02T10:00:00.000Z');

describe('stepFor', () => {
  it('picks the finest step that keeps the range within 300 buckets', () => {
    expect(stepFor(HOUR_MS)).toBe(MINUTE_MS); // 60 buckets
    expect(stepFor(DAY_MS)).toBe(5 * MINUTE_MS); // 288
    expect(stepFor(7 * DAY_MS)).toBe(HOUR_MS); // 168 (15 min would be 672)
    expect(stepFor(30 * DAY_MS)).toBe(6 * HOUR_MS); // 120 (1 h would be 720)
  });

  it('lands between 60 and 300 buckets for the usual ranges', () => {
    for (const range of [HOUR_MS, 6 * HOUR_MS, DAY_MS, 7 * DAY_MS, 30 * DAY_MS, 60 * DAY_MS]) {
      const buckets = range / stepFor(range);
      expect(buckets).toBeGreaterThanOrEqual(60);
      expect(buckets).toBeLessThanOrEqual(300);
    }
  });

  it('keeps 1 min for short ranges and 1 d for very long ones', () => {
    expect(stepFor(0)).toBe(MINUTE_MS);
    expect(stepFor(10 * MINUTE_MS)).toBe(MINUTE_MS);
    expect(stepFor(301 * HOUR_MS)).toBe(6 * HOUR_MS);
    expect(stepFor(3 * 365 * DAY_MS)).toBe(DAY_MS);
  });
});

describe('bucketStart', () => {
  it('aligns to the UTC epoch, not to the range', () => {
    expect(bucketStart(Date.parse('2026-11-02T10:07:59.999Z'), 5 * MINUTE_MS)).toBe(Date.parse('2026-11-02T10:05Z'));
    expect(bucketStart(Date.parse('2026-11-02T10:05:00.000Z'), 5 * MINUTE_MS)).toBe(Date.parse('2026-11-02T10:05Z'));
    expect(bucketStart(Date.parse('2026-11-02T23:59:59Z'), DAY_MS)).toBe(Date.parse('2026-11-02T00:00Z'));
    expect(bucketStart(Date.parse('2026-11-02T17:30Z'), 6 * HOUR_MS)).toBe(Date.parse('2026-11-02T12:00Z'));
  });

  it('rounds down before 1970 too', () => {
    expect(bucketStart(-1, MINUTE_MS)).toBe(-MINUTE_MS);
  });

  it('rejects a step that is not a positive integer', () => {
    expect(() => bucketStart(T, 0)).toThrow(RangeError);
    expect(() => bucketStart(T, 1.5)).toThrow(RangeError);
  });
});

describe('emptySeries', () => {
  it('lists every bucket start in [from, to)', () => {
    expect(emptySeries(T, T + HOUR_MS, MINUTE_MS)).toHaveLength(60);
    expect(emptySeries(T, T + DAY_MS, 5 * MINUTE_MS)).toHaveLength(288);
    expect(emptySeries(T, T + 15 * MINUTE_MS, 5 * MINUTE_MS)).toEqual([T, T + 5 * MINUTE_MS, T + 10 * MINUTE_MS]);
  });

  it('starts with the bucket that holds an unaligned `from`', () => {
    expect(emptySeries(T + 90_000, T + 4 * MINUTE_MS, MINUTE_MS)).toEqual([
      T + MINUTE_MS,
      T + 2 * MINUTE_MS,
      T + 3 * MINUTE_MS,
    ]);
  });

  it('is empty for an empty range', () => {
    expect(emptySeries(T, T, MINUTE_MS)).toEqual([]);
    expect(emptySeries(T + 1, T, MINUTE_MS)).toEqual([]);
  });
});

describe('countSeries', () => {
  it('counts per bucket with zeros where nothing happened and ignores times outside the range', () => {
    const times = [T - 1, T, T + 30_000, T + 2 * MINUTE_MS + 1, T + 3 * MINUTE_MS];
    expect(countSeries(times, T, T + 3 * MINUTE_MS, MINUTE_MS)).toEqual([
      { start: T, count: 2 },
      { start: T + MINUTE_MS, count: 0 },
      { start: T + 2 * MINUTE_MS, count: 1 },
    ]);
  });
});
