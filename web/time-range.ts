import { formatWindow } from './format.ts';

/**
 * The time range of every screen, as it lives in the URL: a preset relative to now (`range=6h`) or an absolute
 * window (`from`/`to`, ISO). A preset is resolved when a query runs, so a refresh moves the window with the clock.
 */
export const PRESETS = ['1h', '6h', '24h', '7d'] as const;
export type Preset = (typeof PRESETS)[number];

export type TimeRange = { preset: Preset } | { from: number; to: number };

const DEFAULT_RANGE: TimeRange = { preset: '24h' };

const HOUR_MS = 3_600_000;
const PRESET_MS: Readonly<Record<Preset, number>> = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
};

function isPreset(value: string | null): value is Preset {
  return value !== null && (PRESETS as readonly string[]).includes(value);
}

/** ISO 8601 or epoch milliseconds; null for anything else. */
export function parseInstant(value: string | null): number | null {
  if (value === null || value === '') return null;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

const PRESET_TEXT: Readonly<Record<Preset, string>> = {
  '1h': 'the last hour',
  '6h': 'the last 6 hours',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
};

/** The range in words, for a sentence: "the last 24 hours", "30 Nov 18:00 – 18:05 UTC". */
export function rangeText(range: TimeRange): string {
  return 'preset' in range ? PRESET_TEXT[range.preset] : formatWindow(range.from, range.to);
}

/** An absolute window wins over a preset when both are valid; anything unreadable falls back to the default. */
export function parseRange(params: URLSearchParams): TimeRange {
  const from = parseInstant(params.get('from'));
  const to = parseInstant(params.get('to'));
  if (from !== null && to !== null && from < to) return { from, to };
  const preset = params.get('range');
  return isPreset(preset) ? { preset } : DEFAULT_RANGE;
}

/** The URL members for a range; the default preset is left out so that plain links stay plain. */
export function rangeParams(range: TimeRange): Record<'range' | 'from' | 'to', string | null> {
  if ('preset' in range) {
    return { range: range.preset === '24h' ? null : range.preset, from: null, to: null };
  }
  return { range: null, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() };
}

const MINUTE_MS = 60_000;

/**
 * The [from, to) window in epoch ms. A preset ends at the end of the current minute, so that the queries a screen
 * starts together, and its refreshes within the minute, resolve to the same window. The minute, not the second: the
 * counts are kept by the minute at finest, and a window ending inside one reads that minute's part from the events
 * themselves (docs/adr/0004-maintained-analysis-state.md). At 10M events a day the day's summary, the servers and an
 * hour's clients took 0.35-0.42 of the time on windows ending on a minute (docs/adr/0022-reads-at-scale.md).
 */
export function resolveRange(range: TimeRange, now: number): { from: number; to: number } {
  if (!('preset' in range)) return { from: range.from, to: range.to };
  const to = now - (now % MINUTE_MS) + MINUTE_MS;
  return { from: to - PRESET_MS[range.preset], to };
}

/** The window as the API's query members. */
export function rangeQuery(range: TimeRange, now: number = Date.now()): { from: string; to: string } {
  const { from, to } = resolveRange(range, now);
  return { from: String(from), to: String(to) };
}

/** An instant as a `datetime-local` input shows it, read as UTC: "2026-11-30T03:00". */
export function toUtcInput(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/**
 * What a `datetime-local` input gives ("2026-11-30T03:00", seconds optional), read as UTC like every time the
 * dashboard shows; null for anything else, including dates that do not exist (30 Feb).
 */
export function parseUtcInput(text: string): number | null {
  const value = text.trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second] = match;
  const ms = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second ?? 0));
  // Date.UTC rolls 30 Feb over into March; a value that does not come back unchanged named no real time.
  return toUtcInput(ms) === value.slice(0, 16) ? ms : null;
}

export type CustomWindow =
  | { ok: true; range: { from: number; to: number } }
  | { ok: false; field: 'from' | 'to'; message: string };

/** Two typed UTC times as a window, or which one is wrong and why. */
export function customWindow(fromText: string, toText: string): CustomWindow {
  const from = parseUtcInput(fromText);
  if (from === null) return { ok: false, field: 'from', message: 'Give a start date and time' };
  const to = parseUtcInput(toText);
  if (to === null) return { ok: false, field: 'to', message: 'Give an end date and time' };
  if (from >= to) return { ok: false, field: 'to', message: 'The end must be after the start' };
  return { ok: true, range: { from, to } };
}
