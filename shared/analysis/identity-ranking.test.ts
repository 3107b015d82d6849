import { describe, expect, it } from 'vitest';
import { type HourSends, splitHours, topSent, unlistedBound } from './identity-ranking.ts';
import { HOUR_MS } from './time-buckets.ts';

const H = HOUR_MS;
const T = 1_000 * H;

describe('splitHours', () => {
  it('reads whole hours from the counts and the part-hours at either edge from the events', () => {
    expect(splitHours(T + 10, T + 3 * H + 20)).toEqual({
      fromHour: T,
      toHour: T + 4 * H,
      innerFrom: T + H,
      innerTo: T + 3 * H,
      edges: [
        [T + 10, T + H],
        [T + 3 * H, T + 3 * H + 20],
      ],
    });
  });

  it('has no edges for a window of whole hours', () => {
    expect(splitHours(T, T + 2 * H)).toEqual({
      fromHour: T,
      toHour: T + 2 * H,
      innerFrom: T,
      innerTo: T + 2 * H,
      edges: [],
    });
  });

  it('reads a window inside one hour, or across one boundary without a whole hour, from the events only', () => {
    expect(splitHours(T + 5, T + 50)).toMatchObject({ fromHour: T, toHour: T + H, edges: [[T + 5, T + 50]] });
    const across = splitHours(T + H - 5, T + H + 5);
    expect(across).toMatchObject({ fromHour: T, toHour: T + 2 * H, edges: [[T + H - 5, T + H + 5]] });
    expect(across.innerTo).toBeLessThanOrEqual(across.innerFrom);
  });
});

describe('unlistedBound', () => {
  const split = splitHours(T, T + 3 * H);
  const row = (hour: number, identity: string, sends: number): HourSends => ({ start: T + hour * H, identity, sends });

  it('is the last of each cut list, and one send for an hour whose list holds everyone sent twice', () => {
    const lists = [row(0, 'a', 9), row(0, 'b', 4), row(1, 'a', 7), row(1, 'c', 6), row(2, 'd', 3)];
    // Hours 0 and 1 were cut at 2 (unlisted: at most 4 and 6); hour 2 was not (at most 1).
    expect(unlistedBound(lists, split, 2)).toBe(4 + 6 + 1);
  });

  it('is one send per hour when nothing was re-sent', () => {
    expect(unlistedBound([], split, 5)).toBe(3);
  });
});

describe('topSent', () => {
  const candidates = [
    { identity: 'b', sends: 5 },
    { identity: 'a', sends: 5 },
    { identity: 'c', sends: 9 },
    { identity: 'd', sends: 1 },
    { identity: 'e', sends: 2 },
  ];

  it('ranks by sends, ties by identity, and leaves out identities sent once', () => {
    expect(topSent(candidates, 10, 1).ranked.map((c) => c.identity)).toEqual(['c', 'a', 'b', 'e']);
    expect(topSent(candidates, 2, 1).ranked.map((c) => c.identity)).toEqual(['c', 'a']);
  });

  it('is certain when an unlisted identity could not reach the last place, ties included', () => {
    expect(topSent(candidates, 2, 4).exact).toBe(true);
    // An unlisted identity sent 5 times, named before "a", would take the second place.
    expect(topSent(candidates, 2, 5).exact).toBe(false);
  });

  it('is certain of a short list only when no unlisted identity can have been sent twice', () => {
    expect(topSent(candidates, 10, 1).exact).toBe(true);
    expect(topSent(candidates, 10, 2).exact).toBe(false);
    expect(topSent([], 0, 99)).toEqual({ ranked: [], exact: true });
  });
});
