import { describe, expect, it } from 'vitest';
import { alarmSpans, halfSends, type SeedHour } from './alarm-candidates.ts';
import { HOUR_MS } from './time-buckets.ts';

const H = HOUR_MS;
const T = 500 * H;
const W = 600_000;
const ALARM = { threshold: 40, windowMs: W };
const seed = (hour: number, sends: number, prev = 0, next = 0, identity = 'a'): SeedHour => ({
  identity,
  start: T + hour * H,
  sends,
  prev,
  next,
});

describe('halfSends', () => {
  it('is half the threshold, rounded up: one of the two intervals an alarm touches holds that many', () => {
    expect(halfSends(40)).toBe(20);
    expect(halfSends(41)).toBe(21);
    expect(() => halfSends(2)).toThrow(RangeError);
  });
});

describe('alarmSpans', () => {
  const window = { from: T - 10 * H, to: T + 10 * H };

  it("reads a seed's hour when it holds the threshold, and its edge when it does so with the hour beside it", () => {
    const spans = alarmSpans([seed(0, 40), seed(3, 20, 20), seed(6, 25, 0, 15, 'b')], window, ALARM);
    expect(spans.get('a')).toEqual([
      [T, T + H],
      [T + 3 * H - W, T + 3 * H + W],
    ]);
    expect(spans.get('b')).toEqual([[T + 7 * H - W, T + 7 * H + W]]);
  });

  it('leaves out a seed that cannot reach the threshold with either hour beside it', () => {
    expect(alarmSpans([seed(0, 39), seed(2, 20, 19, 19)], window, ALARM).size).toBe(0);
  });

  it('merges overlapping spans and keeps them inside the window', () => {
    const spans = alarmSpans([seed(1, 45, 5), seed(2, 30, 0, 30)], { from: T + 5, to: T + 3 * H - 7 }, ALARM);
    expect(spans.get('a')).toEqual([
      [T + H - W, T + 2 * H],
      [T + 3 * H - W, T + 3 * H - 7],
    ]);
    const clipped = alarmSpans([seed(0, 20, 20)], { from: T + 5, to: T + H }, ALARM);
    expect(clipped.get('a')).toEqual([[T + 5, T + W]]);
  });

  it('refuses a window longer than an hour', () => {
    expect(() => alarmSpans([], window, { threshold: 40, windowMs: 2 * H })).toThrow(RangeError);
  });
});
