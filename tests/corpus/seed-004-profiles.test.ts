import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionabilityOf, packViews } from '../../shared/actionability/index.ts';
import { countViews, incomparablePairs } from '../../shared/actionability/summary.ts';
import { validateEvent } from '../../shared/event.ts';

describe("seed 004's sample (section VI.B, Table I)", () => {
  const lines = readFileSync(new URL('../fixtures/actionability/seed-004.ndjson', import.meta.url), 'utf8')
    .trim()
    .split('\n');

  it('gives the control profiles 110000 x 8, 100000 x 10, 000000 x 3 and the column D 18, P 8, the rest 0', () => {
    const packed = lines.map((line) => {
      const parsed = validateEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error.message);
      const read = actionabilityOf(parsed.event);
      // All 21 are failures: the 3 success-shaped ones through their HTTP status only.
      if (read === undefined) throw new Error(`${line} is no failure`);
      return read;
    });
    const counts = countViews(
      packed.map((r) => ({ packed: packViews(r.control.profile, r.transport.profile), failures: 1 })),
    );
    expect(counts.control).toEqual({
      failures: 21,
      D: 18,
      P: 8,
      C: 0,
      T: 0,
      E: 0,
      R: 0,
      profiles: { '100000': 10, '110000': 8, '000000': 3 },
    });
    // "Both sets happen to form chains, with 0 incomparable pairs."
    expect(incomparablePairs(packed.map((r) => r.control.profile))).toBe(0);
    // With transport, the success-shaped errors' 400 selects request repair; nothing reaches C, T, E or R.
    expect(counts.transport.profiles).toEqual({ '100000': 10, '110000': 11 });
  });
});
