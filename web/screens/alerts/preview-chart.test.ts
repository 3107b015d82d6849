import { describe, expect, it } from 'vitest';
import type { Preview } from '../../queries/alerts.ts';
import { previewDrawing, thresholdLines } from './preview-chart.ts';

const at = Date.UTC(2026, 10, 30, 3, 0);
const preview = (groups: string[]): Preview => ({
  step: 300_000,
  points: [at, at + 300_000],
  series: groups.map((group, g) => ({ group, server: group, values: [g, null] })),
  transitions: [],
  notifications: 0,
  groups: groups.length,
  from: at - 300_000,
  to: at + 300_000,
});

describe('previewDrawing', () => {
  it('makes a row per evaluation and keeps a missing value a gap', () => {
    const { rows, series, tooltips } = previewDrawing(preview(['docs', 'search']), 'refusal_count');
    expect(rows).toEqual([
      { start: at, s0: 0, s1: 1 },
      { start: at + 300_000, s0: null, s1: null },
    ]);
    expect(series.map((s) => s.name)).toEqual(['docs', 'search']);
    expect(tooltips[0]?.title).toBe('30 Nov 03:00:00 UTC');
    expect(tooltips[1]?.lines.map((line) => line.value)).toEqual(['no data', 'no data']);
  });

  it('colours a group by its name, not by where the API listed it', () => {
    const first = previewDrawing(preview(['docs', 'search']), 'refusal_count').series;
    const second = previewDrawing(preview(['search', 'docs']), 'refusal_count').series;
    const colourOf = (series: typeof first, name: string) => series.find((s) => s.name === name)?.colour;
    expect(colourOf(second, 'docs')).toBe(colourOf(first, 'docs'));
    expect(colourOf(second, 'search')).toBe(colourOf(first, 'search'));
  });

  it('calls the one group of an ungrouped rule all traffic', () => {
    expect(previewDrawing(preview(['']), 'refusal_count').series.map((s) => s.name)).toEqual(['all traffic']);
  });
});

describe('thresholdLines', () => {
  it('draws only the thresholds the rule has, resolve dashed', () => {
    expect(thresholdLines({ warning: 5, critical: null, resolve: 2 })).toEqual([
      { value: 5, label: 'warning', colour: 'var(--throttled)' },
      { value: 2, label: 'resolve', colour: 'var(--muted)', dashed: true },
    ]);
  });
});
