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
 * Per identity, the spans of [from, to) that can hold an alarm's sends, merged: a seed's own hour when it holds the
 * threshold alone; the `windowMs` either side of its start or its end when it holds it with the hour before or
 * after (an alarm that crosses an hour's edge lies within a window's length of it).
 */
export function alarmSpans(
  seeds: readonly SeedHour[],
  { from, to }: { from: number; to: number },
  { threshold, windowMs }: { threshold: number; windowMs: number } = REPRESENTATION_ALARM,
): Map<string, [number, number][]> {
  if (windowMs > HOUR_MS) throw new RangeError(`an alarm window longer than an hour spans more than two: ${windowMs}`);
  const spans = new Map<string, [number, number][]>();
  const add = (identity: string, start: number, end: number) => {
    const span: [number, number] = [Math.max(from, start), Math.min(to, end)];
    if (span[0] >= span[1]) return;
    const list = spans.get(identity);
    if (list === undefined) spans.set(identity, [span]);
    else list.push(span);
  };
  for (const { identity, start, sends, prev, next } of seeds) {
    const end = start + HOUR_MS;
    if (sends >= threshold) add(identity, start, end);
    // An alarm whose sends are all in this hour lies in it: an edge matters only with sends beyond it.
    if (prev > 0 && sends + prev >= threshold) add(identity, start - windowMs, start + windowMs);
    if (next > 0 && sends + next >= threshold) add(identity, end - windowMs, end + windowMs);
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
