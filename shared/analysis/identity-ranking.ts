import { SLOT_MS } from './alarm-candidates.ts';
import { HOUR_MS } from './time-buckets.ts';

/**
 * Ranking request identities by sends in a window from per-hour counts (ADR 7). Each hour keeps a list of its most
 * sent identities; the window's candidates are the identities on any of the lists it touches. The lists bound what
 * each was sent, so that only those that can take a place are counted exactly (the store picks them out of the
 * lists: db/counters/identities.ts listContenders), and what an identity on none of them can have been sent, which
 * says whether the top is certain.
 */

/** An identity's counted sends in the hour starting at `start`. */
export interface HourSends {
  start: number;
  identity: string;
  sends: number;
  /**
   * The hour's sends per 10-minute slot (shared/analysis/alarm-candidates.ts), in clock order: they sum to `sends`.
   * Null for an hour the window holds whole, every send of which is in it.
   */
  slots: readonly number[] | null;
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
 * The part of [from, to) inside the hours that hold any send (`first` to `last`, each an hour's start), or null when
 * none of them is in it: nothing is counted outside them, so a week's window over a day of traffic ranks as the day.
 */
export function withinSentHours(
  { from, to }: { from: number; to: number },
  hours: { first: number; last: number } | null,
): { from: number; to: number } | null {
  if (hours === null) return null;
  const start = Math.max(from, hours.first);
  const end = Math.min(to, hours.last + HOUR_MS);
  return start < end ? { from: start, to: end } : null;
}

/** How long each hour's list is read: a list as long as that may have been cut. */
export type ListDepth = (start: number) => number;

/** An hour of the window, and the most an identity off its list can have been sent in it. */
export interface HourCap {
  start: number;
  cap: number;
  /** Whether the hour lies whole inside the window (its list counts toward what is surely sent there). */
  whole: boolean;
}

/**
 * Each hour's cap, from the sends at the last place of each list that was cut (`cuts`: hour start -> those sends):
 * an identity off a cut list was sent no more than its last place; off a list read whole (every identity sent more
 * than once), once at most. `unlisted` bounds an identity on no list: the sum of the caps.
 */
export function hourCaps(cuts: ReadonlyMap<number, number>, split: HourSplit): { hours: HourCap[]; unlisted: number } {
  const hours: HourCap[] = [];
  let unlisted = 0;
  for (let start = split.fromHour; start < split.toHour; start += HOUR_MS) {
    const cap = cuts.get(start) ?? 1;
    hours.push({ start, cap, whole: start >= split.innerFrom && start < split.innerTo });
    unlisted += cap;
  }
  return { hours, unlisted };
}

/**
 * A contender as its list rows give it (db/counters/identities.ts listContenders): its rows of whole hours summed in
 * the store (a day of flat traffic is ~1,800 contenders on every one of ~22 lists: ~40k rows, whose identities as
 * JavaScript strings cost more than choosing them), its rows of part-hours each with its slots.
 */
export interface ListedContender {
  identity: string;
  /** Its sends in the whole hours whose lists it is on: exact there. */
  listed: number;
  /** How many whole hours' lists it is on. */
  listedHours: number;
  /** What `listed` is over those hours' caps. */
  overCaps: number;
  /** Its rows of the part-hours whose lists it is on. */
  parts: readonly HourSends[];
}

/**
 * The most each contender can have been sent in the window: in the hours whose lists it is on, its sends in the
 * slots the window overlaps (all of them in a whole hour), each other hour's cap in the rest. Most first (ties by
 * identity), the order in which they are worth counting. By the slots, not the hour: an hour's window is two
 * part-hours, and flat traffic sent ~17 times an hour was bounded by ~34 there, above every place, so that round
 * after round of 250 contenders was counted in the events (five for an hour's ranking at 2.5M events).
 */
export function contenderBounds(
  contenders: readonly ListedContender[],
  hours: readonly HourCap[],
  window: { from: number; to: number },
): IdentitySends[] {
  const allCaps = hours.reduce((sum, hour) => sum + hour.cap, 0);
  const capOf = new Map(hours.map((hour) => [hour.start, hour.cap]));
  return contenders
    .map(({ identity, overCaps, parts }) => ({
      identity,
      sends: parts.reduce(
        (most, part) => most + sendsWithin(part, window) - (capOf.get(part.start) ?? 0),
        allCaps + overCaps,
      ),
    }))
    .sort((a, b) => b.sends - a.sends || (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
}

/** The sends of an identity's hour that can lie in [from, to): those of the slots the window overlaps. */
export function sendsWithin(hour: HourSends, { from, to }: { from: number; to: number }): number {
  if (hour.slots === null) return hour.sends;
  let sends = 0;
  hour.slots.forEach((slotSends, slot) => {
    const begins = hour.start + slot * SLOT_MS;
    if (begins < to && begins + SLOT_MS > from) sends += slotSends;
  });
  return sends;
}

/** The `n`-th largest sends among `counted`, or 0 when there are fewer: a contender that can send less cannot place. */
export function placeToBeat(counted: readonly IdentitySends[], n: number): number {
  if (n <= 0 || counted.length < n) return 0;
  return counted.map((row) => row.sends).sort((a, b) => b - a)[n - 1] as number;
}

/**
 * Counts contenders exactly (`count`), `perRound` at a time in the order of `bounds` (most first), until the next
 * can send no more than it takes to reach the `n`-th place counted so far. One that reaches it exactly still
 * counts: a tie goes by identity. A day's flat traffic leaves ~1,800 contenders.
 */
export async function countLikeliest(
  bounds: readonly IdentitySends[],
  n: number,
  perRound: number,
  count: (round: IdentitySends[]) => Promise<IdentitySends[]>,
): Promise<IdentitySends[]> {
  const counted: IdentitySends[] = [];
  for (let start = 0; start < bounds.length; start += perRound) {
    const beat = placeToBeat(counted, n);
    const round = bounds.slice(start, start + perRound).filter((bound) => bound.sends >= beat);
    if (round.length === 0) break;
    counted.push(...(await count(round)));
  }
  return counted;
}

/**
 * Sends one probe of an hour's count costs, as many as a contender's sends read in the events' identity index: an
 * identity's count in a whole hour is one keyed lookup, ~5 us, and its sends in the events one seek and a run of
 * index entries, ~0.4 us each (measured at 1M events a day: 1,000 contenders over 23 hours, 110 ms from the hour
 * counts, 20 ms from the events). Below it, the conservative side of the measured ~12.
 */
export const SENDS_PER_HOUR_PROBE = 10;

/**
 * Which contenders to count from the events over the whole window and which from their hour counts (and the
 * part-hours' events): counting an identity in the events costs its sends, of which its bound is the most, and in
 * the hour counts one probe of each whole hour its lists do not give (`probesOf`). Only where the window's events are
 * all kept can they be counted there.
 */
export function countingPlan(
  round: readonly IdentitySends[],
  probesOf: (identity: string) => number,
  eventsKept: boolean,
): { fromEvents: string[]; fromHours: string[] } {
  const fromEvents: string[] = [];
  const fromHours: string[] = [];
  for (const { identity, sends } of round) {
    if (eventsKept && sends <= probesOf(identity) * SENDS_PER_HOUR_PROBE) fromEvents.push(identity);
    else fromHours.push(identity);
  }
  return { fromEvents, fromHours };
}

/** The starts of the window's whole hours, where a candidate's sends are read from its hour counts. */
export function wholeHours(split: HourSplit): number[] {
  const starts: number[] = [];
  for (let start = split.innerFrom; start < split.innerTo; start += HOUR_MS) starts.push(start);
  return starts;
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
