import { describe, expect, it } from 'vitest';
import {
  customWindow,
  parseRange,
  parseUtcInput,
  rangeParams,
  rangeQuery,
  rangeText,
  resolveRange,
  toUtcInput,
} from './time-range.ts';

describe('time range', () => {
  it('reads a preset, an absolute window, and falls back to 24 h on anything else', () => {
    expect(parseRange(new URLSearchParams('range=6h'))).toEqual({ preset: '6h' });
    expect(parseRange(new URLSearchParams('range=2y'))).toEqual({ preset: '24h' });
    const window = parseRange(new URLSearchParams('from=2026-11-30T03:00:00Z&to=2026-11-30T04:00:00Z&range=1h'));
    expect(window).toEqual({ from: Date.UTC(2026, 10, 30, 3), to: Date.UTC(2026, 10, 30, 4) });
    expect(parseRange(new URLSearchParams('from=2026-11-30T04:00:00Z&to=2026-11-30T03:00:00Z'))).toEqual({
      preset: '24h',
    });
  });

  it('writes the default preset as nothing and a window as ISO, and reads back what it wrote', () => {
    expect(rangeParams({ preset: '24h' })).toEqual({ range: null, from: null, to: null });
    const window = { from: Date.UTC(2026, 10, 30, 3), to: Date.UTC(2026, 10, 30, 4) };
    const params = rangeParams(window);
    expect(params.from).toBe('2026-11-30T03:00:00.000Z');
    expect(parseRange(new URLSearchParams({ from: params.from ?? '', to: params.to ?? '' }))).toEqual(window);
  });

  it('resolves a preset against the clock, ending at the end of the current minute', () => {
    expect(resolveRange({ preset: '1h' }, 10_000_500)).toEqual({ from: 10_020_000 - 3_600_000, to: 10_020_000 });
    // On the minute itself, the minute it begins: the instant `now` is inside the window.
    expect(resolveRange({ preset: '24h' }, 10_020_000)).toEqual({ from: 10_080_000 - 86_400_000, to: 10_080_000 });
    expect(rangeQuery({ from: 1, to: 2 }, 99)).toEqual({ from: '1', to: '2' });
  });
});

describe('a typed custom window', () => {
  it('reads a datetime-local value as UTC and writes one back', () => {
    expect(parseUtcInput('2026-11-30T03:05')).toBe(Date.UTC(2026, 10, 30, 3, 5));
    expect(parseUtcInput('2026-11-30T03:05:09')).toBe(Date.UTC(2026, 10, 30, 3, 5, 9));
    expect(toUtcInput(Date.UTC(2026, 10, 30, 3, 5, 59, 999))).toBe('2026-11-30T03:05');
    for (const text of ['', '2026-11-30', '2026-11-30 03:05', '2026-02-30T10:00', '2026-11-30T24:30', 'soon']) {
      expect(parseUtcInput(text), text).toBeNull();
    }
  });

  it('takes a window whose start is before its end, and names the wrong input otherwise', () => {
    expect(customWindow('2026-11-30T03:00', '2026-11-30T04:00')).toEqual({
      ok: true,
      range: { from: Date.UTC(2026, 10, 30, 3), to: Date.UTC(2026, 10, 30, 4) },
    });
    expect(customWindow('', '2026-11-30T04:00')).toMatchObject({ ok: false, field: 'from' });
    expect(customWindow('2026-11-30T03:00', 'x')).toMatchObject({ ok: false, field: 'to' });
    expect(customWindow('2026-11-30T04:00', '2026-11-30T04:00')).toEqual({
      ok: false,
      field: 'to',
      message: 'The end must be after the start',
    });
  });

  it('says a range in words for a sentence', () => {
    expect(rangeText({ preset: '1h' })).toBe('the last hour');
    expect(rangeText({ preset: '24h' })).toBe('the last 24 hours');
    expect(rangeText({ preset: '7d' })).toBe('the last 7 days');
    const from = Date.UTC(2026, 10, 30, 18, 0);
    expect(rangeText({ from, to: from + 300_000 })).toBe('30 Nov 18:00 – 18:05 UTC');
  });
});
