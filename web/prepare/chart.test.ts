import { describe, expect, it } from 'vitest';
import { seriesColours, timeAxisLabel } from './chart.ts';

const HOUR = 3_600_000;
const at = Date.UTC(2026, 10, 30, 3, 5);

describe('timeAxisLabel', () => {
  it('shows the time of day on a range of a day or less, even one that crosses midnight', () => {
    expect(timeAxisLabel(at - 24 * HOUR, at)(at)).toBe('03:05');
    expect(timeAxisLabel(at - 6 * HOUR, at)(at)).toBe('03:05');
  });

  it('shows the date with the time once the range is longer than a day', () => {
    expect(timeAxisLabel(at - 7 * 24 * HOUR, at)(at)).toBe('30 Nov 03:05');
    expect(timeAxisLabel(at - 25 * HOUR, at)(at - 25 * HOUR)).toBe('29 Nov 02:05');
  });
});

describe('seriesColours', () => {
  it('gives a bucket its own colour and trimmed context the warning colour', () => {
    const colour = seriesColours(['refusal', 'ok', 'trimmed']);
    expect(colour('refusal')).toBe('var(--refusal)');
    expect(colour('ok')).toBe('var(--ok)');
    expect(colour('trimmed')).toBe('var(--throttled)');
  });

  it('colours a series by its name, whatever order or company it comes in', () => {
    const alone = seriesColours(['docs']);
    const reordered = seriesColours(['search', 'docs']);
    const again = seriesColours(['docs', 'search']);
    expect(reordered('docs')).toBe(again('docs'));
    expect(reordered('search')).toBe(again('search'));
    expect(alone('docs')).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('gives up to eight names eight different colours, the faint yellow only to the eighth', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const colour = seriesColours(names);
    expect(new Set(names.map(colour)).size).toBe(8);
    expect(names.slice(0, 7).map(seriesColours(names.slice(0, 7)))).not.toContain('#f0e442');
  });
});
