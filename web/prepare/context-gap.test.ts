import { describe, expect, it } from 'vitest';
import { trendTooltip } from './context-gap.ts';

const start = Date.UTC(2026, 10, 30, 22, 0);

describe('trendTooltip', () => {
  it('says the rate with its counts, and "nothing reported" for a gap rather than a zero', () => {
    const row = { start, end: start + 4 * 3_600_000, reported: 12, trimmed: 5, rate: 5 / 12 };
    expect(trendTooltip(row)).toEqual({
      title: '30 Nov 22:00 – 1 Dec 02:00 UTC',
      lines: [{ label: 'Trimmed', value: '42 % (5 of 12)' }],
    });
    expect(trendTooltip({ ...row, reported: 0, trimmed: 0, rate: null }).lines[0]?.value).toBe('nothing reported');
  });
});
