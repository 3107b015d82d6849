/**
 * A bound on the label sets of a metric family. Names come from logs: a federation of thousands of clients, or a proxy
 * whose clients are remote addresses, would otherwise make a scrape as large as its traffic. The largest label sets
 * are kept as they are; the rest are summed into one set whose every label reads `other`, and how many were folded in
 * is told, so nothing is lost from a sum and nobody mistakes the bound for the federation's size.
 */
export const OTHER = 'other';

/** A label set's values (one per label name of its family) and its numbers (summed when folded). */
export interface Tally {
  labels: readonly string[];
  values: readonly number[];
}

/** The largest tallies of a family, the largest first, and how many there are in all with their sums. */
export interface Tallies {
  largest: readonly Tally[];
  count: number;
  sums: readonly number[];
}

export interface Capped {
  tallies: Tally[];
  /** How many label sets are summed into the `other` set (0: none is, and there is no such set). */
  folded: number;
}

/** The tallies of a list, ranked by their first number (then by their labels, so that ties fall the same way). */
export function talliesOf(list: readonly Tally[], width: number): Tallies {
  const sums = Array.from({ length: width }, (_, i) => list.reduce((sum, tally) => sum + (tally.values[i] ?? 0), 0));
  const largest = [...list].sort(
    (a, b) => (b.values[0] ?? 0) - (a.values[0] ?? 0) || compareLabels(a.labels, b.labels),
  );
  return { largest, count: list.length, sums };
}

/**
 * At most `cap` label sets: the first `cap` of the largest, and one `other` set with the sums of the rest. A real
 * label set that reads `other` in every label would be mistaken for it: it is folded in too.
 */
export function capLabelSets(tallies: Tallies, cap: number): Capped {
  const kept = tallies.largest.filter((tally) => !tally.labels.every((label) => label === OTHER)).slice(0, cap);
  const folded = tallies.count - kept.length;
  if (folded === 0) return { tallies: kept, folded: 0 };
  const rest = tallies.sums.map((sum, i) => kept.reduce((left, tally) => left - (tally.values[i] ?? 0), sum));
  const width = kept[0]?.labels.length ?? tallies.largest[0]?.labels.length ?? 0;
  return { tallies: [...kept, { labels: Array(width).fill(OTHER), values: rest }], folded };
}

function compareLabels(a: readonly string[], b: readonly string[]): number {
  const x = a.join('\u0000');
  const y = b.join('\u0000');
  return x < y ? -1 : x > y ? 1 : 0;
}
