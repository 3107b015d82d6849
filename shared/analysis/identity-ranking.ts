import { HOUR_MS } from './time-buckets.ts';

/**
 * Ranking request identities by sends in a window from per-hour counts (ADR 7). Each hour keeps a list of its most
 * sent identities; the window's candidates are the identities on any of the lists it touches, counted exactly; the
 * lists also bound what an identity on none of them can have been sent, which says whether the top is certain.
 */

/** An identity's counted sends in the hour starting at `start`. */
export interface HourSends {
  start: number;
  identity: string;
  sends: number;
}

export interface IdentitySends {
  identity: string;
  sends: number;
}

/** How a window splits into whole hours (from the hour counts) and part-hours at its edges (from the events). */
export interface HourSplit {
  /** The hours the window touches, whole or in part: [fromHour, toHour). */
  fromHour: number;
  toHour: number;
  /** The whole hours inside the window: [innerFrom, innerTo), empty when innerFrom >= innerTo. */
  innerFrom: number;
  innerTo: number;
  /** The part-hours, as [from, to) spans. */
  edges: [number, number][];
}

export function splitHours(from: number, to: number): HourSplit {
  const fromHour = floorHour(from);
  const toHour = floorHour(to - 1) + HOUR_MS;
  const innerFrom = from === fromHour ? from : fromHour + HOUR_MS;
  const innerTo = floorHour(to);
  if (innerFrom >= innerTo) return { fromHour, toHour, innerFrom, innerTo: innerFrom, edges: [[from, to]] };
  const edges: [number, number][] = [];
  if (from < innerFrom) edges.push([from, innerFrom]);
  if (innerTo < to) edges.push([innerTo, to]);
  return { fromHour, toHour, innerFrom, innerTo, edges };
}

/**
 * The most sends in [fromHour, toHour) of an identity on none of the lists. A list cut at `perHour` ends at its least
 * sent, and an unlisted identity was sent no more than that in its hour; a list not cut holds every identity sent
 * more than once in its hour, so an unlisted one was sent once at most there.
 */
export function unlistedBound(lists: readonly HourSends[], split: HourSplit, perHour: number): number {
  const listed = new Map<number, { rows: number; least: number }>();
  for (const { start, sends } of lists) {
    const hour = listed.get(start);
    if (hour === undefined) listed.set(start, { rows: 1, least: sends });
    else {
      hour.rows += 1;
      hour.least = Math.min(hour.least, sends);
    }
  }
  let bound = 0;
  for (let start = split.fromHour; start < split.toHour; start += HOUR_MS) {
    const hour = listed.get(start);
    bound += hour !== undefined && hour.rows >= perHour ? hour.least : 1;
  }
  return bound;
}

/**
 * The `n` most sent candidates that were sent more than once (most first, ties by identity), and whether they are
 * the window's true top `n`: they are when an unlisted identity, sent at most `bound` times, could not take a place.
 */
export function topSent(
  candidates: readonly IdentitySends[],
  n: number,
  bound: number,
): { ranked: IdentitySends[]; exact: boolean } {
  if (n <= 0) return { ranked: [], exact: true };
  const ranked = candidates
    .filter((candidate) => candidate.sends > 1)
    .sort((a, b) => b.sends - a.sends || (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0))
    .slice(0, n);
  // As many sends as the last place may take it (ties go by identity); a short list takes any identity sent twice.
  const toEnter = ranked.length === n ? (ranked[n - 1]?.sends ?? 0) : 2;
  return { ranked, exact: bound < toEnter };
}

function floorHour(ts: number): number {
  return ts - (((ts % HOUR_MS) + HOUR_MS) % HOUR_MS);
}
