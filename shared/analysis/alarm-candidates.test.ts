import { describe, expect, it } from 'vitest';
import { alarmCandidateIds, halfSends, SLOT_MS, SLOTS_PER_HOUR, type SlotHour, slotOf } from './alarm-candidates.ts';
import { HOUR_MS } from './time-buckets.ts';

const H = HOUR_MS;
const T = 500 * H;
const ALARM = { threshold: 40, windowMs: 600_000 };
/** An hour of `identity` whose slots hold `sends` (the rest none). */
const hour = (at: number, identity: string, sends: Record<number, number>): SlotHour => ({
  identity,
  start: T + at * H,
  slots: Array.from({ length: SLOTS_PER_HOUR }, (_, slot) => sends[slot] ?? 0),
});

describe('halfSends', () => {
  it('is half the threshold, rounded up: one of the two slots an alarm touches holds that many', () => {
    expect(halfSends(40)).toBe(20);
    expect(halfSends(41)).toBe(21);
    expect(() => halfSends(2)).toThrow(RangeError);
  });
});

describe('slotOf', () => {
  it('counts 10-minute slots from the top of the hour', () => {
    expect(SLOTS_PER_HOUR).toBe(6);
    expect(slotOf(T)).toBe(0);
    expect(slotOf(T + SLOT_MS - 1)).toBe(0);
    expect(slotOf(T + SLOT_MS)).toBe(1);
    expect(slotOf(T + H - 1)).toBe(5);
  });
});

describe('alarmCandidateIds', () => {
  const window = { from: T - 10 * H, to: T + 10 * H };

  it('names the identities with a slot of half the threshold, each once', () => {
    const hours = [
      hour(0, 'a', { 0: 20 }),
      hour(1, 'a', { 5: 25 }),
      hour(0, 'b', { 2: 19, 3: 19 }),
      hour(2, 'c', { 5: 21 }),
      hour(3, 'c', { 0: 19 }),
    ];
    expect(alarmCandidateIds(hours, window, ALARM)).toEqual(['a', 'c']);
  });

  it('never misses an alarm: 40 sends in under 10 minutes leave 20 in one slot, wherever they start', () => {
    for (let offset = 0; offset < H; offset += 37_000) {
      const slots = new Map<string, number>();
      for (let i = 0; i < 40; i++) {
        const ts = T + offset + i * 15_000;
        const key = `${ts - (ts % H)}:${slotOf(ts)}`;
        slots.set(key, (slots.get(key) ?? 0) + 1);
      }
      const hours = [...slots].map(([key, sends]) => {
        const [start, slot] = key.split(':').map(Number) as [number, number];
        return hour((start - T) / H, 'a', { [slot]: sends });
      });
      expect(alarmCandidateIds(hours, window, ALARM), `offset ${offset}`).toEqual(['a']);
    }
  });

  it('reads only the slots that reach into the window', () => {
    const hours = [hour(0, 'a', { 0: 30 }), hour(0, 'b', { 1: 30 })];
    expect(alarmCandidateIds(hours, { from: T + SLOT_MS + 5, to: T + H }, ALARM)).toEqual(['b']);
    expect(alarmCandidateIds(hours, { from: T, to: T + SLOT_MS }, ALARM)).toEqual(['a']);
  });

  it('refuses a window longer than a slot', () => {
    expect(() => alarmCandidateIds([], window, { threshold: 40, windowMs: 2 * SLOT_MS })).toThrow(RangeError);
  });
});
