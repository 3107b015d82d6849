import { describe, expect, it } from 'vitest';
import type { Timeseries } from '../queries/timeseries.ts';
import { axisLabel, drawnBuckets, hasTraffic, toBucketRows } from './bucket-series.ts';

const zero = { ok: 0, refusal: 0, transient: 0, throttled: 0, ambiguous: 0 };
const series: Timeseries = {
  step: 300_000,
  points: [
    { start: 0, requests: 0, avoidable: 0, buckets: zero },
    { start: 300_000, requests: 7, avoidable: 2, buckets: { ...zero, ok: 4, refusal: 3 } },
  ],
};

describe('toBucketRows', () => {
  it('keeps every step, empty ones as zeros, and flattens the buckets', () => {
    const rows = toBucketRows(series);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ start: 0, end: 300_000, requests: 0, ok: 0, refusal: 0 });
    expect(rows[1]).toMatchObject({ start: 300_000, end: 600_000, requests: 7, avoidable: 2, ok: 4, refusal: 3 });
  });

  it('tells a range without traffic from one with', () => {
    expect(hasTraffic(toBucketRows(series))).toBe(true);
    expect(hasTraffic(toBucketRows({ step: 300_000, points: series.points.slice(0, 1) }))).toBe(false);
  });
});

describe('drawnBuckets', () => {
  it('stacks failures first and can leave OK out', () => {
    expect(drawnBuckets(true)).toEqual(['refusal', 'throttled', 'transient', 'ambiguous', 'ok']);
    expect(drawnBuckets(false)).not.toContain('ok');
  });
});

describe('axisLabel', () => {
  it('shows the time of day, and the date once the range is longer than a day', () => {
    const day = toBucketRows(series);
    expect(axisLabel(day)(Date.UTC(2026, 10, 30, 3, 5))).toBe('03:05');
    const week = [
      { ...day[0], start: 0, end: 0 },
      { ...day[1], start: 0, end: 3 * 86_400_000 },
    ] as typeof day;
    expect(axisLabel(week)(Date.UTC(2026, 10, 30, 3, 5))).toBe('30 Nov 03:05');
  });
});
