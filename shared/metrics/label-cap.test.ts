import { describe, expect, it } from 'vitest';
import { capLabelSets, OTHER, talliesOf } from './label-cap.ts';

const tally = (label: string, ...values: number[]) => ({ labels: [label, `${label}-client`], values });

describe('capLabelSets', () => {
  it('keeps every set under the cap, with nothing folded', () => {
    const list = [tally('a', 1, 0), tally('b', 5, 1)];
    expect(capLabelSets(talliesOf(list, 2), 2)).toEqual({ tallies: [list[1], list[0]], folded: 0 });
  });

  it('keeps the largest, and sums the rest into one set whose labels all read "other"', () => {
    const list = [tally('a', 1, 1), tally('b', 5, 0), tally('c', 3, 2), tally('d', 3, 0)];
    expect(capLabelSets(talliesOf(list, 2), 2)).toEqual({
      // Ties fall by label: c before d.
      tallies: [list[1], list[2], { labels: [OTHER, OTHER], values: [4, 1] }],
      folded: 2,
    });
  });

  it('folds a real set reading "other" everywhere into the other set, not beside it', () => {
    const list = [{ labels: [OTHER, OTHER], values: [9] }, tally('a', 1)];
    expect(capLabelSets(talliesOf(list, 1), 5)).toEqual({
      tallies: [list[1], { labels: [OTHER, OTHER], values: [9] }],
      folded: 1,
    });
  });

  it('is empty for no sets', () => {
    expect(capLabelSets(talliesOf([], 1), 3)).toEqual({ tallies: [], folded: 0 });
  });
});
