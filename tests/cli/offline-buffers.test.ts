import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../api/cli/min-heap.ts';
import { RecentKeys } from '../../api/cli/recent-keys.ts';

describe("the offline commands' bounded buffers", () => {
  it('pop a heap in order, whatever order it was filled in', () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    const values = Array.from({ length: 500 }, (_, i) => (i * 7919) % 503);
    const popped: number[] = [];
    for (const [i, value] of values.entries()) {
      heap.push(value);
      if (i % 3 === 0) popped.push(heap.pop() as number);
    }
    while (heap.size > 0) popped.push(heap.pop() as number);
    expect(heap.pop()).toBeUndefined();
    expect(popped).toHaveLength(values.length);
    // Popping as it fills gives each value once; popping the rest gives them in order.
    expect([...popped].sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
    const rest = popped.slice(Math.ceil(values.length / 3));
    expect(rest).toEqual([...rest].sort((a, b) => a - b));
  });

  it('remember a key for a window after it was last seen, and at most so many keys', () => {
    const keys = new RecentKeys(60_000, 3);
    keys.add('a', 0);
    keys.add('b', 10_000);
    keys.add('a', 50_000); // seen again: kept a window after this
    keys.forget(65_000);
    expect([keys.has('a'), keys.has('b')]).toEqual([true, true]);
    keys.forget(75_000);
    expect([keys.has('a'), keys.has('b')]).toEqual([true, false]);
    keys.forget(115_000);
    expect(keys.has('a')).toBe(false);
    for (const [i, key] of ['c', 'd', 'e', 'f'].entries()) keys.add(key, 120_000 + i);
    expect(['c', 'd', 'e', 'f'].map((key) => keys.has(key))).toEqual([false, true, true, true]);
  });
});
