import { describe, expect, it } from 'vitest';
import type { Timeseries } from '../queries/timeseries.ts';
import { bucketSeries, bucketTooltip, drawnBuckets, hasTraffic, showsOk, toBucketRows } from './bucket-series.ts';

const zero = { ok: 0, pending: 0, unknown: 0, refusal: 0, transient: 0, throttled: 0, ambiguous: 0 };
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
    expect(drawnBuckets(true)).toEqual(['refusal', 'throttled', 'transient', 'ambiguous', 'pending', 'unknown', 'ok']);
    expect(drawnBuckets(false)).not.toContain('ok');
  });
});

describe('bucketTooltip', () => {
  it('lists every drawn bucket top of the stack first, zeros included, then the sums', () => {
    const [, busy] = toBucketRows(series);
    if (busy === undefined) throw new Error('no second row');
    const tip = bucketTooltip(busy, bucketSeries(drawnBuckets(true)));
    expect(tip.title).toBe('1 Jan 00:05 – 00:10 UTC');
    expect(tip.lines.map((line) => [line.label, line.value])).toEqual([
      ['OK', '4'],
      ['Outcome not logged', '0'],
      ['Input asked', '0'],
      ['Ambiguous', '0'],
      ['Transient', '0'],
      ['Throttled', '0'],
      ['Refusal', '3'],
      ['Requests', '7'],
      ['Avoidable', '2'],
    ]);
    expect(tip.lines[0]?.colour).toBe('var(--ok)');
    expect(tip.lines.filter((line) => line.total).map((line) => line.label)).toEqual(['Requests']);
  });
});

describe('showsOk', () => {
  it('leaves OK in unless the URL says ok=hide', () => {
    expect(showsOk(new URLSearchParams(''))).toBe(true);
    expect(showsOk(new URLSearchParams('ok=hide'))).toBe(false);
  });
});
