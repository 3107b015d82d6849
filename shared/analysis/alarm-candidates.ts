import { REPRESENTATION_ALARM } from './identities.ts';
import { HOUR_MS } from './time-buckets.ts';

/**
 * Which identities can be over the re-presentation alarm (ADR 7), found from the per-hour send counts alone, so that
 * the alarm list reads neither a window's events nor the top of a ranking.
 *
 * `threshold` re-presentations within `windowMs` are at least `threshold` sends within less than `windowMs`: they
 * fall in one or two adjacent clock intervals as long as the window or longer, and one of those holds at least half
 * of them. identity_hour counts each hour's sends also per such interval: its slots.
 */

/** The clock intervals an hour's sends are also counted in (identity_hour's sends_00 ... sends_50). */
export const SLOT_MS = 10 * 60_000;
export const SLOTS_PER_HOUR = HOUR_MS / SLOT_MS;

/** The slot of the hour that holds `ts`: 0 for minutes :00-:09, ..., 5 for :50-:59. */
export function slotOf(ts: number): number {
  return Math.floor((ts % HOUR_MS) / SLOT_MS);
}

/** An hour of an identity's sends, with its sends per slot (SLOTS_PER_HOUR of them, in clock order). */
export interface SlotHour {
  identity: string;
  start: number;
  slots: readonly number[];
}

/**
 * The fewest sends of an alarm that one of its (at most two) slots holds. The hour counts list only hours of more
 * than one send, so a threshold under 3 (a slot of one send could be half of it) cannot be read from them.
 */
export function halfSends(threshold: number = REPRESENTATION_ALARM.threshold): number {
  if (threshold < 3) throw new RangeError(`the hour counts cannot find alarms under 3 re-presentations: ${threshold}`);
  return Math.ceil(threshold / 2);
}

/**
 * The identities with a slot inside [from, to) (in part or whole) of at least half the threshold's sends: every
 * identity over the alarm in the window, and a few more, each named once, in the order first met.
 */
export function alarmCandidateIds(
  hours: readonly SlotHour[],
  { from, to }: { from: number; to: number },
  { threshold, windowMs }: { threshold: number; windowMs: number } = REPRESENTATION_ALARM,
): string[] {
  if (windowMs > SLOT_MS) throw new RangeError(`an alarm window longer than a slot spans more than two: ${windowMs}`);
  const least = halfSends(threshold);
  const found = new Set<string>();
  for (const { identity, start, slots } of hours) {
    const busy = slots.some((sends, slot) => {
      const slotStart = start + slot * SLOT_MS;
      return sends >= least && slotStart < to && slotStart + SLOT_MS > from;
    });
    if (busy) found.add(identity);
  }
  return [...found];
}
