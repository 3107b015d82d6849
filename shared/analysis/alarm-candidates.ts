import { REPRESENTATION_ALARM } from './identities.ts';
import { HOUR_MS } from './time-buckets.ts';

/**
 * Which identities can be over the re-presentation alarm (ADR 7), found from the per-hour send counts and then the
 * sends of a few spans counted per `windowMs`, so that the alarm list reads neither a window's events nor the top of
 * a ranking.
 *
 * `threshold` re-presentations within `windowMs` (at most an hour) are at least `threshold` sends within less than
 * `windowMs`: they fall in one or two adjacent clock intervals as long as the window or longer (hours, or buckets of
 * the window's length), and one of those holds at least half of them.
 */

/** An hour of an identity's sends (a seed: at least half the threshold), with the hours either side of it. */
export interface SeedHour {
  identity: string;
  start: number;
  sends: number;
  prev: number;
  next: number;
}

/**
 * The fewest sends of an alarm that one of its (at most two) clock intervals holds. The hour counts list only hours
 * of more than one send, so a threshold under 3 (an hour of one send could be half of it) cannot be read from them.
 */
export function halfSends(threshold: number = REPRESENTATION_ALARM.threshold): number {
  if (threshold < 3) throw new RangeError(`the hour counts cannot find alarms under 3 re-presentations: ${threshold}`);
  return Math.ceil(threshold / 2);
}

/**
 * Per identity, the spans of [from, to) whose send times can show an alarm: around every seed that holds the
 * threshold alone or with an hour beside it, from `windowMs` before its hour to `windowMs` after; merged.
 */
export function alarmSpans(
  seeds: readonly SeedHour[],
  { from, to }: { from: number; to: number },
  { threshold, windowMs }: { threshold: number; windowMs: number } = REPRESENTATION_ALARM,
): Map<string, [number, number][]> {
  if (windowMs > HOUR_MS) throw new RangeError(`an alarm window longer than an hour spans more than two: ${windowMs}`);
  const spans = new Map<string, [number, number][]>();
  for (const seed of seeds) {
    if (seed.sends + Math.max(seed.prev, seed.next, 0) < threshold) continue;
    const span: [number, number] = [
      Math.max(from, seed.start - windowMs),
      Math.min(to, seed.start + HOUR_MS + windowMs),
    ];
    if (span[0] >= span[1]) continue;
    const list = spans.get(seed.identity);
    if (list === undefined) spans.set(seed.identity, [span]);
    else list.push(span);
  }
  for (const [identity, list] of spans) spans.set(identity, merge(list));
  return spans;
}

function merge(spans: [number, number][]): [number, number][] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}
