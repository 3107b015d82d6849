import { describe, expect, it } from 'vitest';
import {
  boundCandidates,
  type CandidateBound,
  contenders,
  type HourSends,
  splitHours,
  topSent,
  unlistedHours,
  withinSentHours,
} from './identity-ranking.ts';
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

describe('withinSentHours', () => {
  const sent = { first: T, last: T + 23 * H };

  it('narrows a week to the day of hours that hold sends, keeping the edges inside them', () => {
    expect(withinSentHours({ from: T - 6 * 24 * H, to: T + 24 * H + 5 }, sent)).toEqual({ from: T, to: T + 24 * H });
    expect(withinSentHours({ from: T + 10, to: T + 2 * H }, sent)).toEqual({ from: T + 10, to: T + 2 * H });
    expect(withinSentHours({ from: 0, to: T + 30 }, sent)).toEqual({ from: T, to: T + 30 });
  });

  it('is null for a window without any sent hour, and for a store without sends', () => {
    expect(withinSentHours({ from: T - 2 * H, to: T }, sent)).toBeNull();
    expect(withinSentHours({ from: T + 24 * H, to: T + 25 * H }, sent)).toBeNull();
    expect(withinSentHours({ from: 0, to: T }, null)).toBeNull();
  });
});

describe('boundCandidates', () => {
  const row = (hour: number, identity: string, sends: number): HourSends => ({ start: T + hour * H, identity, sends });
  const lists = [row(0, 'a', 9), row(0, 'b', 4), row(1, 'a', 7), row(1, 'c', 6), row(2, 'd', 3)];

  it('caps an unlisted identity at the last of each cut list, and one send an hour where a list was read whole', () => {
    // Hours 0 and 1 were cut at 2 (unlisted: at most 4 and 6); hour 2 was not (at most 1).
    expect(boundCandidates(lists, splitHours(T, T + 3 * H), () => 2).unlisted).toBe(4 + 6 + 1);
    expect(boundCandidates([], splitHours(T, T + 3 * H), () => 5).unlisted).toBe(3);
  });

  it("knows a candidate's sends where it is listed, and caps it by each hour's list elsewhere", () => {
    const { candidates } = boundCandidates(lists, splitHours(T, T + 3 * H), () => 2);
    const of = (identity: string) => candidates.find((c) => c.identity === identity);
    expect(of('a')).toMatchObject({ listed: 16, most: 16 + 1 });
    expect(of('b')).toMatchObject({ listed: 4, most: 4 + 6 + 1 });
    expect(of('d')).toMatchObject({ listed: 3, most: 4 + 6 + 3 });
    expect(unlistedHours(of('b') as CandidateBound, splitHours(T, T + 3 * H))).toEqual([T + H, T + 2 * H]);
  });

  it('counts nothing as known in a part-hour, where the list counts the whole hour, yet caps it by that list', () => {
    // The window starts 30 minutes into hour 0 and ends 10 minutes into hour 2: only hour 1 is whole.
    const split = splitHours(T + H / 2, T + 2 * H + H / 6);
    const { candidates } = boundCandidates(lists, split, () => 2);
    const of = (identity: string) => candidates.find((c) => c.identity === identity);
    expect(of('a')).toMatchObject({ listed: 7, most: 9 + 7 + 1 });
    expect(of('b')).toMatchObject({ listed: 0, most: 4 + 6 + 1 });
    expect(unlistedHours(of('b') as CandidateBound, split)).toEqual([T + H]);
  });
});

describe('contenders', () => {
  const candidate = (identity: string, listed: number, most: number): CandidateBound => ({
    identity,
    listed,
    most,
    hours: [],
  });
  const candidates = [candidate('a', 10, 10), candidate('b', 6, 12), candidate('c', 2, 6), candidate('d', 0, 5)];

  it('keeps every candidate that can reach the n-th surely sent, ties included', () => {
    // The second surely sent 6 times: "c" may tie it (and win on its name); "d" cannot reach it.
    expect(contenders(candidates, 2).map((c) => c.identity)).toEqual(['a', 'b', 'c']);
    expect(contenders(candidates, 1).map((c) => c.identity)).toEqual(['a', 'b']);
    expect(contenders(candidates, 0)).toEqual([]);
  });

  it('keeps every candidate that can have been sent twice when there are fewer than n', () => {
    const few = [candidate('a', 0, 2), candidate('b', 0, 1)];
    expect(contenders(few, 5).map((c) => c.identity)).toEqual(['a']);
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
