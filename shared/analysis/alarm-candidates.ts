import { REPRESENTATION_ALARM } from './identities.ts';
import { HOUR_MS } from './time-buckets.ts';

/**
 * Which identities can be over the re-presentation alarm (ADR 7), found from the per-hour send counts and then the
 * send times of a few spans, so that the alarm list reads neither a window's events nor the top of a ranking.
 *
 * `threshold` re-presentations within `windowMs` (at most an hour) are at least `threshold` sends within less than
 * `windowMs`: they fall in one clock hour or two adjacent ones, and one of those holds at least half of them.
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
 * The fewest sends that one hour of an alarm holds (the seeds). The hour counts list only hours of more than one
 * send, so a threshold under 3 (an hour of one send could be half of it) cannot be read from them.
 */
export function seedSends(threshold: number = REPRESENTATION_ALARM.threshold): number {
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

/** Whether `threshold` of the send times (any order) fall within less than `windowMs` of each other. */
export function reachesAlarm(
  times: readonly number[],
  { threshold, windowMs }: { threshold: number; windowMs: number } = REPRESENTATION_ALARM,
): boolean {
  if (times.length < threshold) return false;
  const sorted = [...times].sort((a, b) => a - b);
  for (let last = threshold - 1; last < sorted.length; last++) {
    if ((sorted[last] as number) - (sorted[last - threshold + 1] as number) < windowMs) return true;
  }
  return false;
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
