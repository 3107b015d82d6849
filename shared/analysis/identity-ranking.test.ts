import { describe, expect, it } from 'vitest';
import {
  contenderBounds,
  countingPlan,
  countLikeliest,
  hourCaps,
  type IdentitySends,
  placeToBeat,
  SENDS_PER_HOUR_PROBE,
  splitHours,
  topSent,
  wholeHours,
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

describe('hourCaps', () => {
  it('caps an identity off a cut list at its last place, and at one send an hour where a list was read whole', () => {
    // Hours 0 and 1 were cut at 4 and 6 sends; hour 2 was not.
    const cuts = new Map([
      [T, 4],
      [T + H, 6],
    ]);
    const { hours, unlisted } = hourCaps(cuts, splitHours(T, T + 3 * H));
    expect(unlisted).toBe(4 + 6 + 1);
    expect(hours.map((hour) => hour.cap)).toEqual([4, 6, 1]);
    expect(hourCaps(new Map(), splitHours(T, T + 3 * H)).unlisted).toBe(3);
  });

  it('marks only the hours inside the window as whole', () => {
    // The window starts 30 minutes into hour 0 and ends 10 minutes into hour 2: only hour 1 is whole.
    const { hours } = hourCaps(new Map(), splitHours(T + H / 2, T + 2 * H + H / 6));
    expect(hours.map((hour) => [hour.start, hour.whole])).toEqual([
      [T, false],
      [T + H, true],
      [T + 2 * H, false],
    ]);
  });
});

describe('contenderBounds', () => {
  const hours = [
    { start: T, cap: 3, whole: false },
    { start: T + H, cap: 2, whole: true },
    { start: T + 2 * H, cap: 1, whole: false },
  ];
  /** Sends all in an hour's first slot. */
  const early = (sends: number) => [sends, 0, 0, 0, 0, 0];
  const all = { from: T, to: T + 3 * H };
  /** A contender listed in the one whole hour (T + H) with `listed` sends, and in the part-hours of `parts`. */
  const contender = (identity: string, listed: number, parts: { start: number; sends: number; slots: number[] }[]) => ({
    identity,
    listed,
    listedHours: listed > 0 ? 1 : 0,
    overCaps: listed > 0 ? listed - 2 : 0,
    parts: parts.map((part) => ({ ...part, identity })),
  });

  it("bounds each contender by its list sends where it is listed and each other hour's cap, most first", () => {
    const contenders = [
      contender('a', 4, [{ start: T, sends: 9, slots: early(9) }]),
      contender('b', 7, []),
      contender('c', 0, [{ start: T + 2 * H, sends: 12, slots: early(12) }]),
    ];
    expect(contenderBounds(contenders, hours, all)).toEqual([
      { identity: 'c', sends: 3 + 2 + 12 },
      { identity: 'a', sends: 9 + 4 + 1 },
      { identity: 'b', sends: 3 + 7 + 1 },
    ]);
  });

  it('counts in a part-hour only the sends of the slots the window overlaps', () => {
    // The window starts 25 minutes into the first hour (its slots from 20 on) and ends 15 into the third (0 and 10).
    const window = { from: T + 25 * 60_000, to: T + 2 * H + 15 * 60_000 };
    const contenders = [
      contender('a', 0, [
        { start: T, sends: 9, slots: [4, 3, 1, 1, 0, 0] },
        { start: T + 2 * H, sends: 12, slots: [2, 2, 8, 0, 0, 0] },
      ]),
      // An hour the window holds whole comes summed: every send of it is in the window.
      contender('b', 7, []),
    ];
    expect(contenderBounds(contenders, hours, window)).toEqual([
      { identity: 'b', sends: 3 + 7 + 1 },
      { identity: 'a', sends: 1 + 1 + 2 + 2 + 2 },
    ]);
  });

  it('orders equal bounds by identity, and has none without contenders', () => {
    const contenders = [contender('y', 5, []), contender('x', 5, [])];
    expect(contenderBounds(contenders, hours, all).map((bound) => bound.identity)).toEqual(['x', 'y']);
    expect(contenderBounds([], hours, all)).toEqual([]);
  });
});

describe('placeToBeat', () => {
  const counted = [
    { identity: 'a', sends: 4 },
    { identity: 'b', sends: 9 },
    { identity: 'c', sends: 6 },
  ];

  it('is the n-th largest sends counted, or 0 while fewer than n are counted', () => {
    expect(placeToBeat(counted, 1)).toBe(9);
    expect(placeToBeat(counted, 2)).toBe(6);
    expect(placeToBeat(counted, 3)).toBe(4);
    expect(placeToBeat(counted, 4)).toBe(0);
    expect(placeToBeat(counted, 0)).toBe(0);
  });
});

describe('countLikeliest', () => {
  const exact: Record<string, number> = { a: 10, b: 10, c: 4, d: 3 };
  const bounds = [
    { identity: 'b', sends: 12 },
    { identity: 'a', sends: 10 },
    { identity: 'c', sends: 9 },
    { identity: 'd', sends: 3 },
  ];
  const counter = (asked: string[][]) => async (round: IdentitySends[]) => {
    const identities = round.map((bound) => bound.identity);
    asked.push(identities);
    return identities.map((identity) => ({ identity, sends: exact[identity] ?? 0 }));
  };

  it('stops once no contender left can reach the place to beat, and counts one that ties it', async () => {
    const asked: string[][] = [];
    const counted = await countLikeliest(bounds, 1, 1, counter(asked));
    // After b (10), a can reach 10 and, a tie, wins by identity; c (at most 9) and d cannot.
    expect(asked).toEqual([['b'], ['a']]);
    expect(topSent(counted, 1, 0).ranked).toEqual([{ identity: 'a', sends: 10 }]);
  });

  it('counts every contender while fewer than n are counted, and a round whole', async () => {
    const asked: string[][] = [];
    await countLikeliest(bounds, 3, 2, counter(asked));
    expect(asked).toEqual([
      ['b', 'a'],
      ['c', 'd'],
    ]);
    expect(await countLikeliest([], 2, 5, counter([]))).toEqual([]);
  });
});

describe('countingPlan', () => {
  const round = [
    { identity: 'loop', sends: 10 * SENDS_PER_HOUR_PROBE + 1 },
    { identity: 'edge', sends: 10 * SENDS_PER_HOUR_PROBE },
    { identity: 'rare', sends: 3 },
  ];

  it('counts in the events those whose sends cost no more there than a probe of each whole hour', () => {
    expect(countingPlan(round, () => 10, true)).toEqual({ fromEvents: ['edge', 'rare'], fromHours: ['loop'] });
  });

  it('counts every contender in the hour counts when part of the window has no events kept', () => {
    expect(countingPlan(round, () => 10, false)).toEqual({ fromEvents: [], fromHours: ['loop', 'edge', 'rare'] });
  });

  it('counts a window without a whole hour in the events only where they are kept', () => {
    expect(countingPlan(round, () => 0, true).fromHours).toEqual(['loop', 'edge', 'rare']);
  });

  it('counts in the hour counts, for its part-hours alone, one whose lists give every whole hour', () => {
    const probes = (identity: string) => (identity === 'rare' ? 0 : 10);
    expect(countingPlan(round, probes, true)).toEqual({ fromEvents: ['edge'], fromHours: ['loop', 'rare'] });
  });
});

describe('wholeHours', () => {
  it('lists the hours that lie whole inside the window, none of its part-hours', () => {
    expect(wholeHours(splitHours(T, T + 3 * H))).toEqual([T, T + H, T + 2 * H]);
    expect(wholeHours(splitHours(T + H / 2, T + 2 * H + H / 6))).toEqual([T + H]);
    expect(wholeHours(splitHours(T + H / 4, T + H / 2))).toEqual([]);
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
